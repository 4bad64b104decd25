import Foundation
import LiteRecord
import LiteRecordPostgres
import LiteRecordTestSupport
import Testing

// What only PostgreSQL has: cancellation, aborted transactions, read-only reads, additive
// migration of a table another tool created, the async API, the pool under load.

private struct Gadget: Model, Equatable {
    var id: Int64?
    var label: String
    var weight: Double
    var added: Int?
    static let schema = Schema<Gadget>(table: "gadgets")
}

// Skipped, with the message, without LITERECORD_POSTGRES_URL.
@Suite(.enabled(if: PostgresTestServer.isAvailable, PostgresTestServer.skipMessage), .offCooperativePool)
struct PostgresDatabaseTests {
    @Test func badURLThrowsCannotOpen() {
        expectError(.cannotOpen) {
            _ = try PostgresDatabase(
                url: "postgresql:///nowhere?host=/nonexistent-directory&connect_timeout=2")
        }
    }

    @Test func cancellingTheTaskCancelsTheStatement() async throws {
        let database = try PostgresTestServer.freshDatabase()
        let task = Task(executorPreference: DedicatedThreadExecutor.promptTasks) {
            try await database.read { tx in _ = try tx.execute(sql: "SELECT pg_sleep(300)") }
        }
        try await Task.sleep(for: .milliseconds(300))
        task.cancel()
        await #expect {
            _ = try await task.value
        } throws: { error in
            // Cancelled on the server (57014), or before the statement started: no time is
            // asserted, but a statement that ran its 300 s would fail the run's time budget.
            (error as? DatabaseError)?.resultCode == .interrupt || error is CancellationError
        }
        // The connection is usable again.
        #expect(try await database.fetchOne(Int.self, sql: "SELECT \(41) + 1") == 42)
    }

    /// A cancel that lands between two statements of the work (the server runs none, so
    /// `PQcancel` has nothing to stop) still stops the next one, which would sleep 3 s.
    @Test(arguments: [true, false])
    func aCancelBetweenTwoStatementsStopsTheNextOne(inWrite: Bool) async throws {
        let database = try PostgresTestServer.freshDatabase()
        let started = DispatchSemaphore(value: 0)
        let cancelled = DispatchSemaphore(value: 0)
        let task = Task(executorPreference: DedicatedThreadExecutor.promptTasks) {
            let work: @Sendable (PostgresTransaction) throws -> Int = { tx in
                _ = try tx.execute(sql: "SELECT 1")
                started.signal()
                _ = cancelled.wait(timeout: .now() + 60)
                return try tx.execute(sql: "SELECT pg_sleep(3)")
            }
            return inWrite ? try await database.write(work) : try await database.read(work)
        }
        let didStart = await Task(executorPreference: DedicatedThreadExecutor.promptTasks) {
            started.wait(timeout: .now() + 60) == .success
        }.value
        #expect(didStart)
        task.cancel()
        cancelled.signal()
        await #expect {
            _ = try await task.value
        } throws: { error in
            (error as? DatabaseError)?.resultCode == .interrupt
        }
        #expect(try await database.fetchOne(Int.self, sql: "SELECT \(41) + 1") == 42)
    }

    @Test func aStatementThatFailsAbortsTheTransactionEvenWhenCaught() throws {
        let database = try PostgresTestServer.freshDatabase()
        try database.execute(sql: "CREATE TABLE things (name text UNIQUE)")
        try database.execute(sql: "INSERT INTO things VALUES (\("a"))")
        expectError(.abort) {
            try database.transaction { tx in
                try tx.execute(sql: "INSERT INTO things VALUES (\("b"))")
                _ = try? tx.execute(sql: "INSERT INTO things VALUES (\("a"))")  // fails, caught
            }
        }
        #expect(try database.fetchAll(String.self, sql: "SELECT name FROM things ORDER BY name") == ["a"])
    }

    /// A caught failure inside a savepoint aborts only the savepoint's work: it throws `.abort`,
    /// and the transaction around it goes on and commits.
    @Test func aCaughtFailureInsideASavepointRollsBackOnlyTheSavepoint() throws {
        let database = try PostgresTestServer.freshDatabase()
        try database.execute(sql: "CREATE TABLE things (name text UNIQUE)")
        try database.transaction { tx in
            try tx.execute(sql: "INSERT INTO things VALUES (\("a"))")
            expectError(.abort) {
                try tx.savepoint("attempt") { attempt in
                    try attempt.execute(sql: "INSERT INTO things VALUES (\("b"))")
                    _ = try? attempt.execute(sql: "INSERT INTO things VALUES (\("a"))")  // fails, caught
                }
            }
            try tx.execute(sql: "INSERT INTO things VALUES (\("c"))")
        }
        let names = try database.fetchAll(String.self, sql: "SELECT name FROM things ORDER BY name")
        #expect(names == ["a", "c"])
    }

    @Test func serverNoticesAreNotWrittenToStandardError() throws {
        let database = try PostgresTestServer.freshDatabase()
        let written = try capturingStandardError {
            try database.execute(sql: "DO $$ BEGIN RAISE NOTICE 'literecord-notice-probe'; END $$")
            try database.execute(sql: "DO $$ BEGIN RAISE WARNING 'literecord-warning-probe'; END $$")
        }
        #expect(!written.contains("literecord-notice-probe"))
        #expect(!written.contains("literecord-warning-probe"))
        #expect(try database.fetchOne(Int.self, sql: "SELECT 1") == 1)
    }

    /// A table another tool created without quotes has a lower-case name on PostgreSQL (not on
    /// SQLite): the error for the name as written says which name the table has.
    @Test func aTableNameInAnotherCaseIsNamedInTheError() throws {
        let database = try PostgresTestServer.freshDatabase()
        try database.execute(sql: "CREATE TABLE Shipments (ShipmentID integer, Destination text)")
        struct Shipment: Decodable, Equatable {
            var shipmentID: Int
            var destination: String?
        }
        try database.execute(sql: "INSERT INTO Shipments VALUES (7, 'Oslo')")
        let error = #expect(throws: DatabaseError.self) {
            try database.fetchAll(Shipment.self, fromTable: "Shipments")
        }
        #expect(
            error?.message
                == #"no such table: Shipments (PostgreSQL folds unquoted names to lower case: the table is "shipments")"#
        )
        #expect(
            try database.fetchAll(Shipment.self, fromTable: "shipments") == [
                Shipment(shipmentID: 7, destination: "Oslo")
            ])
    }

    /// PostgreSQL's errors carry their SQLSTATE, lead their description with it, and name the
    /// table and column or the constraint in the message; the code is SQLite's family.
    @Test func errorsCarryTheirSQLStateAndWhatTheyName() throws {
        let database = try PostgresTestServer.freshDatabase()
        try database.execute(sql: "CREATE TABLE members (id integer PRIMARY KEY, email text NOT NULL UNIQUE)")
        try database.execute(sql: "INSERT INTO members VALUES (1, 'a@example.com')")
        let duplicate = try #require(
            #expect(throws: DatabaseError.self) {
                try database.execute(sql: "INSERT INTO members VALUES (\(2), \("a@example.com"))")
            })
        #expect(duplicate.resultCode == .constraintUnique)
        #expect(duplicate.sqlState == "23505")
        #expect(
            duplicate.message
                == #"duplicate key value violates unique constraint "members_email_key": constraint members_email_key"#
        )
        #expect(
            duplicate.description
                == #"SQLSTATE 23505: duplicate key value violates unique constraint "members_email_key": "#
                + "constraint members_email_key — while executing `INSERT INTO members VALUES (?, ?)`")
        #expect(!duplicate.description.contains("example.com"))
        #expect(duplicate.expandedDescription.contains("a@example.com"))

        let missing = try #require(
            #expect(throws: DatabaseError.self) {
                try database.execute(sql: "INSERT INTO members (id) VALUES (\(3))")
            })
        #expect(missing.resultCode == .constraintNotNull)
        #expect(missing.sqlState == "23502")
        #expect(missing.message.hasSuffix(": members.email"), "\(missing.message)")

        let syntax = try #require(
            #expect(throws: DatabaseError.self) { try database.execute(sql: "SELEKT 1") })
        #expect(syntax.resultCode == .error)
        #expect(syntax.sqlState == "42601")
        #expect(syntax.description.hasPrefix("SQLSTATE 42601: syntax error at or near \"SELEKT\""))
        #expect(try database.fetchAll(Int.self, sql: "SELECT id FROM members") == [1])
    }

    @Test func readIsReadOnly() throws {
        let database = try PostgresTestServer.freshDatabase()
        try database.execute(sql: "CREATE TABLE things (name text)")
        expectError(.readOnly) {
            try database.read { tx in _ = try tx.execute(sql: "INSERT INTO things VALUES (\("x"))") }
        }
        #expect(try database.fetchOne(Int.self, sql: "SELECT count(*) FROM things") == 0)
    }

    @Test func migrateInAReadThrowsReadOnlyAndMigrateOnTheDatabaseCreatesTheTable() throws {
        let database = try PostgresTestServer.freshDatabase()
        #expect {
            try database.read { tx in try tx.migrate(Gadget.self) }
        } throws: { error in
            let error = error as? DatabaseError
            return error?.resultCode == .readOnly && error?.message.contains("migrate(Gadget)") == true
        }
        let tablesSQL: SQL =
            "SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema()"
        #expect(try database.fetchAll(String.self, sql: tablesSQL) == [])
        try database.migrate(Gadget.self)
        #expect(try database.fetchAll(String.self, sql: tablesSQL) == ["gadgets"])
        #expect(try database.query(Gadget.self).first() == nil)
        var gadget = Gadget(id: nil, label: "lamp", weight: 2, added: nil)
        try database.insert(&gadget)
        #expect(try database.query(Gadget.self).first() == gadget)
    }

    @Test func missingColumnsAreAdded() throws {
        let database = try PostgresTestServer.freshDatabase()
        try database.execute(
            sql:
                "CREATE TABLE gadgets (id bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY, label text NOT NULL)"
        )
        try database.execute(sql: "INSERT INTO gadgets (label) VALUES (\("old"))")
        var gadget = Gadget(id: nil, label: "new", weight: 1.5, added: 7)
        let columnsSQL: SQL = """
            SELECT column_name FROM information_schema.columns
            WHERE table_schema = current_schema() AND table_name = 'gadgets' ORDER BY ordinal_position
            """
        // weight is new, required and has no default: refused before anything changes, with
        // SQLite's SchemaError (not ALTER TABLE's raw 23502, as before).
        let error = try #require(throws: SchemaError.self) { try database.insert(&gadget) }
        #expect(error.message.contains("Gadget.weight is new and not optional"))
        #expect(try database.fetchAll(String.self, sql: columnsSQL) == ["id", "label"])
        try database.execute(sql: "ALTER TABLE gadgets ADD COLUMN weight double precision NOT NULL DEFAULT 0")
        try database.insert(&gadget)
        #expect(try database.find(Gadget.self, id: #require(gadget.id)) == gadget)
        #expect(try database.fetchAll(String.self, sql: columnsSQL) == ["id", "label", "weight", "added"])
    }

    @Test func insertContentsOfIsAllOrNothing() throws {
        let database = try PostgresTestServer.freshDatabase()
        var generator = SplitMix64(state: 9)
        let first = ParityRecord.random(1, using: &generator)
        var clash = ParityRecord.random(2, using: &generator)
        clash.name = first.name
        expectError(.constraintUnique) {
            try database.insert(contentsOf: [first, ParityRecord.random(3, using: &generator), clash])
        }
        #expect(try database.query(ParityRecord.self).count() == 0)
        let inserted = try database.insert(contentsOf: [first, ParityRecord.random(4, using: &generator)])
        #expect(inserted.allSatisfy { $0.id != nil })
        #expect(try database.query(ParityRecord.self).order { $0.id.ascending }.fetchAll() == inserted)
    }

    @Test func asyncQueriesAndManyTasksOnASmallPool() async throws {
        var configuration = PostgresConfiguration()
        configuration.maximumConnections = 3
        let database = try PostgresTestServer.freshDatabase(configuration: configuration)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<40 {
                group.addTask {
                    try await database.write { tx in
                        var gadget = Gadget(id: nil, label: "g\(index)", weight: Double(index), added: nil)
                        try tx.insert(&gadget)
                    }
                }
            }
            try await group.waitForAll()
        }
        let heavy = try await database.query(Gadget.self).where { $0.weight >= 30 }.order {
            $0.weight.ascending
        }
        .fetchAll()
        #expect(heavy.map(\.label) == (30..<40).map { "g\($0)" })
        #expect(try await database.query(Gadget.self).count() == 40)
    }
}

/// Runs `body` with the process's standard error sent to a file, and returns what was written
/// there; the output is then written to the real standard error too, so other tests running
/// meanwhile lose nothing.
private func capturingStandardError(_ body: () throws -> Void) throws -> String {
    let path = NSTemporaryDirectory() + "literecord-stderr-\(UUID().uuidString)"
    let file = open(path, O_CREAT | O_RDWR | O_TRUNC, 0o600)
    try #require(file >= 0)
    defer {
        close(file)
        unlink(path)
    }
    let savedStandardError = dup(STDERR_FILENO)
    dup2(file, STDERR_FILENO)
    let outcome = Result { try body() }
    dup2(savedStandardError, STDERR_FILENO)
    close(savedStandardError)
    let written = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
    FileHandle.standardError.write(Data(written.utf8))
    try outcome.get()
    return written
}
