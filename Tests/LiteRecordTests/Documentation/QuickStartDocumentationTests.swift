// The README's quick start, line for line (see ReadmeCodeBlockTests).
import Foundation
import LiteRecord
import Testing

@Suite struct QuickStartDocumentationTests {
struct Stats: Codable, Equatable, Sendable { var wins: Int; var losses: Int }
enum Team: String, Codable, Sendable { case red, blue }

struct Player: Model, Equatable {
    var id: Int64?             // nil until inserted; INTEGER PRIMARY KEY, assigned by SQLite
    var name: String
    var score: Int
    var team: Team?            // TEXT (raw value), NULL when nil
    var tags: [String]         // JSON text
    var stats: Stats           // JSON text
    var joinedAt: Date

    static let schema = Schema<Player>(
        table: "players",
        primaryKey: \.id,
        unique: [\.name],
        indexes: [[\.score], [\.team, \.score]]
    )
}

    @Test func theQuickStartRunsAsWritten() throws {
        try inTemporaryCurrentDirectory {
            let db = try Database(path: "game.sqlite")          // also: try Database(.inMemory), Database(.temporary)
            var alice = Player(id: nil, name: "Alice", score: 120, team: .red, tags: ["pro", "mvp"],
                               stats: Stats(wins: 3, losses: 1), joinedAt: Date())
            try db.insert(&alice)                               // creates the table on first use; sets alice.id
            #expect(alice.id == 1)
            alice.score += 5
            try db.update(alice)
            var bob = Player(id: nil, name: "Bob", score: 80, team: nil, tags: [],
                             stats: Stats(wins: 0, losses: 2), joinedAt: Date())
            try db.save(&bob)                                   // insert or update by primary key
            #expect(bob.id == 2)
            let found: Player? = try db.find(Player.self, id: alice.id!)
            #expect(found == alice)
            try db.transaction { tx in                          // commits, or rolls back if the body throws
                try tx.delete(bob)
                try tx.update(alice)
            }
            #expect(try db.find(Player.self, id: bob.id!) == nil)
            let top: [Player] = try db.query(Player.self)
                .where { $0.score > 100 && $0.team == .red }
                .order { $0.score.descending }
                .limit(10)
                .fetchAll()
            #expect(top == [alice])
            let veterans: Int = try db.query(Player.self).where { $0.stats.wins >= 3 }.count()   // JSON path
            #expect(veterans == 1)
            let pros: [Player] = try db.query(Player.self).where { $0.tags.contains("pro") }.fetchAll()
            #expect(pros == [alice])
            // Built outside #expect: Swift 6.3.1 gives a closure inside #expect, within a closure,
            // the body of the next one (MacroClosureToolchainTests).
            let notRed = try db.query(Player.self).where { $0.team != .red }.count()
            let noTeam = try db.query(Player.self).where { $0.team == nil }.count()
            let topSQL = db.query(Player.self).where { $0.score > 100 && $0.team == .red }
                .order { $0.score.descending }.limit(10).sqlDescription
            #expect(notRed == 0)
            #expect(noTeam == 0)
            #expect(
                topSQL
                    == #"SELECT * FROM "players" WHERE (("score" > ?) AND ("team" IS ?)) ORDER BY "score" DESC LIMIT ? [100, 'red', 10]"#
            )
            let rich: [Player] = try db.fetchAll(Player.self, sql: "SELECT * FROM players WHERE score > \(100)")
            #expect(rich == [alice])
            try db.execute(sql: "UPDATE players SET score = score + 1")
            #expect(try db.find(Player.self, id: alice.id!)?.score == 126)
        }
    }
}
