import Foundation
import LiteRecord
import Testing

private struct GroupedPlayer: Model, Equatable {
    var id: Int64?
    var team: String
    var score: Int

    static let schema = Schema<GroupedPlayer>(table: "grouped_players")
}

/// Ten players in six teams.
private func groupedFixture() throws -> Database {
    let db = try Database(.inMemory)
    let teams = ["a", "a", "a", "a", "a", "b", "c", "d", "e", "f"]
    for (index, team) in teams.enumerated() {
        var player = GroupedPlayer(id: nil, team: team, score: index)
        try db.insert(&player)
    }
    return db
}

private struct TeamOnly: Decodable { var team: String }

@Suite struct QueryGroupingTests {
    @Test func countOfAGroupedQueryCountsGroups() throws {
        let db = try groupedFixture()
        let grouped = db.query(GroupedPlayer.self).group(by: \.team)
        let selected = try grouped.select(TeamOnly.self).fetchAll()
        #expect(selected.count == 6)
        #expect(try grouped.count() == 6)
        #expect(try grouped.where { $0.score >= 5 }.count() == 5)
        #expect(try grouped.where { $0.score > 100 }.count() == 0)
        #expect(try grouped.limit(4).count() == 4)
        #expect(try grouped.exists())
        #expect(try !grouped.where { $0.score > 100 }.exists())
    }

    @Test func scalarAggregatesOfAGroupedQueryThrow() throws {
        let db = try groupedFixture()
        let grouped = db.query(GroupedPlayer.self).group(by: \.team)
        for (name, run) in [
            ("sum", { _ = try grouped.sum { $0.score } }),
            ("min", { _ = try grouped.min { $0.score } }),
            ("max", { _ = try grouped.max { $0.score } }),
            ("average", { _ = try grouped.average { $0.score } }),
        ] as [(String, () throws -> Void)] {
            let error = #expect(throws: SchemaError.self, "\(name)") { try run() }
            #expect(error?.message.contains("group") == true, "\(name): \(String(describing: error))")
            #expect(error?.message.contains("select") == true, "\(name): \(String(describing: error))")
        }
        // Without a group, the same aggregates run over all rows.
        #expect(try db.query(GroupedPlayer.self).sum { $0.score } == 45)
    }
}
