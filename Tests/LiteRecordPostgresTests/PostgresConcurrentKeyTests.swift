import Foundation
import LiteRecord
import LiteRecordPostgres
import LiteRecordTestSupport
import Testing

// Keys under concurrency on PostgreSQL behave as on SQLite (issue 45, items 2 and 3): a key the
// caller chose never moves the key sequence backwards, so later plain inserts never collide with
// keys handed out meanwhile; and `save` of a new UUID, Date or Decimal key is atomic, so
// concurrent saves of one key give one row and no error.

private struct Entry: Model, Equatable {
    var id: Int64?
    var source: String
    static let schema = Schema<Entry>(table: "concurrent_key_entries")
}

private struct Tagged: Model, Equatable {
    var id: UUID
    var n: Int
    static let schema = Schema<Tagged>(table: "concurrent_key_uuids")
}

private struct Dated: Model, Equatable {
    var id: Date
    var n: Int
    static let schema = Schema<Dated>(table: "concurrent_key_dates")
}

private struct Priced: Model, Equatable {
    var id: Decimal
    var n: Int
    static let schema = Schema<Priced>(table: "concurrent_key_decimals")
}

@Suite(.enabled(if: PostgresTestServer.isAvailable, PostgresTestServer.skipMessage), .offCooperativePool)
struct PostgresConcurrentKeyTests {
    /// The race: 4 threads insert keys they chose while 4 insert with generated keys,
    /// 45 each, every insert in a transaction that stays open a moment. The chosen keys count
    /// down from far above the generated ones, so no two keys can be equal unless the
    /// sequence moved backwards.
    @Test func chosenKeysNeverMoveTheSequenceBackwards() throws {
        var configuration = PostgresConfiguration()
        configuration.maximumConnections = 8
        let pg = try PostgresTestServer.freshDatabase(configuration: configuration)
        try pg.migrate(Entry.self)
        let perThread = 45
        let errors = Locked<[String]>([])
        let group = DispatchGroup()
        for thread in 0..<8 {
            group.enter()
            Thread.detachNewThread {
                defer { group.leave() }
                for index in 0..<perThread {
                    do {
                        try pg.transaction { tx in
                            if thread < 4 {
                                let key = Int64(10_000_000 - thread * 1_000 - index)
                                try tx.insert(Entry(id: key, source: "chosen"))
                            } else {
                                try tx.insert(Entry(source: "generated"))
                            }
                            Thread.sleep(forTimeInterval: 0.001)
                        }
                    } catch {
                        errors.withLock { $0.append("\(error)") }
                    }
                }
            }
        }
        #expect(group.wait(timeout: .now() + 120) == .success)
        #expect(errors.withLock { $0 } == [])
        #expect(try pg.count(Entry.self) == 8 * perThread)
        // A plain insert afterwards takes a key above every key stored.
        var last = Entry(source: "last")
        try pg.insert(&last)
        let largest = try pg.fetchOne(
            Int64.self, sql: "SELECT max(id) FROM concurrent_key_entries WHERE id <> \(last.id)")
        #expect(try #require(last.id) > (try #require(largest)))
    }

    /// A key chosen below the sequence's last value leaves the sequence where it was.
    @Test func aChosenKeyBelowTheSequenceLeavesItAlone() throws {
        let pg = try PostgresTestServer.freshDatabase()
        for _ in 0..<5 { try pg.insert(Entry(source: "generated")) }
        try pg.insert(Entry(id: 2_000, source: "chosen high"))
        try pg.delete(Entry.self, id: 2_000)
        // The row with the largest key is gone: the next key still follows 2,000.
        try pg.insert(Entry(id: 100, source: "chosen low"))
        var next = Entry(source: "generated")
        try pg.insert(&next)
        #expect(next.id == 2_001)
    }

    /// 16 concurrent saves of one new key, for each key type that is found by value.
    @Test func concurrentSavesOfOneNewValueFormKeyGiveOneRow() throws {
        var configuration = PostgresConfiguration()
        configuration.maximumConnections = 8
        let pg = try PostgresTestServer.freshDatabase(configuration: configuration)
        let uuid = UUID()
        let day = Date(timeIntervalSince1970: 1_704_164_645.5)
        let price = try #require(Decimal(string: "19.99"))
        try saveConcurrently(on: pg) { n in
            var row = Tagged(id: uuid, n: n)
            try pg.save(&row)
        }
        try saveConcurrently(on: pg) { n in
            var row = Dated(id: day, n: n)
            try pg.save(&row)
        }
        try saveConcurrently(on: pg) { n in
            var row = Priced(id: price, n: n)
            try pg.save(&row)
        }
        #expect(try pg.count(Tagged.self) == 1)
        #expect(try pg.count(Dated.self) == 1)
        #expect(try pg.count(Priced.self) == 1)
        #expect(try (0..<16).contains(try #require(try pg.find(Tagged.self, id: uuid)).n))
        #expect(try (0..<16).contains(try #require(try pg.find(Dated.self, id: day)).n))
        #expect(try (0..<16).contains(try #require(try pg.find(Priced.self, id: price)).n))
    }

    /// A row another tool keyed in lower case is still updated by `save`, not duplicated.
    @Test func saveStillFindsAKeyStoredInAnotherForm() throws {
        let pg = try PostgresTestServer.freshDatabase()
        try pg.migrate(Tagged.self)
        let uuid = UUID()
        try pg.execute(
            sql: "INSERT INTO concurrent_key_uuids (id, n) VALUES (\(uuid.uuidString.lowercased()), \(1))")
        var row = Tagged(id: uuid, n: 2)
        try pg.save(&row)
        #expect(try pg.fetchAll(Int.self, sql: "SELECT n FROM concurrent_key_uuids") == [2])
    }

    /// Runs `save` 16 times at once, from 16 threads, and expects every call to succeed.
    private func saveConcurrently(on pg: PostgresDatabase, _ save: @escaping @Sendable (Int) throws -> Void)
        throws
    {
        let errors = Locked<[String]>([])
        let group = DispatchGroup()
        let start = DispatchSemaphore(value: 0)
        for n in 0..<16 {
            group.enter()
            Thread.detachNewThread {
                defer { group.leave() }
                start.wait()
                do { try save(n) } catch { errors.withLock { $0.append("\(error)") } }
            }
        }
        for _ in 0..<16 { start.signal() }
        #expect(group.wait(timeout: .now() + 60) == .success)
        #expect(errors.withLock { $0 } == [])
    }
}
