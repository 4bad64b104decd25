import Foundation
import LiteRecord
import Testing

// The async API on both backends (Support/AsyncTestBackend.swift): the same awaited calls give
// the same models, keys, counts, aggregates and errors on SQLite and on PostgreSQL. Every
// write is read back with a second query, in raw SQL.

enum AsyncParityChecks {
    static func modelsAndQueries(_ backend: some AsyncTestBackend) async throws {
        try await backend.migrate(AsyncKettle.self)
        let empty = try await backend.integers("SELECT count(*) FROM async_parity_kettles")
        #expect(empty == [0], "\(backend.name)")

        var steel = AsyncKettle(id: nil, brand: "Steel", litres: 1.7, watts: 2200)
        try await backend.insert(&steel)
        let steelID = try #require(steel.id)
        var batch = try await backend.insert(contentsOf: [
            AsyncKettle(id: nil, brand: "Glass", litres: 1.5, watts: 2000),
            AsyncKettle(id: nil, brand: "Travel", litres: 0.5, watts: 500),
        ])
        let chosen = AsyncKettle(id: 10, brand: "Chosen", litres: 1.0, watts: 1000)
        try await backend.insert(chosen)
        var copper = AsyncKettle(id: nil, brand: "Copper", litres: 1.2, watts: 1600)
        try await backend.save(&copper)  // an insert: the next key after the one chosen
        #expect(copper.id == 11, "\(backend.name)")
        let ids = try await backend.integers("SELECT id FROM async_parity_kettles ORDER BY id")
        #expect(ids == [steelID] + batch.compactMap(\.id) + [10, 11], "\(backend.name)")

        steel.watts = 3000
        try await backend.update(steel)
        batch[0].litres = 1.8
        try await backend.save(&batch[0])  // an update: the row has the key
        let watts = try await backend.integers("SELECT watts FROM async_parity_kettles ORDER BY id")
        #expect(watts == [3000, 2000, 500, 1000, 1600], "\(backend.name)")
        let litres = try await backend.integers(
            "SELECT count(*) FROM async_parity_kettles WHERE litres = \(1.8) AND brand = 'Glass'")
        #expect(litres == [1], "\(backend.name)")

        let found = try await backend.find(AsyncKettle.self, id: 11)
        let missing = try await backend.find(AsyncKettle.self, id: 999)
        #expect(found == copper && missing == nil, "\(backend.name)")
        let exists = try await backend.exists(AsyncKettle.self, id: steelID)
        let existsNot = try await backend.exists(AsyncKettle.self, id: 999)
        #expect(exists && !existsNot, "\(backend.name)")
        let all = try await backend.fetchAll(AsyncKettle.self)
        #expect(all == [steel, batch[0], batch[1], chosen, copper], "\(backend.name)")
        let count = try await backend.count(AsyncKettle.self)
        #expect(count == 5, "\(backend.name)")

        // The same errors, and nothing written by them.
        await #expect("\(backend.name)") {
            try await backend.insert(AsyncKettle(id: nil, brand: "Steel", litres: 2, watts: 1))
        } throws: { error in
            (error as? DatabaseError)?.resultCode == .constraintUnique
        }
        await #expect("\(backend.name)") {
            try await backend.update(AsyncKettle(id: 999, brand: "Ghost", litres: 1, watts: 1))
        } throws: { error in
            (error as? PersistenceError)?.isRowNotFound == true
        }
        let stillFive = try await backend.count(AsyncKettle.self)
        #expect(stillFive == 5, "\(backend.name)")

        let strong = try await backend.kettleSummary(above: 1500)
        #expect(
            strong
                == KettleSummary(
                    first: "Steel", exists: true, wattsSum: 6600, litresMin: 1.2, brandMax: "Steel",
                    wattsAverage: 2200),
            "\(backend.name)")
        let none = try await backend.kettleSummary(above: 9000)
        #expect(
            none
                == KettleSummary(
                    first: nil, exists: false, wattsSum: 0, litresMin: nil, brandMax: nil, wattsAverage: nil),
            "\(backend.name)")

        let boosted = try await backend.boostKettles(above: 1500, by: 5)
        #expect(boosted == 3, "\(backend.name)")
        let boostedWatts = try await backend.integers("SELECT watts FROM async_parity_kettles ORDER BY id")
        #expect(boostedWatts == [3005, 2005, 500, 1000, 1605], "\(backend.name)")
        let removed = try await backend.deleteKettles(holdingAtLeast: 1.7)
        #expect(removed == 2, "\(backend.name)")

        let deleted = try await backend.delete(batch[1])
        let deletedByID = try await backend.delete(AsyncKettle.self, id: 10)
        let deletedAgain = try await backend.delete(AsyncKettle.self, id: 10)
        #expect(deleted && deletedByID && !deletedAgain, "\(backend.name)")
        let left = try await backend.integers("SELECT id FROM async_parity_kettles ORDER BY id")
        #expect(left == [11], "\(backend.name)")
    }
}

@Suite struct SQLiteAsyncParityTests {
    @Test func modelsAndQueries() async throws {
        try await AsyncParityChecks.modelsAndQueries(SQLiteAsyncBackend(database: Database(.temporary)))
    }
}

@Suite(.enabled(if: PostgresTestServer.isAvailable, PostgresTestServer.skipMessage))
struct PostgresAsyncParityTests {
    @Test func modelsAndQueries() async throws {
        try await AsyncParityChecks.modelsAndQueries(
            PostgresAsyncBackend(database: PostgresTestServer.freshDatabase()))
    }
}
