import Foundation
import LiteRecord
import Testing

// The README quick start's model (the quick start itself runs in
// Documentation/QuickStartDocumentationTests): the table it creates.
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
