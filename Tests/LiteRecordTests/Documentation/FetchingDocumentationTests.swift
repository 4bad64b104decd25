// The README's "Fetching into Codable types" section, line for line (see ReadmeCodeBlockTests).
import Foundation
import LiteRecord
import Testing

@Suite struct FetchingDocumentationTests {
    struct Stats: Codable { var wins: Int; var losses: Int }
    struct PlayerRow: Codable { var id: Int64; var name: String; var score: Int; var stats: Stats }

    static func playersDatabase() throws -> Database {
        let db = try Database(.inMemory)
        try db.execute(sql: """
            CREATE TABLE players(id INTEGER PRIMARY KEY, name TEXT, score INTEGER, stats TEXT, extra BLOB);
            INSERT INTO players(name, score, stats) VALUES
                ('Alice', 120, '{"wins":3,"losses":1}'), ('Bob', 80, '{"wins":0,"losses":2}');
            """)
        return db
    }

    @Test func anyDecodableTypeIsFetchedWithSQL() throws {
        let db = try Self.playersDatabase()
        let players = try db.fetchAll(PlayerRow.self, sql: "SELECT * FROM players WHERE score > \(100)")
        let alice = try db.fetchOne(PlayerRow.self, sql: "SELECT * FROM players WHERE name = \("Alice")")
        let names = try db.fetchAll(String.self, sql: "SELECT name FROM players ORDER BY name")
        var decoded: [String] = []
        try db.forEach(PlayerRow.self, sql: "SELECT * FROM players") { player in
            // rows are decoded one at a time; the whole result is never held in memory
            decoded.append(player.name)
        }
        #expect(players.map(\.name) == ["Alice"])
        #expect(alice?.stats.wins == 3)
        #expect(names == ["Alice", "Bob"])
        #expect(decoded == ["Alice", "Bob"])
    }

    struct Leader: Decodable { var name: String; var score: Int; var nickname: String? }

    @Test func aTableIsReadIntoADecodableThatIsNotAModel() throws {
        let db = try Self.playersDatabase()
        let leaders = try db.fetchAll(Leader.self, fromTable: "players")   // SELECT "name", "score" FROM "players"
        #expect(leaders.map(\.name) == ["Alice", "Bob"])
        #expect(leaders.map(\.score) == [120, 80])
        #expect(leaders.allSatisfy { $0.nickname == nil })
    }

    @Test func aTableIsReadIntoADecodableFromATask() async throws {
        let db = try Self.playersDatabase()
        let fromTask = try await db.fetchAll(PlayerRow.self, fromTable: "players")
        #expect(fromTask.map(\.stats.losses) == [1, 2])
    }

    @Test func rowEncoderAndRowDecoderWorkOnAnyCodable() throws {
        let db = try Self.playersDatabase()
        let player = PlayerRow(id: 7, name: "Carol", score: 99, stats: Stats(wins: 1, losses: 1))
        let someRow = try #require(try db.fetchOne(Row.self, sql: "SELECT * FROM players WHERE name = 'Bob'"))
        let row = try RowEncoder().encode(player)   // row.columns: ["id", "name", ...], row.values
        let back = try RowDecoder().decode(PlayerRow.self, from: someRow)
        #expect(row.columns == ["id", "name", "score", "stats"])
        #expect(back.name == "Bob")
        #expect(back.stats.losses == 2)
    }
}
