import Foundation
import LiteRecord
import Testing

// The README quick start, as written (the query lines come with the query layer).
private struct Stats: Codable, Equatable, Sendable {
    var wins: Int
    var losses: Int
}
private enum Team: String, Codable, Sendable { case red, blue }

private struct Player: Model, Equatable {
    var id: Int64?
    var name: String
    var score: Int
    var team: Team?
    var tags: [String]
    var stats: Stats
    var joinedAt: Date

    static let schema = Schema<Player>(
        table: "players",
        primaryKey: \.id,
        unique: [\.name],
        indexes: [[\.score], [\.team, \.score]]
    )
}

@Suite struct QuickStartTests {
    @Test func quickStartRunsAsWritten() throws {
        try withTemporaryDirectory { directory in
            let db = try Database(path: directory.file("game.sqlite"))
            var alice = Player(
                id: nil, name: "Alice", score: 120, team: .red, tags: ["pro", "mvp"],
                stats: Stats(wins: 3, losses: 1), joinedAt: Date())
            try db.insert(&alice)
            #expect(alice.id == 1)
            alice.score += 5
            try db.update(alice)
            var bob = Player(
                id: nil, name: "Bob", score: 80, team: nil, tags: [],
                stats: Stats(wins: 0, losses: 2), joinedAt: Date())
            try db.save(&bob)
            #expect(bob.id == 2)
            let found: Player? = try db.find(Player.self, id: alice.id!)
            #expect(found == alice)
            let top: [Player] = try db.query(Player.self)
                .where { $0.score > 100 && $0.team == .red }
                .order { $0.score.descending }
                .limit(10)
                .fetchAll()
            #expect(top == [alice])
            let veterans: Int = try db.query(Player.self).where { $0.stats.wins >= 3 }.count()  // JSON path
            #expect(veterans == 1)
            let pros: [Player] = try db.query(Player.self).where { $0.tags.contains("pro") }.fetchAll()
            #expect(pros == [alice])
            #expect(try db.query(Player.self).where { $0.team != .red }.fetchAll() == [bob])
            #expect(try db.query(Player.self).where { $0.team == nil }.count() == 1)
            #expect(
                db.query(Player.self).where { $0.score > 100 && $0.team == .red }.order {
                    $0.score.descending
                }.limit(10)
                    .sqlDescription
                    == #"SELECT * FROM "players" WHERE (("score" > ?) AND ("team" IS ?)) ORDER BY "score" DESC LIMIT ? [100, 'red', 10]"#
            )
            try db.transaction { tx in
                try tx.delete(bob)
                try tx.update(alice)
            }
            #expect(try db.count(Player.self) == 1)
            #expect(try db.find(Player.self, id: bob.id!) == nil)
            let rich: [Player] = try db.fetchAll(
                Player.self, sql: "SELECT * FROM players WHERE score > \(100)")
            #expect(rich == [alice])
            try db.execute(sql: "UPDATE players SET score = score + 1")
            #expect(try db.find(Player.self, id: alice.id!)?.score == 126)
        }
    }

    @Test func tableIsCreatedWithKeysConstraintsAndIndexes() throws {
        let db = try Database(.inMemory)
        try db.migrate(Player.self)
        let sql = try #require(
            try db.fetchOne(String.self, sql: "SELECT sql FROM sqlite_master WHERE name = 'players'"))
        #expect(sql.contains(#""id" INTEGER PRIMARY KEY"#))
        #expect(sql.contains(#""name" TEXT NOT NULL"#))
        #expect(sql.contains(#""team" TEXT,"#))
        #expect(sql.contains(#""tags" TEXT NOT NULL"#))
        #expect(sql.contains(#"UNIQUE ("name")"#))
        let indexes = try db.fetchAll(
            String.self,
            sql:
                "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'players' AND sql IS NOT NULL ORDER BY name"
        )
        #expect(indexes == ["players_on_score", "players_on_team_score"])
        let columns = try db.fetchAll(
            String.self, sql: "SELECT name FROM pragma_index_info('players_on_team_score')")
        #expect(columns == ["team", "score"])
    }
}
