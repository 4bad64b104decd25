import Foundation
import LiteRecord
import Testing

private enum Side: String, Codable, Sendable { case home, away }

private struct Match: Model, Equatable {
    var id: Int64?
    var side: Side?
    var goals: Int
    var player: String
}

@Suite struct QueryProjectionTests {
    private func makeDatabase() throws -> Database {
        let db = try Database(.inMemory)
        try db.insert(contentsOf: [
            Match(id: nil, side: .home, goals: 2, player: "Ann"),
            Match(id: nil, side: .home, goals: 1, player: "Bea"),
            Match(id: nil, side: .away, goals: 4, player: "Cy"),
            Match(id: nil, side: nil, goals: 0, player: "Dee"),
        ])
        return db
    }

    @Test func selectsTheColumnsNamedByAnotherType() throws {
        struct NameAndGoals: Decodable, Equatable {
            var player: String
            var goals: Int
        }
        let db = try makeDatabase()
        let projection = db.query(Match.self).where { $0.goals > 0 }.order { $0.goals.descending }
            .select(NameAndGoals.self)
        #expect(
            projection.sqlDescription
                == #"SELECT "player", "goals" FROM "match" WHERE ("goals" > ?) ORDER BY "goals" DESC [0]"#)
        #expect(
            try projection.fetchAll() == [
                NameAndGoals(player: "Cy", goals: 4), NameAndGoals(player: "Ann", goals: 2),
                NameAndGoals(player: "Bea", goals: 1),
            ])
        #expect(try projection.fetchOne() == NameAndGoals(player: "Cy", goals: 4))
    }

    @Test func groupsWithAggregatesIntoAStruct() throws {
        struct SideTotal: Decodable, Equatable {
            var side: Side?
            var total: Int
            var matches: Int
            var best: Int?
        }
        let db = try makeDatabase()
        let totals = try db.query(Match.self)
            .group(by: \.side)
            .order { $0.side.ascending(nulls: .last) }
            .select(SideTotal.self) {
                [
                    $0.side.as("side"), $0.goals.sum.as("total"), $0.rowCount.as("matches"),
                    $0.goals.max.as("best"),
                ]
            }
            .fetchAll()
        #expect(
            totals == [
                SideTotal(side: .away, total: 4, matches: 1, best: 4),
                SideTotal(side: .home, total: 3, matches: 2, best: 2),
                SideTotal(side: nil, total: 0, matches: 1, best: 0),
            ])
    }

    @Test func aggregatesAreTyped() throws {
        let db = try makeDatabase()
        let query = db.query(Match.self)
        #expect(try query.sum { $0.goals } == 7)
        #expect(try query.min { $0.goals } == 0)
        #expect(try query.max { $0.player } == "Dee")
        #expect(try query.average { $0.goals } == 1.75)
        let none = query.where { $0.goals > 100 }
        #expect(try none.sum { $0.goals } == 0)
        #expect(try none.max { $0.goals } == nil)
        #expect(try none.average { $0.goals } == nil)
    }

    @Test func groupingByAComputedPropertyIsAnError() throws {
        struct Total: Decodable { var total: Int }
        let db = try makeDatabase()
        #expect(throws: SchemaError.self) {
            try db.query(Match.self).group(by: \.player.count).select(Total.self) {
                [$0.goals.sum.as("total")]
            }
            .fetchAll()
        }
    }
}
