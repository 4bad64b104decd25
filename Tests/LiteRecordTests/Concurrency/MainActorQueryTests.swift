import Foundation
import LiteRecord
import LiteRecordTestSupport
import Testing

/// Every async query form, awaited from the main actor. The test target builds in Swift 6
/// language mode with complete concurrency checking: that this file compiles (without warnings)
/// is half of the test; the values read back are the other half.
@Suite("Queries from the main actor", .offCooperativePool)
struct MainActorQueryTests {
    struct Item: Model, Equatable {
        var id: Int64?
        var name: String
        var level: Int
        var weight: Double?
    }

    struct ItemName: Decodable, Equatable, Sendable {
        var name: String
    }

    struct LevelCount: Decodable, Equatable, Sendable {
        var level: Int
        var items: Int
    }

    @MainActor
    private func seed(_ db: Database) async throws {
        try await db.insert(contentsOf: [
            Item(id: nil, name: "a", level: 1, weight: 1.5),
            Item(id: nil, name: "b", level: 3, weight: nil),
            Item(id: nil, name: "c", level: 4, weight: 2.5),
            Item(id: nil, name: "d", level: 4, weight: 4),
        ])
    }

    @MainActor
    @Test func everyQueryFormAwaitsFromTheMainActor() async throws {
        let db = try Database(.inMemory)
        try await seed(db)
        let rows = try await db.query(Item.self).where { $0.level > 2 }.fetchAll()
        #expect(rows.map(\.name) == ["b", "c", "d"])
        let query = db.query(Item.self).where { $0.level > 2 }.order { $0.name.descending }
        #expect(try await query.fetchOne()?.name == "d")
        #expect(try await query.first()?.name == "d")
        #expect(try await query.count() == 3)
        #expect(try await query.exists())
        #expect(try await query.where { $0.level > 10 }.exists() == false)
        #expect(try await query.sum { $0.level } == 11)
        #expect(try await query.min { $0.level } == 3)
        #expect(try await query.max { $0.level } == 4)
        #expect(try await query.average { $0.level } == 11.0 / 3)
        #expect(
            try await query.select(ItemName.self).fetchAll() == [
                .init(name: "d"), .init(name: "c"), .init(name: "b"),
            ])
        #expect(try await query.select(ItemName.self).fetchOne() == ItemName(name: "d"))
        let grouped = try await db.query(Item.self)
            .group(by: \.level)
            .select(LevelCount.self) { [$0.level.as("level"), $0.rowCount.as("items")] }
            .fetchAll()
        #expect(grouped == [.init(level: 1, items: 1), .init(level: 3, items: 1), .init(level: 4, items: 2)])
        let changed = try await db.query(Item.self).where { $0.level == 4 }.updateAll {
            [$0.level.set(to: 5)]
        }
        #expect(changed == 2)
        #expect(try await db.query(Item.self).where { $0.level == 5 }.count() == 2)
        let deleted = try await db.query(Item.self).where { $0.level == 5 }.deleteAll()
        #expect(deleted == 2)
        #expect(try await db.query(Item.self).fetchAll().map(\.name) == ["a", "b"])
    }

    @MainActor
    @Test func aQueryIsAValueThatCrossesTasks() async throws {
        let db = try Database(.inMemory)
        try await seed(db)
        let query = db.query(Item.self).where { $0.level >= 3 }
        let prompt = DedicatedThreadExecutor.promptTasks
        let fromAnotherTask = try await Task.detached(executorPreference: prompt) { try await query.count() }
            .value
        let fromAnotherThread = try await Task.detached(executorPreference: prompt) {
            try fetchedCount(query)
        }.value
        #expect(fromAnotherTask == 3)
        #expect(fromAnotherThread == 3)
    }
}
