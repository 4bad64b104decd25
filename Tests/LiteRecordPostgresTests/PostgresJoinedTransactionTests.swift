import Foundation
import LiteRecord
import LiteRecordPostgres
import LiteRecordTestSupport
import Testing

// A call on the database inside its own transaction's body joins the transaction, on
// PostgreSQL as on SQLite (issue 45, item 1). Before, each such call borrowed another pooled
// connection: its write survived a rollback, a retried body wrote once per attempt, reads in the
// body missed the body's rows, and a pool too small for the extra connection waited forever.
// Each test bounds its waits (a connection wait timeout, or `finishes(within:)`), so that the
// old behaviour fails the test instead of hanging the run.

private struct Thing: Model, Equatable {
    var id: Int64?
    var name: String
    static let schema = Schema<Thing>(table: "joined_things")
}

private struct Refusal: Error {}

@Suite(.enabled(if: PostgresTestServer.isAvailable, PostgresTestServer.skipMessage), .offCooperativePool)
struct PostgresJoinedTransactionTests {
    /// A database with a pool of `connections`, whose calls wait at most two seconds for one.
    private func database(connections: Int) throws -> PostgresDatabase {
        var configuration = PostgresConfiguration()
        configuration.maximumConnections = connections
        configuration.connectionWaitTimeout = .seconds(2)
        let pg = try PostgresTestServer.freshDatabase(configuration: configuration)
        try pg.migrate(Thing.self)
        return pg
    }

    /// The rows, read with a query of their own after the calls under test returned.
    private func storedNames(_ pg: PostgresDatabase) throws -> [String] {
        try pg.fetchAll(String.self, sql: "SELECT name FROM joined_things ORDER BY name")
    }

    @Test func aWriteOnTheDatabaseInsideABodyRollsBackWithIt() throws {
        let pg = try database(connections: 4)
        #expect(throws: Refusal.self) {
            try pg.transaction { _ in
                var thing = Thing(name: "rolled back")
                try pg.insert(&thing)
                try pg.execute(sql: "INSERT INTO joined_things (name) VALUES (\("raw, rolled back"))")
                throw Refusal()
            }
        }
        #expect(try storedNames(pg) == [])
    }

    @Test func aRetriedBodyWritesThroughTheDatabaseOnce() throws {
        let pg = try database(connections: 4)
        var attempts = 0
        try pg.transaction { _ in
            attempts += 1
            try pg.insert(Thing(name: "once"))
            if attempts == 1 {
                // A serialization failure raised by the server: the transaction runs again.
                try pg.execute(
                    sql:
                        "DO $$ BEGIN RAISE EXCEPTION 'conflict' USING ERRCODE = 'serialization_failure'; END $$"
                )
            }
        }
        #expect(attempts == 2)
        #expect(try storedNames(pg) == ["once"])
    }

    @Test func readsInsideABodySeeItsOwnWrites() throws {
        let pg = try database(connections: 4)
        let seen = try pg.transaction { tx in
            var thing = Thing(name: "mine")
            try tx.insert(&thing)
            let id = try #require(thing.id)
            return (
                count: try pg.count(Thing.self),
                queried: try pg.query(Thing.self).where { $0.name == "mine" }.fetchAll().map(\.name),
                found: try pg.find(Thing.self, id: id)?.name,
                raw: try pg.fetchAll(String.self, sql: "SELECT name FROM joined_things"),
                streamed: try { () throws -> [String] in
                    var names: [String] = []
                    // swift-format-ignore: ReplaceForEachWithForLoop
                    try pg.query(Thing.self).forEach { names.append($0.name) }
                    return names
                }()
            )
        }
        #expect(seen.count == 1)
        #expect(seen.queried == ["mine"])
        #expect(seen.found == "mine")
        #expect(seen.raw == ["mine"])
        #expect(seen.streamed == ["mine"])
    }

    /// The issue's repro: `p1.transaction { _ in try p1.count(Thing.self) }` on a pool of one.
    @Test func aPoolOfOneServesCallsInsideItsTransaction() throws {
        let pg = try database(connections: 1)
        let result = try finishes(within: 20) {
            try pg.transaction { _ in
                try pg.insert(Thing(name: "a"))
                return try pg.count(Thing.self)
            }
        }
        #expect(result == 1)
        #expect(try storedNames(pg) == ["a"])
    }

    @Test func twoSuchTransactionsShareAPoolOfTwo() throws {
        let pg = try database(connections: 2)
        let started = DispatchGroup()
        let inside = Locked(0)
        let errors = Locked<[String]>([])
        for name in ["x", "y"] {
            started.enter()
            Thread.detachNewThread {
                defer { started.leave() }
                do {
                    try pg.transaction { _ in
                        // Both transactions hold a connection before either calls the database.
                        inside.withLock { $0 += 1 }
                        let deadline = Date().addingTimeInterval(5)
                        while inside.withLock({ $0 }) < 2 && Date() < deadline {
                            Thread.sleep(forTimeInterval: 0.001)
                        }
                        try pg.insert(Thing(name: name))
                        _ = try pg.count(Thing.self)
                    }
                } catch {
                    errors.withLock { $0.append("\(error)") }
                }
            }
        }
        #expect(started.wait(timeout: .now() + 20) == .success)
        #expect(errors.withLock { $0 } == [])
        #expect(try storedNames(pg) == ["x", "y"])
    }

    /// A nested `pg.transaction` updating a row the outer body locked: a savepoint of the outer
    /// transaction, not a second connection waiting for the first's lock.
    @Test func aNestedTransactionIsASavepointOfTheOuterOne() throws {
        let pg = try database(connections: 4)
        var thing = Thing(name: "first")
        try pg.insert(&thing)
        let locked = thing
        try finishes(within: 20) {
            try pg.transaction { tx in
                var outer = locked
                outer.name = "outer"
                try tx.update(outer)
                try pg.transaction { _ in
                    var inner = locked
                    inner.name = "inner"
                    try pg.update(inner)
                }
                // A nested transaction that throws rolls back to its savepoint only.
                #expect(throws: Refusal.self) {
                    try pg.transaction { _ in
                        try pg.insert(Thing(name: "discarded"))
                        throw Refusal()
                    }
                }
                try pg.savepoint("named") { _ in try pg.insert(Thing(name: "kept")) }
            }
        }
        #expect(try storedNames(pg) == ["inner", "kept"])
    }

    @Test func aForEachInsideABodyJoinsItAndSoDoWritesInItsClosure() throws {
        let pg = try database(connections: 1)
        try pg.insert(Thing(name: "source"))
        #expect(throws: Refusal.self) {
            try finishes(within: 20) {
                try pg.transaction { _ in
                    // swift-format-ignore: ReplaceForEachWithForLoop
                    try pg.query(Thing.self).forEach { thing in
                        try pg.insert(Thing(name: thing.name + " copy"))
                    }
                    #expect(try pg.count(Thing.self) == 2)
                    throw Refusal()
                }
            }
        }
        #expect(try storedNames(pg) == ["source"])
    }

    /// Outside a transaction a `forEach` reads in a read-only snapshot; a write in its closure
    /// runs beside it on a connection of its own and commits, as SQLite's writer beside a reader.
    @Test func aWriteInsideAForEachOutsideATransactionCommitsBesideIt() throws {
        let pg = try database(connections: 2)
        try pg.insert(Thing(name: "source"))
        try finishes(within: 20) {
            // swift-format-ignore: ReplaceForEachWithForLoop
            try pg.query(Thing.self).forEach { thing in
                try pg.insert(Thing(name: thing.name + " copy"))
                // Reads in the closure share the forEach's snapshot.
                #expect(try pg.count(Thing.self) == 1)
            }
        }
        #expect(try storedNames(pg) == ["source", "source copy"])
    }

    /// With a pool of one, that write can never have its connection: it says so at once.
    @Test func aCallThatCannotJoinSaysSoInsteadOfWaiting() throws {
        var configuration = PostgresConfiguration()
        configuration.maximumConnections = 1
        let pg = try PostgresTestServer.freshDatabase(configuration: configuration)
        try pg.insert(Thing(name: "source"))
        let error = try finishes(within: 20) { () -> DatabaseError? in
            do {
                // swift-format-ignore: ReplaceForEachWithForLoop
                try pg.query(Thing.self).forEach { _ in try pg.insert(Thing(name: "never")) }
                return nil
            } catch let error as DatabaseError {
                return error
            }
        }
        let refusal = try #require(error)
        #expect(refusal.resultCode == .misuse)
        #expect(refusal.message.contains("maximumConnections"))
        #expect(refusal.message.contains("nothing was run"))
        #expect(try storedNames(pg) == ["source"])
    }

    /// A task started inside a body runs on another thread: it cannot join the transaction, and
    /// with a pool of one it says so at once rather than waiting for the body that waits for it.
    @Test func aTaskStartedInsideABodySaysItCannotJoin() throws {
        var configuration = PostgresConfiguration()
        configuration.maximumConnections = 1
        let pg = try PostgresTestServer.freshDatabase(configuration: configuration)
        let outcome = Locked<Result<Int, any Error>?>(nil)
        try pg.transaction { _ in
            let done = DispatchSemaphore(value: 0)
            Task(executorPreference: DedicatedThreadExecutor.promptTasks) {
                outcome.withLock { $0 = Result { try pg.count(Thing.self) } }
                done.signal()
            }
            #expect(done.wait(timeout: .now() + 15) == .success)
        }
        let result = try #require(outcome.withLock { $0 })
        #expect {
            try result.get()
        } throws: { error in
            (error as? DatabaseError)?.resultCode == .misuse
        }
    }

    @Test func readsInsideAReadShareItsConnection() throws {
        let pg = try database(connections: 1)
        try pg.insert(Thing(name: "a"))
        let count = try finishes(within: 20) {
            try pg.read { _ in try pg.count(Thing.self) + pg.query(Thing.self).fetchAll().count }
        }
        #expect(count == 2)
    }

    @Test func theAsyncTransactionsBodyJoinsItToo() async throws {
        let pg = try database(connections: 1)
        await #expect(throws: Refusal.self) {
            try await pg.transaction { _ in
                try pg.insert(Thing(name: "async, rolled back"))
                #expect(try pg.count(Thing.self) == 1)
                throw Refusal()
            }
        }
        try await pg.write { _ in try pg.insert(Thing(name: "async, kept")) }
        #expect(try storedNames(pg) == ["async, kept"])
    }

    @Test func anObservationsFetchClosureReadsThroughTheDatabase() async throws {
        let pg = try database(connections: 1)
        try await pg.insert(Thing(name: "a"))
        var iterator = pg.observe { _ in try pg.count(Thing.self) }.makeAsyncIterator()
        let first = try await iterator.next()
        #expect(first == 1)
    }

    /// Runs `body` on a thread of its own and waits at most `seconds` for it: a call that would
    /// wait forever fails the test instead of hanging the run.
    @discardableResult
    private func finishes<T: Sendable>(within seconds: Double, _ body: @escaping () throws -> T) throws -> T {
        let done = DispatchSemaphore(value: 0)
        let outcome = Locked<Result<T, any Error>?>(nil)
        let unchecked = UncheckedBody(body)
        Thread.detachNewThread {
            outcome.withLock { $0 = Result { try unchecked.body() } }
            done.signal()
        }
        guard done.wait(timeout: .now() + seconds) == .success else {
            Issue.record("the call did not return within \(seconds) s")
            throw Refusal()
        }
        return try #require(outcome.withLock { $0 }).get()
    }
}

/// A closure handed to the one thread that runs it while the test's thread waits.
private struct UncheckedBody<T>: @unchecked Sendable {
    let body: () throws -> T
    init(_ body: @escaping () throws -> T) { self.body = body }
}

// `BEGIN` travels with the transaction's first statement (issue 45, item 13): a transaction
// whose body sends nothing sends no `BEGIN` and no `COMMIT` at all.
@Suite(.enabled(if: PostgresTestServer.isAvailable, PostgresTestServer.skipMessage), .offCooperativePool)
struct PostgresDeferredBeginTests {
    @Test func aBodyThatSendsNothingBeginsNothing() throws {
        var configuration = PostgresConfiguration()
        configuration.maximumConnections = 1
        let databases = try PostgresTestServer.freshDatabases(count: 2, configuration: configuration)
        let (pg, watcher) = (databases[0], databases[1])
        let pid = try #require(try pg.fetchOne(Int.self, sql: "SELECT pg_backend_pid()"))
        try pg.transaction { _ in }
        try pg.read { _ in }
        let last = try watcher.fetchOne(
            String.self, sql: "SELECT query FROM pg_stat_activity WHERE pid = \(pid)")
        #expect(last == "SELECT pg_backend_pid()")
        // A body that sends statements commits them, or rolls them back, as before.
        try pg.transaction { tx in
            try tx.execute(sql: "CREATE TABLE deferred_begin (x int)")
            try tx.execute(sql: "INSERT INTO deferred_begin VALUES (1)")
        }
        #expect(throws: Refusal.self) {
            try pg.transaction { tx in
                try tx.execute(sql: "INSERT INTO deferred_begin VALUES (2)")
                throw Refusal()
            }
        }
        #expect(try watcher.fetchAll(Int.self, sql: "SELECT x FROM deferred_begin") == [1])
    }
}
