import Foundation
import LiteRecord
import LiteRecordPostgres
import Testing

// One `Migrator` for both backends: a migration whose closure uses only what every backend
// offers runs on each; one that uses a backend's own type runs only there, and says so.

private struct Pin: Model, Equatable {
    var id: Int64?
    var label: String
    static let schema = Schema<Pin>(table: "one_migrator_pins")
}

/// Written once: the app's migrations, for whichever database it opens.
private func appMigrator() -> Migrator {
    var migrator = Migrator()
    migrator.registerMigration("v1: pins") { db in
        try db.migrate(Pin.self)
    }
    migrator.registerMigration("v2: the first pin") { db in
        var pin = Pin(id: nil, label: "first")
        try db.insert(&pin)
        try db.execute(sql: "UPDATE one_migrator_pins SET label = \("first!") WHERE id = \(pin.id ?? 0)")
    }
    return migrator
}

/// Written once: migrate, then read what the migrations did.
private func migrateAndRead(_ db: some ModelDatabase) throws -> (
    applied: [String], labels: [String], done: Bool
) {
    let migrator = appMigrator()
    try migrator.migrate(db)
    try migrator.migrate(db)  // nothing pending: runs nothing
    return (
        try migrator.appliedMigrations(in: db), try db.query(Pin.self).fetchAll().map(\.label),
        try migrator.hasCompletedMigrations(in: db)
    )
}

@Suite(.enabled(if: PostgresTestServer.isAvailable, PostgresTestServer.skipMessage), .offCooperativePool)
struct OneMigratorTests {
    @Test func oneMigratorWrittenOnceMigratesSQLiteAndPostgreSQL() throws {
        let expected = (["v1: pins", "v2: the first pin"], ["first!"], true)
        let onSQLite = try migrateAndRead(Database(.inMemory))
        let onPostgreSQL = try migrateAndRead(PostgresTestServer.freshDatabase())
        #expect(onSQLite.applied == expected.0 && onSQLite.labels == expected.1 && onSQLite.done)
        #expect(onPostgreSQL.applied == expected.0 && onPostgreSQL.labels == expected.1 && onPostgreSQL.done)
    }

    @Test func theSameMigratorRunsInsideATransactionOfEitherBackend() throws {
        let pg = try PostgresTestServer.freshDatabase()
        let migrator = appMigrator()
        try pg.transaction { tx in try migrator.migrate(tx, upTo: "v1: pins") }
        #expect(try migrator.appliedMigrations(in: pg) == ["v1: pins"])
        #expect(try !migrator.hasCompletedMigrations(in: pg))
        let db = try Database(.inMemory)
        try db.transaction { tx in try migrator.migrate(tx) }
        #expect(try migrator.appliedMigrations(in: db) == ["v1: pins", "v2: the first pin"])
    }

    @Test func aMigrationOverSQLitesConnectionIsRefusedOnPostgreSQLAndNothingOfItIsKept() throws {
        var migrator = Migrator()
        migrator.registerMigration("sqlite only") { connection in
            _ = connection.totalChanges  // a Connection's own property
            try connection.execute(sql: "CREATE TABLE lite_only (id INTEGER)")
        }
        let pg = try PostgresTestServer.freshDatabase()
        let error = #expect(throws: MigrationError.self) { try migrator.migrate(pg) }
        #expect(error?.isMigrationFailure == true)
        #expect("\(error.map { String(describing: $0) } ?? "")".contains("runs only on SQLite"))
        #expect(try migrator.appliedMigrations(in: pg) == [])
        let db = try Database(.inMemory)
        try migrator.migrate(db)
        #expect(try db.fetchOne(Int.self, sql: "SELECT count(*) FROM lite_only") == 0)
    }

    @Test func aMigrationOverPostgreSQLsTransactionIsRefusedOnSQLite() throws {
        var migrator = Migrator()
        migrator.registerMigration("postgres only") { tx in
            try tx.withSession { _ in }  // a PostgresTransaction's own method
            try tx.execute(sql: "CREATE TABLE postgres_only (id bigint)")
        }
        let db = try Database(.inMemory)
        let error = #expect(throws: MigrationError.self) { try migrator.migrate(db) }
        #expect("\(error.map { String(describing: $0) } ?? "")".contains("runs only on PostgreSQL"))
        #expect(
            try db.fetchAll(Row.self, sql: "SELECT name FROM sqlite_master WHERE name = 'postgres_only'")
                .isEmpty)
        let pg = try PostgresTestServer.freshDatabase()
        try migrator.migrate(pg)
        #expect(try pg.fetchOne(Int.self, sql: "SELECT count(*) FROM postgres_only") == 0)
    }
}
