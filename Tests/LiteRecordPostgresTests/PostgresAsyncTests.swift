import Foundation
import LiteRecord
import LiteRecordPostgres
import LiteRecordTestSupport
import Testing

// The async forms of PostgresDatabase's raw SQL and model operations and of PostgresQuery's
// results, aggregates and changes, awaited from the main actor in Swift 6 mode: each result is
// checked with a second query, errors keep their kind, and cancelling an async write cancels
// its statement on the server and leaves nothing behind.

private struct Kettle: Model, Equatable {
    var id: Int64?
    var brand: String
    var litres: Double
    var watts: Int
    static let schema = Schema<Kettle>(table: "async_kettles")
}

/// A model whose key the caller chooses.
private struct Mug: Model, Equatable {
    var id: Int64
    var colour: String
    static let schema = Schema<Mug>(table: "async_mugs")
}

/// A kettle that notes the thread each encoding runs on: an async call must encode its models
/// on a thread of its own, not on its caller's (the main actor's, for an app).
private struct NotingKettle: Model, Equatable {
    /// The thread of each encoding, in order.
    static let encodingThreads = Locked<[Int]>([])

    var id: Int64?
    var brand: String
    static let schema = Schema<NotingKettle>(table: "async_noting_kettles")

    init(id: Int64? = nil, brand: String) {
        self.id = id
        self.brand = brand
    }

    private enum CodingKeys: String, CodingKey { case id, brand }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decodeIfPresent(Int64.self, forKey: .id)
        brand = try container.decode(String.self, forKey: .brand)
    }

    func encode(to encoder: any Encoder) throws {
        let thread = currentThread()
        Self.encodingThreads.withLock { $0.append(thread) }
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(id, forKey: .id)
        try container.encode(brand, forKey: .brand)
    }
}

/// The thread running the caller (`Thread.current`, which async code cannot read itself).
/// A number for the current thread, never given to another: the address of a thread's object
/// (`ObjectIdentifier`) is reused once that thread ends, and under the thread sanitizer the
/// caller's thread once took the address of the batch's finished thread.
private func currentThread() -> Int {
    let key = "LiteRecordTests.threadNumber"
    let dictionary = Thread.current.threadDictionary
    if let number = dictionary[key] as? Int { return number }
    let number = threadNumbers.withLock { count -> Int in
        count += 1
        return count
    }
    dictionary[key] = number
    return number
}

/// The last number ``currentThread()`` gave.
private let threadNumbers = Locked<Int>(0)

/// `insert(contentsOf:)` as a data layer written over `some ModelDatabase` calls it.
private func insertThroughProtocol<M: Model>(_ models: [M], into db: some ModelDatabase) async throws -> [M] {
    try await db.insert(contentsOf: models)
}

@Suite(.enabled(if: PostgresTestServer.isAvailable, PostgresTestServer.skipMessage), .offCooperativePool)
struct PostgresAsyncTests {
    @MainActor @Test func rawSQLFromTheMainActor() async throws {
        let pg = try PostgresTestServer.freshDatabase()
        try await pg.execute(sql: "CREATE TABLE shelf (slot integer PRIMARY KEY, item text NOT NULL)")
        let item = "teapot"
        let inserted = try await pg.execute(
            sql: "INSERT INTO shelf VALUES (1, \(item)), (2, 'cup'), (3, 'jug')")
        #expect(inserted == 3)
        let changed = try await pg.execute(sql: "UPDATE shelf SET item = upper(item) WHERE slot >= \(2)")
        #expect(changed == 2)

        let rows = try await pg.fetchRows(sql: "SELECT slot, item FROM shelf ORDER BY slot")
        #expect(rows.count == 3)
        #expect(try rows.first?.value(named: "item") == .text("teapot"))
        #expect(try rows.last?.value(named: "slot") == .integer(3))
        let items = try await pg.fetchAll(String.self, sql: "SELECT item FROM shelf ORDER BY slot")
        #expect(items == ["teapot", "CUP", "JUG"])
        let second = try await pg.fetchOne(String.self, sql: "SELECT item FROM shelf WHERE slot = \(2)")
        #expect(second == "CUP")
        let none = try await pg.fetchOne(String.self, sql: "SELECT item FROM shelf WHERE slot = \(9)")
        #expect(none == nil)
        struct ShelfItem: Decodable, Equatable, Sendable {
            var slot: Int
            var item: String
        }
        let shelf = try await pg.fetchAll(ShelfItem.self, fromTable: "shelf").sorted { $0.slot < $1.slot }
        #expect(shelf.map(\.item) == ["teapot", "CUP", "JUG"])

        // The same errors as the synchronous forms: a duplicate key, SQL that does not parse.
        await #expect {
            try await pg.execute(sql: "INSERT INTO shelf VALUES (1, 'again')")
        } throws: { error in
            (error as? DatabaseError)?.resultCode == .constraintPrimaryKey
        }
        await #expect {
            _ = try await pg.fetchRows(sql: "SELEC 1")
        } throws: { error in
            (error as? DatabaseError)?.resultCode == .error
        }
        let count = try await pg.fetchOne(Int.self, sql: "SELECT count(*) FROM shelf")
        #expect(count == 3)
    }

    @MainActor @Test func modelsFromTheMainActor() async throws {
        let pg = try PostgresTestServer.freshDatabase()
        try await pg.migrate(Kettle.self)
        let columns = try await pg.fetchAll(
            String.self,
            sql: """
                SELECT column_name FROM information_schema.columns
                WHERE table_schema = current_schema() AND table_name = 'async_kettles' ORDER BY column_name
                """)
        #expect(columns == ["brand", "id", "litres", "watts"])

        var steel = Kettle(brand: "Steel", litres: 1.7, watts: 2200)
        try await pg.insert(&steel)
        let steelID = try #require(steel.id)
        var batch = try await pg.insert(contentsOf: [
            Kettle(brand: "Glass", litres: 1.5, watts: 2000),
            Kettle(brand: "Travel", litres: 0.5, watts: 800),
        ])
        #expect(batch.allSatisfy { $0.id != nil })
        #expect(batch.map(\.brand) == ["Glass", "Travel"])
        let stored = try await pg.fetchAll(
            String.self, sql: "SELECT brand FROM async_kettles ORDER BY id")
        #expect(stored == ["Steel", "Glass", "Travel"])

        steel.watts = 3000
        try await pg.update(steel)
        let watts = try await pg.fetchOne(
            Int.self, sql: "SELECT watts FROM async_kettles WHERE id = \(steelID)")
        #expect(watts == 3000)

        batch[0].litres = 1.8
        try await pg.save(&batch[0])  // an update: the row has the key
        var fresh = Kettle(brand: "Copper", litres: 1.2, watts: 1800)
        try await pg.save(&fresh)  // an insert: the generated key is set
        let freshID = try #require(fresh.id)
        let litres = try await pg.fetchAll(Double.self, sql: "SELECT litres FROM async_kettles ORDER BY id")
        #expect(litres == [1.7, 1.8, 0.5, 1.2])

        let found = try await pg.find(Kettle.self, id: freshID)
        #expect(found == fresh)
        let missing = try await pg.find(Kettle.self, id: 9999)
        #expect(missing == nil)
        let exists = try await pg.exists(Kettle.self, id: steelID)
        let existsNot = try await pg.exists(Kettle.self, id: 9999)
        #expect(exists && !existsNot)
        let all = try await pg.fetchAll(Kettle.self)
        #expect(all == [steel, batch[0], batch[1], fresh])
        let count = try await pg.count(Kettle.self)
        #expect(count == 4)

        let deleted = try await pg.delete(steel)
        let deletedByID = try await pg.delete(Kettle.self, id: freshID)
        let deletedAgain = try await pg.delete(Kettle.self, id: freshID)
        #expect(deleted && deletedByID && !deletedAgain)
        let left = try await pg.fetchAll(Int64.self, sql: "SELECT id FROM async_kettles ORDER BY id")
        #expect(left == batch.compactMap(\.id))

        // A key the caller chose; its duplicate fails as the synchronous insert does.
        try await pg.insert(Mug(id: 7, colour: "blue"))
        let colour = try await pg.fetchOne(String.self, sql: "SELECT colour FROM async_mugs WHERE id = 7")
        #expect(colour == "blue")
        await #expect {
            try await pg.insert(Mug(id: 7, colour: "red"))
        } throws: { error in
            (error as? DatabaseError)?.resultCode == .constraintPrimaryKey
        }
        await #expect {
            try await pg.update(Mug(id: 8, colour: "green"))
        } throws: { error in
            (error as? PersistenceError)?.isRowNotFound == true
        }
        let mugs = try await pg.fetchAll(String.self, sql: "SELECT colour FROM async_mugs ORDER BY id")
        #expect(mugs == ["blue"])
    }

    @MainActor @Test func queryResultsAggregatesAndChangesFromTheMainActor() async throws {
        let pg = try PostgresTestServer.freshDatabase()
        _ = try await pg.insert(contentsOf: [
            Kettle(brand: "A", litres: 1.0, watts: 1000), Kettle(brand: "B", litres: 1.5, watts: 2000),
            Kettle(brand: "C", litres: 2.0, watts: 3000), Kettle(brand: "D", litres: 0.5, watts: 500),
        ])
        let minimum = 900
        let strong = pg.query(Kettle.self).where { $0.watts > minimum }
        let first = try await strong.order { $0.watts.descending }.first()
        #expect(first?.brand == "C")
        let noneFirst = try await pg.query(Kettle.self).where { $0.watts > 9000 }.first()
        #expect(noneFirst == nil)
        let exists = try await strong.exists()
        let existsNot = try await pg.query(Kettle.self).where { $0.brand == "Z" }.exists()
        #expect(exists && !existsNot)

        let sum = try await strong.sum { $0.watts }
        #expect(sum == 6000)
        let emptySum = try await pg.query(Kettle.self).where { $0.brand == "Z" }.sum { $0.watts }
        #expect(emptySum == 0)
        let smallest = try await strong.min { $0.litres }
        let largest = try await pg.query(Kettle.self).max { $0.brand }
        #expect(smallest == 1.0 && largest == "D")
        let average = try await strong.average { $0.watts }
        #expect(average == 2000)
        let noAverage = try await pg.query(Kettle.self).where { $0.brand == "Z" }.average { $0.watts }
        #expect(noAverage == nil)

        let bonus = 5
        let updated = try await strong.updateAll { [$0.watts.set(to: $0.watts + bonus)] }
        #expect(updated == 3)
        let watts = try await pg.fetchAll(Int.self, sql: "SELECT watts FROM async_kettles ORDER BY brand")
        #expect(watts == [1005, 2005, 3005, 500])
        let removed = try await pg.query(Kettle.self).where { $0.litres >= 1.5 }.deleteAll()
        #expect(removed == 2)
        let brands = try await pg.fetchAll(String.self, sql: "SELECT brand FROM async_kettles ORDER BY brand")
        #expect(brands == ["A", "D"])
    }

    @Test func cancellingAnAsyncInsertCancelsItOnTheServerAndStoresNothing() async throws {
        let pg = try PostgresTestServer.freshDatabase()
        try await pg.migrate(Kettle.self)
        // Another transaction holds the table, so that the insert waits on the server until it
        // is cancelled.
        let holder = Task(executorPreference: DedicatedThreadExecutor.promptTasks) {
            try await pg.transaction { tx in
                try tx.execute(sql: "LOCK TABLE async_kettles IN ACCESS EXCLUSIVE MODE")
                try tx.execute(sql: "SELECT pg_sleep(120) -- the kettle holder")
            }
        }
        // The holder's sleep runs on the server, so that cancelling the holder below always
        // interrupts a statement: on a loaded machine its thread could otherwise still be
        // between its two statements, and the cancellation would then (rightly) stop it with
        // CancellationError before the second one.
        try await waitUntil(
            pg,
            """
            SELECT count(*) FROM pg_stat_activity
            WHERE state = 'active' AND query LIKE '%the kettle holder%' AND pid <> pg_backend_pid()
            """)
        let insert = Task(executorPreference: DedicatedThreadExecutor.promptTasks) {
            var kettle = Kettle(brand: "Never", litres: 1, watts: 1)
            try await pg.insert(&kettle)
            return kettle.id
        }
        // The backend waiting for the table's lock must be running the insert's statement. With
        // a lock wait alone as the check, the insert twice threw `CancellationError` under the
        // load of the full parallel run, which only a cancel before its statement began gives.
        let waiting: SQL = """
            SELECT count(*) FROM pg_locks AS l JOIN pg_stat_activity AS a ON a.pid = l.pid
            WHERE l.relation = 'async_kettles'::regclass AND NOT l.granted AND a.query LIKE 'INSERT INTO%'
            """
        try await waitUntil(pg, waiting)
        insert.cancel()
        await #expect {
            _ = try await insert.value
        } throws: { error in
            (error as? DatabaseError)?.resultCode == .interrupt
        }
        holder.cancel()
        await #expect {
            try await holder.value
        } throws: { error in
            (error as? DatabaseError)?.resultCode == .interrupt
        }
        let rows = try await pg.fetchOne(Int.self, sql: "SELECT count(*) FROM async_kettles")
        #expect(rows == 0)
        // The connections went back to the pool in working order.
        var kettle = Kettle(brand: "Later", litres: 1, watts: 1)
        try await pg.insert(&kettle)
        let brands = try await pg.fetchAll(String.self, sql: "SELECT brand FROM async_kettles")
        #expect(brands == ["Later"])
    }

    @MainActor @Test func asyncSavepointCommitsOrRollsBack() async throws {
        let pg = try PostgresTestServer.freshDatabase()
        try await pg.migrate(Kettle.self)
        let id = try await pg.savepoint("first") { tx in
            var kettle = Kettle(brand: "Kept", litres: 1, watts: 1)
            try tx.insert(&kettle)
            try tx.savepoint { inner in
                try inner.insert(Kettle(brand: "Kept too", litres: 2, watts: 2))
            }
            return kettle.id
        }
        #expect(id != nil)
        await #expect(throws: DatabaseError.self) {
            try await pg.savepoint { tx in
                try tx.insert(Kettle(brand: "Gone", litres: 1, watts: 1))
                try tx.execute(sql: "SELEC 1")
            }
        }
        let brands = try await pg.fetchAll(String.self, sql: "SELECT brand FROM async_kettles ORDER BY brand")
        #expect(brands == ["Kept", "Kept too"])
    }

    @Test func aCancelledTaskWritesNothing() async throws {
        let pg = try PostgresTestServer.freshDatabase()
        try await pg.migrate(Kettle.self)
        let task = Task(executorPreference: DedicatedThreadExecutor.promptTasks) {
            withUnsafeCurrentTask { $0?.cancel() }
            try await pg.insert(Kettle(brand: "Never", litres: 1, watts: 1))
        }
        await #expect(throws: CancellationError.self) { try await task.value }
        let count = try await pg.count(Kettle.self)
        #expect(count == 0)
    }

    // `try await pg.insert(contentsOf:)` resolved to the synchronous overload (the one that
    // `PostgresDatabase` declares itself), which also served as the protocol's async
    // requirement: a batch, a COPY of 100,000 rows included, ran on the caller's thread (the main
    // actor, 2 s with nothing else running there) and ignored the task's cancellation.
    @MainActor @Test func aBatchInsertAwaitedOnTheMainActorRunsOffIt() async throws {
        let pg = try PostgresTestServer.freshDatabase()
        try await pg.migrate(NotingKettle.self)
        NotingKettle.encodingThreads.withLock { $0.removeAll() }
        // 64 models: the COPY path; 2: the INSERT path. A synchronous call encodes them on the
        // thread that makes it, the one running this line.
        let caller = currentThread()
        let copied = try await pg.insert(contentsOf: (0..<64).map { NotingKettle(brand: "copied \($0)") })
        let callerAgain = currentThread()
        let inserted = try await insertThroughProtocol(
            [NotingKettle(brand: "inserted 0"), NotingKettle(brand: "inserted 1")], into: pg)
        let threads = NotingKettle.encodingThreads.withLock { $0 }
        #expect(threads.count >= 66)
        #expect(!threads.contains(caller))
        #expect(!threads.contains(callerAgain))
        let stored = try await pg.query(NotingKettle.self).order { $0.id.ascending }.fetchAll()
        #expect(stored == copied + inserted)
    }

    @Test func aCancelledTaskInsertsNoBatch() async throws {
        let pg = try PostgresTestServer.freshDatabase()
        try await pg.migrate(Kettle.self)
        for size in [2, 64] {
            let kettles = (0..<size).map { Kettle(brand: "Never \($0)", litres: 1, watts: $0) }
            let direct = Task(executorPreference: DedicatedThreadExecutor.promptTasks) {
                withUnsafeCurrentTask { $0?.cancel() }
                return try await pg.insert(contentsOf: kettles)
            }
            await #expect(throws: CancellationError.self) { try await direct.value }
            let throughProtocol = Task(executorPreference: DedicatedThreadExecutor.promptTasks) {
                withUnsafeCurrentTask { $0?.cancel() }
                return try await insertThroughProtocol(kettles, into: pg)
            }
            await #expect(throws: CancellationError.self) { try await throughProtocol.value }
        }
        let count = try await pg.count(Kettle.self)
        #expect(count == 0)
    }
}

/// Polls a count until it is positive: what another connection holds or waits for on the server
/// (`'async_kettles'::regclass` is this test's table, in its own schema).
private func waitUntil(_ pg: PostgresDatabase, _ sql: SQL) async throws {
    for _ in 0..<400 {
        if try await pg.fetchOne(Int.self, sql: sql) ?? 0 > 0 { return }
        try await Task.sleep(for: .milliseconds(25))
    }
    Issue.record("timed out waiting for: \(sql)")
}
