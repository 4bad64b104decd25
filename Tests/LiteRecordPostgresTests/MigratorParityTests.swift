import Foundation
import LiteRecord
import LiteRecordPostgres
import LiteRecordTestSupport
import Testing

// Versioned migrations: the same checks with one `Migrator` on an in-memory SQLite database, a
// SQLite file and PostgreSQL.

@Suite(.offCooperativePool) struct SQLiteMigratorParityTests {
    let backend = ParityBackend.sqliteMemory
    @Test func runsOnceInOrder() throws {
        try backend.run { try MigratorParityChecks.runsOnceInOrder($0, $1) }
    }
    @Test func failureRollsBack() throws {
        try backend.run { try MigratorParityChecks.failureRollsBack($0, $1) }
    }
    @Test func unknownApplied() throws { try backend.run { try MigratorParityChecks.unknownApplied($0, $1) } }
    @Test func duplicateName() throws { try backend.run { try MigratorParityChecks.duplicateName($0, $1) } }
    @Test func upTo() throws { try backend.run { try MigratorParityChecks.upTo($0, $1) } }
    @Test func hostileNames() throws { try backend.run { try MigratorParityChecks.hostileNames($0, $1) } }
    @Test func insideTransaction() throws {
        try backend.run { try MigratorParityChecks.insideTransaction($0, $1) }
    }
    @Test func concurrentRuns() throws { try backend.run { try MigratorParityChecks.concurrentRuns($0, $1) } }
}

@Suite(.offCooperativePool) struct SQLiteFileMigratorParityTests {
    let backend = ParityBackend.sqliteFile
    @Test func runsOnceInOrder() throws {
        try backend.run { try MigratorParityChecks.runsOnceInOrder($0, $1) }
    }
    @Test func failureRollsBack() throws {
        try backend.run { try MigratorParityChecks.failureRollsBack($0, $1) }
    }
    @Test func unknownApplied() throws { try backend.run { try MigratorParityChecks.unknownApplied($0, $1) } }
    @Test func duplicateName() throws { try backend.run { try MigratorParityChecks.duplicateName($0, $1) } }
    @Test func upTo() throws { try backend.run { try MigratorParityChecks.upTo($0, $1) } }
    @Test func hostileNames() throws { try backend.run { try MigratorParityChecks.hostileNames($0, $1) } }
    @Test func insideTransaction() throws {
        try backend.run { try MigratorParityChecks.insideTransaction($0, $1) }
    }
    @Test func concurrentRuns() throws { try backend.run { try MigratorParityChecks.concurrentRuns($0, $1) } }
}

@Suite(.enabled(if: PostgresTestServer.isAvailable, PostgresTestServer.skipMessage), .offCooperativePool)
struct PostgresMigratorParityTests {
    let backend = ParityBackend.postgres
    @Test func runsOnceInOrder() throws {
        try backend.run { try MigratorParityChecks.runsOnceInOrder($0, $1) }
    }
    @Test func failureRollsBack() throws {
        try backend.run { try MigratorParityChecks.failureRollsBack($0, $1) }
    }
    @Test func unknownApplied() throws { try backend.run { try MigratorParityChecks.unknownApplied($0, $1) } }
    @Test func duplicateName() throws { try backend.run { try MigratorParityChecks.duplicateName($0, $1) } }
    @Test func upTo() throws { try backend.run { try MigratorParityChecks.upTo($0, $1) } }
    @Test func hostileNames() throws { try backend.run { try MigratorParityChecks.hostileNames($0, $1) } }
    @Test func insideTransaction() throws {
        try backend.run { try MigratorParityChecks.insideTransaction($0, $1) }
    }
    @Test func concurrentRuns() throws { try backend.run { try MigratorParityChecks.concurrentRuns($0, $1) } }

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
