import Foundation
import LiteRecord
import LiteRecordPostgres
import Testing

// Versioned migrations: the same checks with one `Migrator` on SQLite and on PostgreSQL.

@Suite struct SQLiteMigratorParityTests {
    @Test func runsOnceInOrder() throws { try MigratorParityChecks.runsOnceInOrder(try SQLiteMigrations()) }
    @Test func failureRollsBack() throws { try MigratorParityChecks.failureRollsBack(try SQLiteMigrations()) }
    @Test func unknownApplied() throws { try MigratorParityChecks.unknownApplied(try SQLiteMigrations()) }
    @Test func duplicateName() throws { try MigratorParityChecks.duplicateName(try SQLiteMigrations()) }
    @Test func upTo() throws { try MigratorParityChecks.upTo(try SQLiteMigrations()) }
    @Test func hostileNames() throws { try MigratorParityChecks.hostileNames(try SQLiteMigrations()) }
    @Test func insideTransaction() throws {
        try MigratorParityChecks.insideTransaction(try SQLiteMigrations())
    }
    @Test func concurrentRuns() throws { try MigratorParityChecks.concurrentRuns(try SQLiteMigrations()) }
}

@Suite(.enabled(if: PostgresTestServer.isAvailable, PostgresTestServer.skipMessage))
struct PostgresMigratorParityTests {
    @Test func runsOnceInOrder() throws { try MigratorParityChecks.runsOnceInOrder(try PostgresMigrations()) }
    @Test func failureRollsBack() throws {
        try MigratorParityChecks.failureRollsBack(try PostgresMigrations())
    }
    @Test func unknownApplied() throws { try MigratorParityChecks.unknownApplied(try PostgresMigrations()) }
    @Test func duplicateName() throws { try MigratorParityChecks.duplicateName(try PostgresMigrations()) }
    @Test func upTo() throws { try MigratorParityChecks.upTo(try PostgresMigrations()) }
    @Test func hostileNames() throws { try MigratorParityChecks.hostileNames(try PostgresMigrations()) }
    @Test func insideTransaction() throws {
        try MigratorParityChecks.insideTransaction(try PostgresMigrations())
    }
    @Test func concurrentRuns() throws { try MigratorParityChecks.concurrentRuns(try PostgresMigrations()) }

    /// PostgreSQL aborts the transaction of a statement that fails, even when the migration
    /// catches the error: the migration must then fail and leave nothing, not be recorded.
    @Test func caughtStatementFailureAbortsTheMigration() throws {
        let database = try PostgresTestServer.freshDatabase()
        try database.execute(sql: "CREATE TABLE notes(id integer PRIMARY KEY, body text)")
        var migrator = Migrator()
        migrator.registerMigration("swallows an error") { tx in
            try tx.execute(sql: "INSERT INTO notes VALUES (1, 'kept?')")
            _ = try? tx.execute(sql: "INSERT INTO notes VALUES (1, 'duplicate key')")
        }
        let error = try #require(throws: MigrationError.self) { try migrator.migrate(database) }
        #expect(error.isMigrationFailure)
        #expect(error.migrationName == "swallows an error")
        let underlying = try #require(error.underlyingError as? DatabaseError)
        #expect(underlying.resultCode == .abort)
        #expect(try database.fetchOne(Int.self, sql: "SELECT count(*) FROM notes") == 0)
        #expect(try migrator.appliedMigrations(in: database) == [])
    }

    /// A name PostgreSQL text cannot hold fails before its migration runs, with a clear error.
    @Test func nameWithNULFailsBeforeRunning() throws {
        let database = try PostgresTestServer.freshDatabase()
        var migrator = Migrator()
        migrator.registerMigration("bad\u{0}name") { tx in
            try tx.execute(sql: "CREATE TABLE never(id integer)")
        }
        let error = try #require(throws: MigrationError.self) { try migrator.migrate(database) }
        let underlying = try #require(error.underlyingError as? DatabaseError)
        #expect(underlying.resultCode == .mismatch)
        #expect(underlying.message.contains("NUL"))
        let tables = try database.fetchOne(
            Int.self,
            sql:
                "SELECT count(*) FROM information_schema.tables WHERE table_schema = current_schema() AND table_name = 'never'"
        )
        #expect(tables == 0)
    }

    /// A migration that commits the transaction it runs in is a misuse, reported as such.
    @Test func migrationEndingItsTransactionIsAMisuse() throws {
        let database = try PostgresTestServer.freshDatabase()
        var migrator = Migrator()
        migrator.registerMigration("commits") { tx in try tx.execute(sql: "COMMIT") }
        let error = try #require(throws: MigrationError.self) { try migrator.migrate(database) }
        let underlying = try #require(error.underlyingError as? DatabaseError)
        #expect(underlying.resultCode == .misuse)
        #expect(try migrator.appliedMigrations(in: database) == [])
    }
}

/// A migrator on one backend, its migrations written once against ``TestBackend``.
protocol MigrationsUnderTest: Sendable {
    /// The database the migrations run on.
    var backend: any TestBackend { get }
    /// A new, empty migrator on the same database.
    func makeMigrator() -> any MigratorUnderTest
}

protocol MigratorUnderTest: Sendable {
    mutating func register(_ name: String, _ body: @escaping @Sendable (any TestBackend) throws -> Void)
    func migrate() throws
    func migrate(upTo name: String) throws
    func applied() throws -> [String]
    func hasCompleted() throws -> Bool
    /// Runs `migrate()` inside a transaction of the database, then throws `rollback` when given.
    func migrateInTransaction(thenThrow rollback: (any Error)?) throws
}

struct SQLiteMigrations: MigrationsUnderTest {
    let database: Database
    var backend: any TestBackend { SQLiteBackend(context: database) }

    init() throws {
        // A file, so that concurrent runs use several connections, as on PostgreSQL.
        database = try Database(.temporary)
    }

    func makeMigrator() -> any MigratorUnderTest { Wrapped(database: database) }

    struct Wrapped: MigratorUnderTest {
        let database: Database
        var migrator = Migrator()

        mutating func register(_ name: String, _ body: @escaping @Sendable (any TestBackend) throws -> Void) {
            migrator.registerMigration(name) { connection in try body(SQLiteBackend(context: connection)) }
        }
        func migrate() throws { try migrator.migrate(database) }
        func migrate(upTo name: String) throws { try migrator.migrate(database, upTo: name) }
        func applied() throws -> [String] { try migrator.appliedMigrations(in: database) }
        func hasCompleted() throws -> Bool { try migrator.hasCompletedMigrations(in: database) }
        func migrateInTransaction(thenThrow rollback: (any Error)?) throws {
            try database.transaction { tx in
                try migrator.migrate(tx)
                if let rollback { throw rollback }
            }
        }
    }
}

struct PostgresMigrations: MigrationsUnderTest {
    let database: PostgresDatabase
    var backend: any TestBackend { PostgresBackend(context: database) }

    init() throws {
        database = try PostgresTestServer.freshDatabase()
    }

    func makeMigrator() -> any MigratorUnderTest { Wrapped(database: database) }

    struct Wrapped: MigratorUnderTest {
        let database: PostgresDatabase
        var migrator = Migrator()

        mutating func register(_ name: String, _ body: @escaping @Sendable (any TestBackend) throws -> Void) {
            migrator.registerMigration(name) { tx in try body(PostgresBackend(context: tx)) }
        }
        func migrate() throws { try migrator.migrate(database) }
        func migrate(upTo name: String) throws { try migrator.migrate(database, upTo: name) }
        func applied() throws -> [String] { try migrator.appliedMigrations(in: database) }
        func hasCompleted() throws -> Bool { try migrator.hasCompletedMigrations(in: database) }
        func migrateInTransaction(thenThrow rollback: (any Error)?) throws {
            try database.transaction { tx in
                try migrator.migrate(tx)
                if let rollback { throw rollback }
            }
        }
    }
}
