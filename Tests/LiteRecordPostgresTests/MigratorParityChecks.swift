import Foundation
import LiteRecord
import Testing

/// The migrator checks both backends run (`MigratorParityTests.swift`): the SQL in them is the
/// subset SQLite and PostgreSQL share.
enum MigratorParityChecks {
    struct Boom: Error {}

    /// Registered migrations run once each, in order, recorded with their positions; a later
    /// version's new migration runs alone.
    static func runsOnceInOrder(_ db: some ModelDatabase, _ backend: ParityBackend) throws {
        var migrator = Migrator()
        migrator.registerMigration("create notes") { db in
            try db.execute(sql: "CREATE TABLE notes(id INTEGER PRIMARY KEY, body TEXT)")
        }
        migrator.registerMigration("add author") { db in
            try db.execute(sql: "ALTER TABLE notes ADD COLUMN author TEXT")
        }
        migrator.registerMigration("seed") { db in
            try db.execute(sql: "INSERT INTO notes(id, body, author) VALUES (1, 'hello', 'ann')")
        }
        #expect(try migrator.appliedMigrations(in: db) == [])
        #expect(try !migrator.hasCompletedMigrations(in: db))
        try migrator.migrate(db)
        try migrator.migrate(db)
        #expect(try db.fetchOne(Int64.self, sql: "SELECT count(*) FROM notes WHERE author = 'ann'") == 1)
        #expect(try migrator.appliedMigrations(in: db) == ["create notes", "add author", "seed"])
        #expect(
            try db.fetchOne(Int64.self, sql: "SELECT position FROM literecord_migrations WHERE name = 'seed'")
                == 3)
        #expect(
            try db.fetchOne(
                Int64.self, sql: "SELECT count(*) FROM literecord_migrations WHERE applied_at LIKE '20%'")
                == 3)
        #expect(try migrator.hasCompletedMigrations(in: db))

        migrator.registerMigration("seed more") { db in
            try db.execute(sql: "INSERT INTO notes(id, body) VALUES (2, 'again')")
        }
        #expect(try !migrator.hasCompletedMigrations(in: db))
        try migrator.migrate(db)
        #expect(try db.fetchOne(Int64.self, sql: "SELECT count(*) FROM notes") == 2)
        #expect(
            try migrator.appliedMigrations(in: db) == ["create notes", "add author", "seed", "seed more"])
    }

    /// A migration that throws is rolled back and not recorded, later ones do not run, earlier
    /// ones stay; once fixed, the next run resumes from it.
    static func failureRollsBack(_ db: some ModelDatabase, _ backend: ParityBackend) throws {
        var migrator = Migrator()
        migrator.registerMigration("create notes") { db in
            try db.execute(sql: "CREATE TABLE notes(id INTEGER PRIMARY KEY, body TEXT)")
        }
        migrator.registerMigration("half done") { db in
            try db.execute(sql: "CREATE TABLE half(id INTEGER)")
            try db.execute(sql: "INSERT INTO notes(id, body) VALUES (7, 'written before the failure')")
            throw Boom()
        }
        migrator.registerMigration("after") { db in
            try db.execute(sql: "CREATE TABLE after_table(id INTEGER)")
        }
        let error = try #require(throws: MigrationError.self) { try migrator.migrate(db) }
        #expect(error.isMigrationFailure)
        #expect(error.migrationName == "half done")
        #expect(error.underlyingError is Boom)
        #expect(try migrator.appliedMigrations(in: db) == ["create notes"])
        #expect(try db.fetchOne(Int64.self, sql: "SELECT count(*) FROM notes") == 0)
        #expect(throws: DatabaseError.self) { try db.fetchOne(Int64.self, sql: "SELECT count(*) FROM half") }
        #expect(throws: DatabaseError.self) {
            try db.fetchOne(Int64.self, sql: "SELECT count(*) FROM after_table")
        }

        var fixed = Migrator()
        fixed.registerMigration("create notes") { _ in Issue.record("an applied migration ran again") }
        fixed.registerMigration("half done") { db in try db.execute(sql: "CREATE TABLE half(id INTEGER)") }
        fixed.registerMigration("after") { db in try db.execute(sql: "CREATE TABLE after_table(id INTEGER)") }
        try fixed.migrate(db)
        #expect(try fixed.appliedMigrations(in: db) == ["create notes", "half done", "after"])
        #expect(try db.fetchOne(Int64.self, sql: "SELECT count(*) FROM half") == 0)
    }

    /// A database that records a migration the migrator does not know is ahead of the code:
    /// nothing runs.
    static func unknownApplied(_ db: some ModelDatabase, _ backend: ParityBackend) throws {
        var newer = Migrator()
        newer.registerMigration("one") { db in try db.execute(sql: "CREATE TABLE t1(id INTEGER)") }
        newer.registerMigration("two") { db in try db.execute(sql: "CREATE TABLE t2(id INTEGER)") }
        try newer.migrate(db)
        var older = Migrator()
        older.registerMigration("one") { db in try db.execute(sql: "CREATE TABLE t1(id INTEGER)") }
        older.registerMigration("three") { db in try db.execute(sql: "CREATE TABLE t3(id INTEGER)") }
        let error = try #require(throws: MigrationError.self) { try older.migrate(db) }
        #expect(error.isUnknownAppliedMigration)
        #expect(error.migrationName == "two")
        #expect(throws: DatabaseError.self) { try db.fetchOne(Int64.self, sql: "SELECT count(*) FROM t3") }
        #expect(try older.appliedMigrations(in: db) == ["one", "two"])
    }

    /// A name registered twice fails every run before anything runs.
    static func duplicateName(_ db: some ModelDatabase, _ backend: ParityBackend) throws {
        var migrator = Migrator()
        migrator.registerMigration("same") { db in try db.execute(sql: "CREATE TABLE first_one(id INTEGER)") }
        migrator.registerMigration("same") { db in try db.execute(sql: "CREATE TABLE second_one(id INTEGER)")
        }
        let error = try #require(throws: MigrationError.self) { try migrator.migrate(db) }
        #expect(error.isDuplicateName)
        #expect(error.migrationName == "same")
        #expect(try migrator.appliedMigrations(in: db) == [])
        #expect(throws: DatabaseError.self) {
            try db.fetchOne(Int64.self, sql: "SELECT count(*) FROM first_one")
        }
    }

    /// `migrate(upTo:)` stops after the named migration; an unknown name is an error.
    static func upTo(_ db: some ModelDatabase, _ backend: ParityBackend) throws {
        var migrator = Migrator()
        for name in ["one", "two", "three"] {
            migrator.registerMigration(name) { db in
                try db.execute(sql: SQL(verbatim: "CREATE TABLE t_\(name)(id INTEGER)"))
            }
        }
        try migrator.migrate(db, upTo: "two")
        #expect(try migrator.appliedMigrations(in: db) == ["one", "two"])
        #expect(try !migrator.hasCompletedMigrations(in: db))
        let error = try #require(throws: MigrationError.self) { try migrator.migrate(db, upTo: "four") }
        #expect(error.isUnknownTarget)
        #expect(error.migrationName == "four")
        try migrator.migrate(db, upTo: "one")
        #expect(try migrator.appliedMigrations(in: db) == ["one", "two"])
        try migrator.migrate(db)
        #expect(try migrator.appliedMigrations(in: db) == ["one", "two", "three"])
    }

    /// Names are values, never SQL, compared by bytes: quotes, comment markers, empty, long,
    /// and two canonically equivalent spellings are distinct migrations.
    static func hostileNames(_ db: some ModelDatabase, _ backend: ParityBackend) throws {
        let names = [
            "x'); DROP TABLE log; --", "\"quoted\" ; ?", "", "emoji 🎉",
            String(repeating: "long ", count: 2_000),
            "caf\u{E9}", "cafe\u{301}",
        ]
        var migrator = Migrator()
        migrator.registerMigration("create log") { db in try db.execute(sql: "CREATE TABLE log(id INTEGER)") }
        for (index, name) in names.enumerated() {
            migrator.registerMigration(name) { db in
                try db.execute(sql: "INSERT INTO log(id) VALUES (\(index))")
            }
        }
        try migrator.migrate(db)
        try migrator.migrate(db)
        let applied = try migrator.appliedMigrations(in: db)
        #expect(applied.map { Array($0.utf8) } == (["create log"] + names).map { Array($0.utf8) })
        #expect(try db.fetchOne(Int64.self, sql: "SELECT count(*) FROM log") == Int64(names.count))
        #expect(try migrator.hasCompletedMigrations(in: db))
    }

    /// Inside a transaction the migrations commit or roll back with it.
    static func insideTransaction(_ db: some ModelDatabase, _ backend: ParityBackend) throws {
        var migrator = Migrator()
        migrator.registerMigration("one") { db in try db.execute(sql: "CREATE TABLE t1(id INTEGER)") }
        #expect(throws: Boom.self) {
            try db.transaction { tx in
                try migrator.migrate(tx)
                throw Boom()
            }
        }
        #expect(try migrator.appliedMigrations(in: db) == [])
        #expect(throws: DatabaseError.self) { try db.fetchOne(Int64.self, sql: "SELECT count(*) FROM t1") }
        try db.transaction { tx in try migrator.migrate(tx) }
        #expect(try migrator.appliedMigrations(in: db) == ["one"])
        #expect(try db.fetchOne(Int64.self, sql: "SELECT count(*) FROM t1") == 0)
    }

    /// Migrators running at the same time on several connections apply each migration once.
    static func concurrentRuns(_ db: some ModelDatabase, _ backend: ParityBackend) throws {
        let runners = (0..<4).map { _ in
            var migrator = Migrator()
            migrator.registerMigration("create runs") { db in
                try db.execute(sql: "CREATE TABLE runs(n INTEGER)")
            }
            migrator.registerMigration("count") { db in try db.execute(sql: "INSERT INTO runs(n) VALUES (1)")
            }
            return migrator
        }
        let failures = FailureList()
        DispatchQueue.concurrentPerform(iterations: runners.count) { index in
            do {
                try runners[index].migrate(db)
            } catch {
                failures.append("runner \(index): \(error)")
            }
        }
        #expect(failures.all.isEmpty)
        #expect(try db.fetchOne(Int64.self, sql: "SELECT count(*) FROM runs") == 1)
        #expect(try runners[0].appliedMigrations(in: db) == ["create runs", "count"])
    }
}
