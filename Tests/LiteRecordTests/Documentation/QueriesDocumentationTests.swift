// The README's "Queries" section, line for line (see ReadmeCodeBlockTests).
import Foundation
import LiteRecord
import Testing

@Suite struct QueriesDocumentationTests {
    typealias Player = QuickStartDocumentationTests.Player
    typealias Team = QuickStartDocumentationTests.Team
    typealias Stats = QuickStartDocumentationTests.Stats

    /// 100 players: scores 50, 55, ... ; teams red, blue, none in turn; every tenth a test account.
    static func league() throws -> Database {
        let db = try Database(.inMemory)
        try db.insert(contentsOf: (0..<100).map { index in
            Player(
                id: nil, name: index.isMultiple(of: 10) ? "test_\(index)" : "player\(index)", score: 50 + 5 * index,
                team: [Team.red, .blue, nil][index % 3], tags: index.isMultiple(of: 4) ? [] : ["pro"],
                stats: Stats(wins: index, losses: 0), joinedAt: Date())
        })
        return db
    }

    @Test func aQueryIsBuiltStepByStepAndRunWhenAsked() throws {
        let db = try Self.league()
        let query = db.query(Player.self)
            .where { $0.score >= 100 && ($0.team == .red || $0.team == nil) }
            .where { !$0.name.hasPrefix("test_") }           // several where calls must all hold
            .order { [$0.team.ascending(nulls: .last), $0.score.descending] }
            .limit(20, offset: 40)
        let expected = try db.fetchAll(Player.self)
            .filter { $0.score >= 100 && ($0.team == .red || $0.team == nil) && !$0.name.hasPrefix("test_") }
            .sorted { ($0.team == nil ? 1 : 0, -$0.score) < ($1.team == nil ? 1 : 0, -$1.score) }
            .dropFirst(40).prefix(20)
        #expect(try query.fetchAll() == Array(expected))
        try query.fetchAll()            // [Player]
        try query.fetchOne()            // Player?   (also first())
        try query.count()               // Int
        try query.exists()              // Bool
        try query.forEach { player in } // one row at a time, never all in memory
        print(query.sqlDescription)     // SELECT * FROM "players" WHERE ... [100, 'red', ...]
        #expect(try query.fetchOne() == expected.first)
        #expect(try query.count() == expected.count)
        #expect(try query.exists() == !expected.isEmpty)
        #expect(query.sqlDescription.hasPrefix(#"SELECT * FROM "players" WHERE "#))
    }

    @Test func aggregatesProjectionsAndGroups() throws {
        let db = try Self.league()
        let query = db.query(Player.self).where { $0.score < 100 }
        let total = try query.sum { $0.score }          // Int (0 when no row matches)
        let best = try query.max { $0.score }           // Int?
        let mean = try query.average { $0.score }       // Double?
        #expect(total == 725)  // 50 + 55 + ... + 95
        #expect(best == 95)
        #expect(mean == 72.5)

        struct NameAndScore: Decodable { var name: String; var score: Int }
        let names = try query.select(NameAndScore.self).fetchAll()     // SELECT "name", "score" ...
        #expect(names.count == 10)
        #expect(names.first?.score == 50)

        struct TeamTotal: Decodable { var team: Team?; var total: Int; var players: Int }
        let totals = try db.query(Player.self)
            .group(by: \.team)
            .select(TeamTotal.self) { [$0.team.as("team"), $0.score.sum.as("total"), $0.rowCount.as("players")] }
            .fetchAll()
        let allPlayers: Int = totals.map(\.players).reduce(0, +)
        #expect(allPlayers == 100)
        let allPoints: Int = totals.map(\.total).reduce(0, +)
        #expect(allPoints == 29_750)  // 50 + 55 + ... + 545
    }

    @Test func bulkChangesReturnTheRowsChanged() throws {
        let db = try Self.league()
        let promoted = try db.query(Player.self).where { $0.score > 1000 }
            .updateAll { [$0.score.set(to: $0.score + 1), $0.team.set(to: .blue)] }
        let removed = try db.query(Player.self).where { $0.tags.isEmpty }.deleteAll()
        #expect(promoted == 0)
        #expect(removed == 25)
        try db.query(Player.self).where { $0.score > 500 }
            .updateAll { [$0.score.set(to: $0.score + 1), $0.team.set(to: .blue)] }
        #expect(try db.query(Player.self).where { $0.score > 500 && $0.team != .blue }.count() == 0)
    }
}
