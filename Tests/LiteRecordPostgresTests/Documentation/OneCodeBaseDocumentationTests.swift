// The article "One code base, two databases" and the PostgreSQL article's "One query type",
// line for line (see ReadmeCodeBlockTests): a data layer written once over ModelDatabase and
// Query, run on SQLite and on PostgreSQL.
import Foundation
import LiteRecord
import LiteRecordPostgres
import Testing

struct Stats: Codable, Equatable, Sendable {
    var wins: Int
}

/// The documentation's model, shared by this folder's tests (a private one of the same name in
/// another file would make the name ambiguous).
struct Player: Model, Equatable, Sendable {
    var id: Int64?
    var name: String
    var score: Int
    var stats = Stats(wins: 0)
    static let schema = Schema<Player>(table: "players")
}

func leaderboard(in db: some ModelDatabase) async throws -> [Player] {
    try await db.query(Player.self)
        .where { $0.score > 100 }
        .order { $0.score.descending }
        .limit(10)
        .fetchAll()
}

func recordWin(of name: String, in db: some ModelDatabase) async throws {
    try await db.transaction { tx in
        guard var player = try tx.query(Player.self).where({ $0.name == name }).fetchOne() else { return }
        player.score += 10
        player.stats.wins += 1
        try tx.update(player)
    }
}

extension Query where M == Player {
    func veterans() -> Self { self.where { $0.stats.wins >= 3 } }
}

@Suite(.enabled(if: PostgresTestServer.isAvailable, PostgresTestServer.skipMessage))
struct OneCodeBaseDocumentationTests {
    @Test func theArticlesDataLayerRunsOnSQLiteAndOnPostgreSQL() async throws {
        let serverURL = try PostgresTestServer.freshURL()
        var migrator = Migrator()
        migrator.registerMigration("v1: players") { db in
            try db.migrate(Player.self)
        }

        let db = try Database(.inMemory)
        let pg = try PostgresDatabase(url: serverURL)
        var results: [[String]] = []
        for database in [db, pg] as [any ModelDatabase] {
            try migrator.migrate(database)
            var ann = Player(id: nil, name: "Ann", score: 95, stats: Stats(wins: 2))
            try await database.insert(&ann)
            try await recordWin(of: "Ann", in: database)
            let top = try await leaderboard(in: database)  // [Ann], 105 points
            let veterans = try await database.query(Player.self).veterans().fetchAll()  // [Ann], 3 wins
            #expect(top.map(\.score) == [105])
            #expect(veterans.map(\.stats) == [Stats(wins: 3)])
            results.append(top.map(\.name) + veterans.map(\.name))
        }
        #expect(results == [["Ann", "Ann"], ["Ann", "Ann"]])
        #expect(try migrator.appliedMigrations(in: pg) == ["v1: players"])
        #expect(try migrator.appliedMigrations(in: db) == ["v1: players"])
    }

    // The PostgreSQL article's "One query type": one extension of `Query` on both backends.
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
