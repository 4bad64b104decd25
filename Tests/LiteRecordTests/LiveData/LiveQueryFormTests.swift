import Foundation
import LiteRecord
import LiteRecordTestSupport
import Testing

/// A team of the `including` form: its players' key points to it.
struct LiveTeam: Model {
    var id: Int64?
    var name: String
    static let schema = Schema<LiveTeam>(table: "live_teams")
}

struct LiveMember: Model {
    var id: Int64?
    var teamID: Int64?
    var name: String
    static let schema = Schema<LiveMember>(table: "live_members").foreignKey(
        \.teamID, references: LiveTeam.self)
}

/// Every form a live query takes stays fresh: projections, aggregates, `including` trees,
/// full-text matches.
@Suite struct LiveQueryFormTests {
    private struct NameOnly: Decodable, Equatable, Sendable {
        var name: String
    }

    @MainActor @Test func aProjectionAndAnAggregate() async throws {
        let db = try Database(.inMemory)
        var ann = LivePlayer(name: "Ann", score: 4)
        try await db.insert(&ann)
        let names = LiveQuery(db, initial: []) { tx in
            try tx.query(LivePlayer.self).order { $0.name }.select(NameOnly.self).fetchAll()
        }
        let best = LiveQuery(db, initial: nil) { tx in try tx.query(LivePlayer.self).max { $0.score } }
        #expect(names.value == [NameOnly(name: "Ann")])
        #expect(best.value == 4)
        var bo = LivePlayer(name: "Bo", score: 9)
        try await db.insert(&bo)
        #expect(await eventually { names.value.count == 2 && best.value == 9 })
    }

    @MainActor @Test func anIncludingTreeFollowsEveryLevel() async throws {
        let db = try Database(.inMemory)
        var reds = LiveTeam(name: "Reds")
        try await db.insert(&reds)
        let teams = LiveQuery(db.query(LiveTeam.self).including(all: LiveMember.self))
        #expect(teams.value.map { $0.0.name } == ["Reds"])
        #expect(teams.value.first?.1.isEmpty == true)
        let changes = ObservedChanges(teams)
        var ann = LiveMember(teamID: reds.id, name: "Ann")
        try await db.insert(&ann)  // a change one level down
        #expect(await eventually { teams.value.first?.1.map(\.name) == ["Ann"] })
        try await db.update(ann)  // equal values: no change
        ann.name = "Anna"
        try await db.update(ann)
        #expect(await eventually { teams.value.first?.1.map(\.name) == ["Anna"] })
        await settle()
        #expect(changes.count == 2)
    }

    @MainActor @Test func aFullTextMatch() async throws {
        let db = try Database(.inMemory)
        var first = SearchArticle(title: "Swift", body: "a swift ORM", section: "a")
        try await db.insert(&first)
        let found = LiveQuery(db.query(SearchArticle.self).matching("orm"))
        #expect(found.value.map(\.title) == ["Swift"])
        var second = SearchArticle(title: "Rust", body: "an orm too", section: "b")
        try await db.insert(&second)
        #expect(await eventually { found.value.count == 2 })
    }
}
