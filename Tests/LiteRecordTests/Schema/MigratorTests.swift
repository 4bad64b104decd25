import Foundation
import LiteRecord
import Testing

private struct StepFailure: Error, Equatable {
    let step: String
}

@Suite("Migrator")
struct MigratorTests {
    // MARK: - Helpers

    /// A migrator whose steps each create a table named after the step and log their name.
    private func loggingMigrator(_ names: [String], log: EventLog<String>) -> Migrator {
        var migrator = Migrator()
        for name in names {
            migrator.registerMigration(name) { db in
                log.append(name)
                try db.execute(sql: "CREATE TABLE \(identifier: "table " + name)(a)")
            }
        }
        return migrator
    }

    private func tableExists(_ db: some DatabaseContext, _ name: String) throws -> Bool {
        try db.firstValue(
            Int.self, sql: "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = \(name)") == 1
    }

    private func tables(_ db: some DatabaseContext) throws -> [String] {
        try db.fetchAll(String.self, sql: "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
    }

    /// Runs `body`, expecting it to throw a `MigrationError`, and returns that error.
    private func migrationError(_ body: () throws -> Void) -> MigrationError? {
        do {
            try body()
            Issue.record("expected a MigrationError, nothing was thrown")
        } catch let error as MigrationError {
            return error
        } catch {
            Issue.record("expected a MigrationError, got \(type(of: error)): \(error)")
        }
        return nil
    }

    // MARK: - Running once, in order

    @Test func runsEachStepOnceInRegistrationOrder() throws {
        let db = try Database(.inMemory)
        let log = EventLog<String>()
        let names = ["v1", "v2", "a later one", "v10"]
        let migrator = loggingMigrator(names, log: log)
        #expect(migrator.migrationNames == names)
        #expect(try migrator.appliedMigrations(in: db) == [])
        #expect(try !migrator.hasCompletedMigrations(in: db))
        #expect(try !tableExists(db, Migrator.tableName))  // reading created nothing

        try migrator.migrate(db)
        #expect(log.events == names)
        try migrator.migrate(db)
        #expect(log.events == names)  // nothing ran the second time
        #expect(try migrator.appliedMigrations(in: db) == names)
        #expect(try migrator.hasCompletedMigrations(in: db))
        for name in names { #expect(try tableExists(db, "table " + name)) }
        #expect(!db.isInsideTransaction)
    }

    @Test func recordsEachStepWithItsPositionAndUTCTime() throws {
        let db = try Database(.inMemory)
        let before = Date()
        try loggingMigrator(["b", "a", "c"], log: EventLog()).migrate(db)
        let after = Date()
        let rows = try db.fetchAll(
            Row.self, sql: "SELECT name, position, applied_at FROM literecord_migrations ORDER BY position")
        #expect(try rows.map { try $0.value(String.self, at: 0) } == ["b", "a", "c"])
        #expect(try rows.map { try $0.value(Int.self, at: 1) } == [1, 2, 3])
        for row in rows {
            let appliedAt = try row.value(Date.self, at: 2)
            #expect(appliedAt >= before && appliedAt <= after)
        }
        // UTC text that SQLite's date functions read.
        let unreadable = try db.firstValue(
            Int.self,
            sql: """
                SELECT count(*) FROM literecord_migrations
                WHERE typeof(applied_at) != 'text' OR datetime(applied_at) IS NULL
                """)
        #expect(unreadable == 0)
    }

    // MARK: - The classic: add a column, then fill it exactly once

    @Test func addsAColumnThenFillsItForOldRowsExactlyOnce() throws {
        let db = try Database(.inMemory)
        let createPosts: @Sendable (Connection) throws -> Void = { db in
            try db.execute(
                sql: """
                    CREATE TABLE posts(id INTEGER PRIMARY KEY, title TEXT);
                    INSERT INTO posts(title) VALUES ('first'), ('second');
                    """)
        }
        var version1 = Migrator()
        version1.registerMigration("v1", migrate: createPosts)
        try version1.migrate(db)

        var version2 = Migrator()
        version2.registerMigration("v1", migrate: createPosts)
        version2.registerMigration("add userId") { db in
            try db.execute(sql: "ALTER TABLE posts ADD COLUMN userId INTEGER")
        }
        version2.registerMigration("fill userId") { db in
            try db.execute(sql: "UPDATE posts SET userId = \(1) WHERE userId IS NULL")
        }
        try version2.migrate(db)
        let query: SQL = "SELECT title, userId FROM posts ORDER BY id"
        #expect(try db.fetchAll(Row.self, sql: query).map(\.values) == [["first", 1], ["second", 1]])

        try db.execute(sql: "INSERT INTO posts(title, userId) VALUES ('new', NULL)")
        try version2.migrate(db)  // the fill does not run again
        #expect(
            try db.fetchAll(Row.self, sql: query).map(\.values)
                == [["first", 1], ["second", 1], ["new", .null]])
        #expect(try version2.appliedMigrations(in: db) == ["v1", "add userId", "fill userId"])
        #expect(try db.firstValue(Int.self, sql: "SELECT count(*) FROM posts WHERE title = 'first'") == 1)
    }

    // MARK: - Failures

    @Test func aThrowingStepRollsBackAndStopsTheRun() throws {
        let db = try Database(.inMemory)
        let log = EventLog<String>()
        var migrator = Migrator()
        migrator.registerMigration("v1") { db in
            log.append("v1")
            try db.execute(sql: "CREATE TABLE kept(a); INSERT INTO kept VALUES (1)")
        }
        migrator.registerMigration("broken") { db in
            log.append("broken")
            try db.execute(sql: "CREATE TABLE half(a); INSERT INTO half VALUES (1)")
            try db.execute(sql: "UPDATE kept SET a = 2")
            throw StepFailure(step: "broken")
        }
        migrator.registerMigration("v3") { db in
            log.append("v3")
            try db.execute(sql: "CREATE TABLE later(a)")
        }
        let error = migrationError { try migrator.migrate(db) }
        #expect(error?.migrationName == "broken")
        #expect(error?.isMigrationFailure == true)
        #expect(error?.underlyingError as? StepFailure == StepFailure(step: "broken"))
        #expect(error?.description == "migration \"broken\" failed: StepFailure(step: \"broken\")")

        #expect(log.events == ["v1", "broken"])  // v3 did not run
        #expect(try tables(db) == ["kept", Migrator.tableName])
        #expect(try db.firstValue(Int.self, sql: "SELECT a FROM kept") == 1)
        #expect(try migrator.appliedMigrations(in: db) == ["v1"])
        #expect(try !migrator.hasCompletedMigrations(in: db))
        #expect(!db.isInsideTransaction)
    }

    @Test func failingSQLIsWrappedWithTheStepName() throws {
        let db = try Database(.inMemory)
        var migrator = Migrator()
        migrator.registerMigration("create") { db in try db.execute(sql: "CREATE TABLE t(a)") }
        migrator.registerMigration("add userId") { db in
            try db.execute(sql: "CREATE TABLE other(a)")
            try db.execute(sql: "ALTER TABLE t ADD COLUMN a INTEGER")  // duplicate column
        }
        let error = migrationError { try migrator.migrate(db) }
        let underlying = error?.underlyingError as? DatabaseError
        #expect(error?.migrationName == "add userId")
        #expect(underlying?.resultCode == .error)
        #expect(underlying?.message.contains("duplicate column name: a") == true)
        if let error, let underlying {
            #expect(error.description == "migration \"add userId\" failed: \(underlying)")
        }
        #expect(try tables(db) == [Migrator.tableName, "t"])
        #expect(try migrator.appliedMigrations(in: db) == ["create"])
    }

    @Test func resumesFromTheFailedStepOnceItIsFixed() throws {
        let db = try Database(.inMemory)
        let log = EventLog<String>()
        func makeMigrator(fixed: Bool) -> Migrator {
            var migrator = Migrator()
            migrator.registerMigration("v1") { db in
                log.append("v1")
                try db.execute(sql: "CREATE TABLE t(a)")
            }
            migrator.registerMigration("v2") { db in
                log.append("v2")
                try db.execute(sql: fixed ? "INSERT INTO t VALUES (2)" : "INSERT INTO missing VALUES (2)")
            }
            migrator.registerMigration("v3") { db in
                log.append("v3")
                try db.execute(sql: "INSERT INTO t VALUES (3)")
            }
            return migrator
        }
        #expect(migrationError { try makeMigrator(fixed: false).migrate(db) }?.migrationName == "v2")
        #expect(log.events == ["v1", "v2"])
        try makeMigrator(fixed: true).migrate(db)
        #expect(log.events == ["v1", "v2", "v2", "v3"])
        #expect(try db.fetchAll(Int.self, sql: "SELECT a FROM t ORDER BY a") == [2, 3])
        #expect(try makeMigrator(fixed: true).appliedMigrations(in: db) == ["v1", "v2", "v3"])
    }

    @Test func aStepThatEndsItsTransactionFails() throws {
        let db = try Database(.inMemory)
        var migrator = Migrator()
        migrator.registerMigration("rogue") { db in
            try db.execute(sql: "CREATE TABLE t(a)")
            try db.execute(sql: "ROLLBACK")
        }
        let error = migrationError { try migrator.migrate(db) }
        #expect(error?.migrationName == "rogue")
        #expect((error?.underlyingError as? DatabaseError)?.resultCode == .misuse)
        #expect(try migrator.appliedMigrations(in: db) == [])
        #expect(try !tableExists(db, "t"))
        #expect(!db.isInsideTransaction)
    }

    // MARK: - Names

    /// A step name, shown in test results by a short label (the 10 KB one would flood them).
    struct StepName: Sendable, CustomTestStringConvertible {
        let text: String
        let testDescription: String

        init(_ text: String, label: String? = nil) {
            self.text = text
            self.testDescription = label ?? text.debugDescription
        }
    }

    static let hostileNames: [StepName] = [
        StepName("it's"), StepName("\"double\""), StepName("'); DROP TABLE x;--"),
        StepName("\"); DROP TABLE x; --"), StepName("a\0b"), StepName("\0"), StepName("🚀 v2 🧑‍💻"),
        StepName(""), StepName(" "), StepName("select"), StepName("line\nbreak"),
        StepName("literecord_migrations"),
        StepName(String(repeating: "x'\"; -- ", count: 1280), label: "10 KB of quotes and comments"),
    ]

    @Test(arguments: hostileNames)
    func anyTextIsAStepNameStoredByteForByte(stepName: StepName) throws {
        let name = stepName.text
        let db = try Database(.inMemory)
        try db.execute(sql: "CREATE TABLE x(a); INSERT INTO x VALUES ('untouched')")
        let log = EventLog<String>()
        var migrator = Migrator()
        migrator.registerMigration(name) { db in
            log.append(name)
            try db.execute(sql: "INSERT INTO x VALUES (\(name))")
        }
        migrator.registerMigration("after") { _ in log.append("after") }
        try migrator.migrate(db)
        try migrator.migrate(db)

        #expect(log.events.map { Array($0.utf8) } == [Array(name.utf8), Array("after".utf8)])
        let applied = try migrator.appliedMigrations(in: db)
        #expect(applied.map { Array($0.utf8) } == [Array(name.utf8), Array("after".utf8)])
        let stored = try db.fetchAll(
            Row.self, sql: "SELECT CAST(name AS BLOB) FROM literecord_migrations ORDER BY position"
        ).map { try $0.value(Data.self, at: 0) }
        #expect(stored == [Data(name.utf8), Data("after".utf8)])
        #expect(try tables(db) == [Migrator.tableName, "x"])
        #expect(try db.fetchAll(Row.self, sql: "SELECT a FROM x").count == 2)
        #expect(try migrator.hasCompletedMigrations(in: db))
    }

    @Test(arguments: hostileNames)
    func aFailingHostileNameIsReportedVerbatim(stepName: StepName) throws {
        let name = stepName.text
        let db = try Database(.inMemory)
        var migrator = Migrator()
        migrator.registerMigration(name) { _ in throw StepFailure(step: name) }
        let error = migrationError { try migrator.migrate(db) }
        #expect(error.map { Array($0.migrationName.utf8) } == Array(name.utf8))
        #expect(error?.description.hasPrefix("migration \"" + name + "\" failed: ") == true)
        #expect(try migrator.appliedMigrations(in: db) == [])
    }

    @Test func namesAreComparedByTheirExactBytes() throws {
        let db = try Database(.inMemory)
        let composed = "caf\u{E9}"
        let decomposed = "cafe\u{301}"
        #expect(composed == decomposed)  // equal to Swift, distinct to SQLite
        let log = EventLog<String>()
        var migrator = Migrator()
        for name in [composed, decomposed] {
            migrator.registerMigration(name) { _ in log.append(name) }
        }
        #expect(migrator.migrationNames.count == 2)
        try migrator.migrate(db)
        #expect(log.events.map { Array($0.utf8) } == [Array(composed.utf8), Array(decomposed.utf8)])
        let applied = try migrator.appliedMigrations(in: db)
        #expect(applied.map { Array($0.utf8) } == [Array(composed.utf8), Array(decomposed.utf8)])

        var onlyComposed = Migrator()
        onlyComposed.registerMigration(composed) { _ in }
        #expect(migrationError { try onlyComposed.migrate(db) }?.isUnknownAppliedMigration == true)
    }

    // MARK: - Rules

    @Test func aNameRegisteredTwiceMakesMigrateThrowBeforeRunningAnything() throws {
        let db = try Database(.inMemory)
        let log = EventLog<String>()
        var migrator = loggingMigrator(["v1", "v2"], log: log)
        migrator.registerMigration("v1") { _ in log.append("v1 again") }
        migrator.registerMigration("v1") { _ in log.append("v1 a third time") }
        #expect(migrator.migrationNames == ["v1", "v2"])

        let error = migrationError { try migrator.migrate(db) }
        #expect(error?.isDuplicateName == true)
        #expect(error?.isMigrationFailure == false)
        #expect(error?.migrationName == "v1")
        #expect(error?.underlyingError == nil)
        #expect(
            error?.description
                == "migration \"v1\" is registered more than once; give each migration its own name "
                + "(nothing was migrated)")
        #expect(migrationError { try migrator.migrate(db, upTo: "v2") }?.isDuplicateName == true)
        #expect(log.events == [])
        #expect(try tables(db) == [])
    }

    @Test func appliedMigrationsUnknownToTheMigratorStopTheRun() throws {
        let db = try Database(.inMemory)
        let log = EventLog<String>()
        try loggingMigrator(["v1", "v2", "v3", "v4"], log: log).migrate(db)
        log.removeAll()

        let older = loggingMigrator(["v1", "v2"], log: log)
        let error = migrationError { try older.migrate(db) }
        #expect(error?.isUnknownAppliedMigration == true)
        #expect(error?.migrationName == "v3")
        #expect(error?.underlyingError == nil)
        #expect(error?.description.hasPrefix("the database records migrations \"v3\", \"v4\" that") == true)
        #expect(try older.hasCompletedMigrations(in: db))  // every migration it knows is applied
        #expect(try older.appliedMigrations(in: db) == ["v1", "v2", "v3", "v4"])

        // Also when the older migrator still has pending work, nothing runs.
        let diverged = loggingMigrator(["v1", "v2", "v3b"], log: log)
        #expect(migrationError { try diverged.migrate(db) }?.isUnknownAppliedMigration == true)
        #expect(migrationError { try diverged.migrate(db, upTo: "v3b") }?.isUnknownAppliedMigration == true)
        #expect(try !diverged.hasCompletedMigrations(in: db))
        #expect(log.events == [])
        #expect(try !tableExists(db, "table v3b"))
    }

    @Test func migratesUpToANamedStep() throws {
        let db = try Database(.inMemory)
        let log = EventLog<String>()
        let migrator = loggingMigrator(["v1", "v2", "v3"], log: log)
        try migrator.migrate(db, upTo: "v2")
        #expect(log.events == ["v1", "v2"])
        #expect(try migrator.appliedMigrations(in: db) == ["v1", "v2"])
        #expect(try !migrator.hasCompletedMigrations(in: db))

        try migrator.migrate(db, upTo: "v1")  // already there: nothing to do
        try migrator.migrate(db, upTo: "v2")
        #expect(log.events == ["v1", "v2"])

        let error = migrationError { try migrator.migrate(db, upTo: "v9") }
        #expect(error?.isUnknownTarget == true)
        #expect(error?.migrationName == "v9")
        #expect(log.events == ["v1", "v2"])

        try migrator.migrate(db)
        #expect(log.events == ["v1", "v2", "v3"])
        try migrator.migrate(db, upTo: "v1")  // later steps applied too: still nothing to do
        #expect(log.events == ["v1", "v2", "v3"])
    }

    @Test func anEmptyMigratorDoesNothing() throws {
        let db = try Database(.inMemory)
        let migrator = Migrator()
        try migrator.migrate(db)
        #expect(try migrator.appliedMigrations(in: db) == [])
        #expect(try migrator.hasCompletedMigrations(in: db))
        #expect(try tables(db) == [])
    }

    @Test func insideATransactionTheRunRollsBackWithIt() throws {
        let db = try Database(.inMemory)
        let migrator = loggingMigrator(["v1", "v2"], log: EventLog())
        #expect(throws: StepFailure(step: "outer")) {
            try db.transaction { tx in
                try migrator.migrate(tx)
                #expect(try migrator.appliedMigrations(in: tx) == ["v1", "v2"])
                throw StepFailure(step: "outer")
            }
        }
        #expect(try migrator.appliedMigrations(in: db) == [])
        #expect(try tables(db) == [])

        try db.transaction { tx in try migrator.migrate(tx) }
        #expect(try migrator.appliedMigrations(in: db) == ["v1", "v2"])
    }

    // MARK: - Files and concurrency

    @Test func appliedStateSurvivesReopeningTheFile() throws {
        try withTemporaryDirectory { directory in
            let path = directory.file("migrations.sqlite")
            let log = EventLog<String>()
            do {
                let db = try Database(path: path)
                try loggingMigrator(["v1", "v2"], log: log).migrate(db)
            }
            let db = try Database(path: path)
            let migrator = loggingMigrator(["v1", "v2", "v3"], log: log)
            #expect(try migrator.appliedMigrations(in: db) == ["v1", "v2"])
            try migrator.migrate(db)
            #expect(log.events == ["v1", "v2", "v3"])

            var configuration = Configuration()
            configuration.readOnly = true
            let reader = try Database(path: path, configuration: configuration)
            try migrator.migrate(reader)  // up to date: reads only
            #expect(try migrator.hasCompletedMigrations(in: reader))
            let newer = loggingMigrator(["v1", "v2", "v3", "v4"], log: log)
            let error = migrationError { try newer.migrate(reader) }
            #expect(error?.migrationName == "v4")
            #expect((error?.underlyingError as? DatabaseError)?.primaryResultCode == .readOnly)
        }
    }

    @Test func concurrentRunsApplyEachStepOnce() throws {
        try withTemporaryDirectory { directory in
            let path = directory.file("concurrent.sqlite")
            let shared = try Database(path: path)
            try shared.execute(sql: "CREATE TABLE runs(name TEXT)")
            var migrator = Migrator()
            for index in 1...40 {
                migrator.registerMigration("step \(index)") { db in
                    try db.execute(sql: "INSERT INTO runs VALUES (\("step \(index)"))")
                }
            }
            let runner = migrator
            // Threads sharing one Database, and threads with connections of their own, all opened
            // before any thread starts so that the runs overlap.
            let databases = [shared, shared] + (try (0..<6).map { _ in try Database(path: path) })
            let threads = databases.map { db in
                BackgroundThread<Void> { try runner.migrate(db) }
            }
            for thread in threads {
                let result = thread.result(waitingAtMost: 30)
                #expect(result != nil)
                if case .failure(let error) = result { Issue.record("migrate failed: \(error)") }
            }
            let runs = try shared.fetchAll(String.self, sql: "SELECT name FROM runs ORDER BY rowid")
            #expect(runs == migrator.migrationNames)
            #expect(try migrator.appliedMigrations(in: shared) == migrator.migrationNames)
        }
    }
}
