import Foundation
import LiteRecord
import LiteRecordTestSupport
import Testing

// The async API of `ModelDatabase` on every backend: the same awaited calls give
// the same models, keys, counts, aggregates and errors on SQLite and on PostgreSQL. Every
// write is read back with a second query, in raw SQL.

/// The model the async parity checks store.
struct AsyncKettle: Model, Equatable {
    var id: Int64?
    var brand: String
    var litres: Double
    var watts: Int
    static let schema = Schema<AsyncKettle>(table: "async_parity_kettles", unique: [\.brand])
}

/// What the async query operations returned, on one backend.
struct KettleSummary: Equatable {
    var first: String?
    var exists: Bool
    var wattsSum: Int
    var litresMin: Double?
    var brandMax: String?
    var wattsAverage: Double?
}

enum AsyncParityChecks {
    /// `first`, `exists` and the aggregates of the kettles drawing more than `watts`.
    static func kettleSummary(_ db: some ModelDatabase, above watts: Int) async throws -> KettleSummary {
        let query = db.query(AsyncKettle.self).where { $0.watts > watts }
        return KettleSummary(
            first: try await query.order { $0.watts.descending }.first()?.brand,
            exists: try await query.exists(), wattsSum: try await query.sum { $0.watts },
            litresMin: try await query.min { $0.litres }, brandMax: try await query.max { $0.brand },
            wattsAverage: try await query.average { $0.watts })
    }

    static func modelsAndQueries(_ db: some ModelDatabase, _ backend: ParityBackend) async throws {
        try await db.migrate(AsyncKettle.self)
        let empty = try await db.fetchAll(Int64.self, sql: "SELECT count(*) FROM async_parity_kettles")
        #expect(empty == [0], "\(backend.name)")

        var steel = AsyncKettle(id: nil, brand: "Steel", litres: 1.7, watts: 2200)
        try await db.insert(&steel)
        let steelID = try #require(steel.id)
        var batch = try await db.insert(contentsOf: [
            AsyncKettle(id: nil, brand: "Glass", litres: 1.5, watts: 2000),
            AsyncKettle(id: nil, brand: "Travel", litres: 0.5, watts: 500),
        ])
        let chosen = AsyncKettle(id: 10, brand: "Chosen", litres: 1.0, watts: 1000)
        try await db.insert(chosen)
        var copper = AsyncKettle(id: nil, brand: "Copper", litres: 1.2, watts: 1600)
        try await db.save(&copper)  // an insert: the next key after the one chosen
        #expect(copper.id == 11, "\(backend.name)")
        let ids = try await db.fetchAll(Int64.self, sql: "SELECT id FROM async_parity_kettles ORDER BY id")
        #expect(ids == [steelID] + batch.compactMap(\.id) + [10, 11], "\(backend.name)")

        steel.watts = 3000
        try await db.update(steel)
        batch[0].litres = 1.8
        try await db.save(&batch[0])  // an update: the row has the key
        let watts = try await db.fetchAll(
            Int64.self, sql: "SELECT watts FROM async_parity_kettles ORDER BY id")
        #expect(watts == [3000, 2000, 500, 1000, 1600], "\(backend.name)")
        let litres = try await db.fetchAll(
            Int64.self,
            sql:
                "SELECT count(*) FROM async_parity_kettles WHERE litres = \(1.8) AND brand = 'Glass'")
        #expect(litres == [1], "\(backend.name)")

        let found = try await db.find(AsyncKettle.self, id: 11)
        let missing = try await db.find(AsyncKettle.self, id: 999)
        #expect(found == copper && missing == nil, "\(backend.name)")
        let exists = try await db.exists(AsyncKettle.self, id: steelID)
        let existsNot = try await db.exists(AsyncKettle.self, id: 999)
        #expect(exists && !existsNot, "\(backend.name)")
        let all = try await db.fetchAll(AsyncKettle.self)
        #expect(all == [steel, batch[0], batch[1], chosen, copper], "\(backend.name)")
        let count = try await db.count(AsyncKettle.self)
        #expect(count == 5, "\(backend.name)")

        // The same errors, and nothing written by them.
        await #expect("\(backend.name)") {
            try await db.insert(AsyncKettle(id: nil, brand: "Steel", litres: 2, watts: 1))
        } throws: { error in
            (error as? DatabaseError)?.resultCode == .constraintUnique
        }
        await #expect("\(backend.name)") {
            try await db.update(AsyncKettle(id: 999, brand: "Ghost", litres: 1, watts: 1))
        } throws: { error in
            (error as? PersistenceError)?.isRowNotFound == true
        }
        let stillFive = try await db.count(AsyncKettle.self)
        #expect(stillFive == 5, "\(backend.name)")

        let strong = try await kettleSummary(db, above: 1500)
        #expect(
            strong
                == KettleSummary(
                    first: "Steel", exists: true, wattsSum: 6600, litresMin: 1.2, brandMax: "Steel",
                    wattsAverage: 2200),
            "\(backend.name)")
        let none = try await kettleSummary(db, above: 9000)
        #expect(
            none
                == KettleSummary(
                    first: nil, exists: false, wattsSum: 0, litresMin: nil, brandMax: nil, wattsAverage: nil),
            "\(backend.name)")

        let boosted = try await db.query(AsyncKettle.self).where { $0.watts > 1500 }
            .updateAll { [$0.watts.set(to: $0.watts + 5)] }
        #expect(boosted == 3, "\(backend.name)")
        let boostedWatts = try await db.fetchAll(
            Int64.self, sql: "SELECT watts FROM async_parity_kettles ORDER BY id")
        #expect(boostedWatts == [3005, 2005, 500, 1000, 1605], "\(backend.name)")
        let removed = try await db.query(AsyncKettle.self).where { $0.litres >= 1.7 }.deleteAll()
        #expect(removed == 2, "\(backend.name)")

        let deleted = try await db.delete(batch[1])
        let deletedByID = try await db.delete(AsyncKettle.self, id: 10)
        let deletedAgain = try await db.delete(AsyncKettle.self, id: 10)
        #expect(deleted && deletedByID && !deletedAgain, "\(backend.name)")
        let left = try await db.fetchAll(Int64.self, sql: "SELECT id FROM async_parity_kettles ORDER BY id")
        #expect(left == [11], "\(backend.name)")
    }

    /// Empty results fetched by tasks running at once, between fetches of many rows with the
    /// same query: each fetch gives exactly its rows.
    ///
    /// Under the thread sanitizer this also checks that no fetch writes to memory that other
    /// threads read: `Array(unsafeUninitializedCapacity: 0)` stores its count in the standard
    /// library's one shared empty-array storage, and an empty PostgreSQL result built that way
    /// raced with every thread reading an empty array.
    static func emptyResultsFromTasksAtOnce(_ db: some ModelDatabase, _ backend: ParityBackend) async throws {
        try await db.migrate(AsyncKettle.self)
        let kettleCount = 300
        _ = try await db.insert(
            contentsOf: (1...kettleCount).map { AsyncKettle(id: nil, brand: "K\($0)", litres: 1, watts: $0) })
        let fetched = try await withThrowingTaskGroup(of: [Int].self) { group in
            for _ in 0..<4 {
                group.addTask {
                    var counts: [Int] = []
                    for round in 0..<40 {
                        // The same SQL each time: after all the rows, the next fetch of this
                        // query expects as many, and gets none.
                        let minimum = round.isMultiple(of: 2) ? 0 : kettleCount
                        counts.append(
                            try await db.query(AsyncKettle.self).where { $0.watts > minimum }.fetchAll().count
                        )
                        counts.append(
                            try await db.fetchAll(
                                AsyncKettle.self,
                                sql: "SELECT * FROM async_parity_kettles WHERE watts > \(minimum)"
                            ).count)
                    }
                    return counts
                }
            }
            var all: [[Int]] = []
            for try await counts in group { all.append(counts) }
            return all
        }
        let expected = (0..<40).flatMap { round in
            Array(repeating: round.isMultiple(of: 2) ? kettleCount : 0, count: 2)
        }
        #expect(fetched == Array(repeating: expected, count: 4), "\(backend.name)")
    }
}

@Suite(.offCooperativePool) struct SQLiteAsyncParityTests {
    @Test func modelsAndQueries() async throws {
        try await ParityBackend.sqliteMemory.runAsync { try await AsyncParityChecks.modelsAndQueries($0, $1) }
    }
    @Test func emptyResultsFromTasksAtOnce() async throws {
        try await ParityBackend.sqliteMemory.runAsync {
            try await AsyncParityChecks.emptyResultsFromTasksAtOnce($0, $1)
        }
    }
}

@Suite(.offCooperativePool) struct SQLiteFileAsyncParityTests {
    @Test func modelsAndQueries() async throws {
        try await ParityBackend.sqliteFile.runAsync { try await AsyncParityChecks.modelsAndQueries($0, $1) }
    }
    @Test func emptyResultsFromTasksAtOnce() async throws {
        try await ParityBackend.sqliteFile.runAsync {
            try await AsyncParityChecks.emptyResultsFromTasksAtOnce($0, $1)
        }
    }
}

@Suite(.enabled(if: PostgresTestServer.isAvailable, PostgresTestServer.skipMessage), .offCooperativePool)
struct PostgresAsyncParityTests {
    @Test func modelsAndQueries() async throws {
        try await ParityBackend.postgres.runAsync { try await AsyncParityChecks.modelsAndQueries($0, $1) }
    }
    @Test func emptyResultsFromTasksAtOnce() async throws {
        try await ParityBackend.postgres.runAsync {
            try await AsyncParityChecks.emptyResultsFromTasksAtOnce($0, $1)
        }
    }
}
