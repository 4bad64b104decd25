import Foundation
import LiteRecord
import Testing

/// The migrator checks both backends run (`MigratorParityTests.swift`): the SQL in them is the
/// subset SQLite and PostgreSQL share.
enum MigratorParityChecks {
    struct Boom: Error {}

    /// Registered migrations run once each, in order, recorded with their positions; a later
    /// version's new migration runs alone.
    static func runsOnceInOrder(_ migrations: some MigrationsUnderTest) throws {
        let db = migrations.backend
        var migrator = migrations.makeMigrator()
        migrator.register("create notes") { db in
            try db.execute("CREATE TABLE notes(id INTEGER PRIMARY KEY, body TEXT)")
        }
        migrator.register("add author") { db in try db.execute("ALTER TABLE notes ADD COLUMN author TEXT") }
        migrator.register("seed") { db in
            try db.execute("INSERT INTO notes(id, body, author) VALUES (1, 'hello', 'ann')")
        }
        #expect(try migrator.applied() == [])
        #expect(try !migrator.hasCompleted())
        try migrator.migrate()
        try migrator.migrate()
        #expect(try db.integer("SELECT count(*) FROM notes WHERE author = 'ann'") == 1)
        #expect(try migrator.applied() == ["create notes", "add author", "seed"])
        #expect(try db.integer("SELECT position FROM literecord_migrations WHERE name = 'seed'") == 3)
        #expect(try db.integer("SELECT count(*) FROM literecord_migrations WHERE applied_at LIKE '20%'") == 3)
        #expect(try migrator.hasCompleted())

        migrator.register("seed more") { db in
            try db.execute("INSERT INTO notes(id, body) VALUES (2, 'again')")
        }
        #expect(try !migrator.hasCompleted())
        try migrator.migrate()
        #expect(try db.integer("SELECT count(*) FROM notes") == 2)
        #expect(try migrator.applied() == ["create notes", "add author", "seed", "seed more"])
    }

    /// A migration that throws is rolled back and not recorded, later ones do not run, earlier
    /// ones stay; once fixed, the next run resumes from it.
    static func failureRollsBack(_ migrations: some MigrationsUnderTest) throws {
        let db = migrations.backend
        var migrator = migrations.makeMigrator()
        migrator.register("create notes") { db in
            try db.execute("CREATE TABLE notes(id INTEGER PRIMARY KEY, body TEXT)")
        }
        migrator.register("half done") { db in
            try db.execute("CREATE TABLE half(id INTEGER)")
            try db.execute("INSERT INTO notes(id, body) VALUES (7, 'written before the failure')")
            throw Boom()
        }
        migrator.register("after") { db in try db.execute("CREATE TABLE after_table(id INTEGER)") }
        let error = try #require(throws: MigrationError.self) { try migrator.migrate() }
        #expect(error.isMigrationFailure)
        #expect(error.migrationName == "half done")
        #expect(error.underlyingError is Boom)
        #expect(try migrator.applied() == ["create notes"])
        #expect(try db.integer("SELECT count(*) FROM notes") == 0)
        #expect(throws: DatabaseError.self) { try db.integer("SELECT count(*) FROM half") }
        #expect(throws: DatabaseError.self) { try db.integer("SELECT count(*) FROM after_table") }

        var fixed = migrations.makeMigrator()
        fixed.register("create notes") { _ in Issue.record("an applied migration ran again") }
        fixed.register("half done") { db in try db.execute("CREATE TABLE half(id INTEGER)") }
        fixed.register("after") { db in try db.execute("CREATE TABLE after_table(id INTEGER)") }
        try fixed.migrate()
        #expect(try fixed.applied() == ["create notes", "half done", "after"])
        #expect(try db.integer("SELECT count(*) FROM half") == 0)
    }

    /// A database that records a migration the migrator does not know is ahead of the code:
    /// nothing runs.
    static func unknownApplied(_ migrations: some MigrationsUnderTest) throws {
        let db = migrations.backend
        var newer = migrations.makeMigrator()
        newer.register("one") { db in try db.execute("CREATE TABLE t1(id INTEGER)") }
        newer.register("two") { db in try db.execute("CREATE TABLE t2(id INTEGER)") }
        try newer.migrate()
        var older = migrations.makeMigrator()
        older.register("one") { db in try db.execute("CREATE TABLE t1(id INTEGER)") }
        older.register("three") { db in try db.execute("CREATE TABLE t3(id INTEGER)") }
        let error = try #require(throws: MigrationError.self) { try older.migrate() }
        #expect(error.isUnknownAppliedMigration)
        #expect(error.migrationName == "two")
        #expect(throws: DatabaseError.self) { try db.integer("SELECT count(*) FROM t3") }
        #expect(try older.applied() == ["one", "two"])
    }

    /// A name registered twice fails every run before anything runs.
    static func duplicateName(_ migrations: some MigrationsUnderTest) throws {
        let db = migrations.backend
        var migrator = migrations.makeMigrator()
        migrator.register("same") { db in try db.execute("CREATE TABLE first_one(id INTEGER)") }
        migrator.register("same") { db in try db.execute("CREATE TABLE second_one(id INTEGER)") }
        let error = try #require(throws: MigrationError.self) { try migrator.migrate() }
        #expect(error.isDuplicateName)
        #expect(error.migrationName == "same")
        #expect(try migrator.applied() == [])
        #expect(throws: DatabaseError.self) { try db.integer("SELECT count(*) FROM first_one") }
    }

    /// `migrate(upTo:)` stops after the named migration; an unknown name is an error.
    static func upTo(_ migrations: some MigrationsUnderTest) throws {
        var migrator = migrations.makeMigrator()
        for name in ["one", "two", "three"] {
            migrator.register(name) { db in
                try db.execute(SQL(verbatim: "CREATE TABLE t_\(name)(id INTEGER)"))
            }
        }
        try migrator.migrate(upTo: "two")
        #expect(try migrator.applied() == ["one", "two"])
        #expect(try !migrator.hasCompleted())
        let error = try #require(throws: MigrationError.self) { try migrator.migrate(upTo: "four") }
        #expect(error.isUnknownTarget)
        #expect(error.migrationName == "four")
        try migrator.migrate(upTo: "one")
        #expect(try migrator.applied() == ["one", "two"])
        try migrator.migrate()
        #expect(try migrator.applied() == ["one", "two", "three"])
    }

    /// Names are values, never SQL, compared by bytes: quotes, comment markers, empty, long,
    /// and two canonically equivalent spellings are distinct migrations.
    static func hostileNames(_ migrations: some MigrationsUnderTest) throws {
        let db = migrations.backend
        let names = [
            "x'); DROP TABLE log; --", "\"quoted\" ; ?", "", "emoji 🎉",
            String(repeating: "long ", count: 2_000),
            "caf\u{E9}", "cafe\u{301}",
        ]
        var migrator = migrations.makeMigrator()
        migrator.register("create log") { db in try db.execute("CREATE TABLE log(id INTEGER)") }
        for (index, name) in names.enumerated() {
            migrator.register(name) { db in try db.execute("INSERT INTO log(id) VALUES (\(index))") }
        }
        try migrator.migrate()
        try migrator.migrate()
        let applied = try migrator.applied()
        #expect(applied.map { Array($0.utf8) } == (["create log"] + names).map { Array($0.utf8) })
        #expect(try db.integer("SELECT count(*) FROM log") == Int64(names.count))
        #expect(try migrator.hasCompleted())
    }

    /// Inside a transaction the migrations commit or roll back with it.
    static func insideTransaction(_ migrations: some MigrationsUnderTest) throws {
        let db = migrations.backend
        var migrator = migrations.makeMigrator()
        migrator.register("one") { db in try db.execute("CREATE TABLE t1(id INTEGER)") }
        #expect(throws: Boom.self) { try migrator.migrateInTransaction(thenThrow: Boom()) }
        #expect(try migrator.applied() == [])
        #expect(throws: DatabaseError.self) { try db.integer("SELECT count(*) FROM t1") }
        try migrator.migrateInTransaction(thenThrow: nil)
        #expect(try migrator.applied() == ["one"])
        #expect(try db.integer("SELECT count(*) FROM t1") == 0)
    }

    /// Migrators running at the same time on several connections apply each migration once.
    static func concurrentRuns(_ migrations: some MigrationsUnderTest) throws {
        let db = migrations.backend
        let runners = (0..<4).map { _ in
            var migrator = migrations.makeMigrator()
            migrator.register("create runs") { db in try db.execute("CREATE TABLE runs(n INTEGER)") }
            migrator.register("count") { db in try db.execute("INSERT INTO runs(n) VALUES (1)") }
            return migrator
        }
        let failures = FailureList()
        DispatchQueue.concurrentPerform(iterations: runners.count) { index in
            do {
                try runners[index].migrate()
            } catch {
                failures.append("runner \(index): \(error)")
            }
        }
        #expect(failures.all.isEmpty)
        #expect(try db.integer("SELECT count(*) FROM runs") == 1)
        #expect(try runners[0].applied() == ["create runs", "count"])
    }
}
