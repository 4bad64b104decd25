// The PostgreSQL article's "One query type" section, line for line (see ReadmeCodeBlockTests):
// one extension of `Query`, run on SQLite and on PostgreSQL.
import Foundation
import LiteRecord
import LiteRecordPostgres
import Testing

private struct Stats: Codable, Equatable {
    var wins: Int
}

private struct Player: Model, Equatable {
    var id: Int64?
    var name: String
    var score: Int
    var stats: Stats
    static let schema = Schema<Player>(table: "players")
}

extension Query where M == Player {
    func veterans() -> Self { self.where { $0.stats.wins >= 3 } }
}

@Suite(.enabled(if: PostgresTestServer.isAvailable, PostgresTestServer.skipMessage), .offCooperativePool)
struct OneQueryTypeDocumentationTests {
    @Test func oneExtensionOfQueryRunsOnBothBackends() throws {
        let db = try Database(.inMemory)
        let pg = try PostgresTestServer.freshDatabase()
        for (name, wins) in [("Ann", 5), ("Bob", 1), ("Cid", 3)] {
            var onSQLite = Player(id: nil, name: name, score: 10 * wins, stats: Stats(wins: wins))
            var onPostgres = onSQLite
            try db.insert(&onSQLite)
            try pg.insert(&onPostgres)
        }
        let onSQLite = try db.query(Player.self).veterans().fetchAll()
        let onPostgreSQL = try pg.query(Player.self).veterans().fetchAll()
        #expect(onSQLite.map(\.name).sorted() == ["Ann", "Cid"])
        #expect(onPostgreSQL == onSQLite)
    }
}
