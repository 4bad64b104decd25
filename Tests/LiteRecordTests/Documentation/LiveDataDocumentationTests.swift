// The README's "Live data in apps" section and the Live data article, line for line (see
// ReadmeCodeBlockTests).
import Foundation
import LiteRecord
import Observation
import Testing

/// Sets `LiveData.database`, one per process, as the property-wrapper tests do: one at a time.
@Suite(.serialized) struct LiveDataDocumentationTests {
    typealias Player = QuickStartDocumentationTests.Player

    @MainActor func showRoster(db: Database) throws {
        let players = LiveQuery(db.query(Player.self).order { $0.name })          // value: [Player]
        let count = LiveQuery(db, initial: 0) { tx in try tx.query(Player.self).count() }   // value: Int
        print(players.value.map(\.name), count.value)   // the current rows and count, already
        #expect(players.value.map(\.name) == ["Alice", "Bob"])
        #expect(count.value == 2)
        players.load(db.query(Player.self).where { $0.score > 10 })    // follow another query
        #expect(players.value.map(\.name).sorted() == ["Alice", "Bob"])
    }

    @MainActor @Observable final class Leaderboard {
        let top: LiveQuery<[Player]>
        var title = "Top players"

        init(db: Database) {
            top = LiveQuery(db.query(Player.self).order { $0.score.descending }.limit(10))
        }

        var summary: String { "\(title): \(top.value.map(\.name).joined(separator: ", "))" }
    }

    @MainActor static func startApp(db: Database) {
        LiveData.database = db    // once, when the app starts
    }

    @MainActor struct Roster {
        @FetchAll var players: [Player]                                        // every row
        @FetchAll({ $0.where { $0.score > 100 }.order { $0.name } }) var stars: [Player]
        @FetchOne({ $0.order { $0.score.descending } }) var best: Player?
    }

    @MainActor static func gameDatabase() async throws -> Database {
        let db = try Database(.inMemory)
        for (name, score) in [("Alice", 120), ("Bob", 80)] {
            var player = Player(
                id: nil, name: name, score: score, team: nil, tags: [], stats: .init(wins: 0, losses: 0),
                joinedAt: Date())
            try await db.insert(&player)
        }
        return db
    }

    @MainActor @Test func theReadmeBlock() async throws {
        let db = try await Self.gameDatabase()
        let roster = LiveQuery(db.query(Player.self).order { $0.name })   // roster.value: [Player]
        let total = LiveQuery(db, initial: 0) { tx in try tx.count(Player.self) }
        #expect(roster.value.map(\.name) == ["Alice", "Bob"])
        #expect(total.value == 2)
    }

    @MainActor @Test func theArticlesBlocks() async throws {
        let db = try await Self.gameDatabase()
        try showRoster(db: db)
        let board = Leaderboard(db: db)
        #expect(board.summary == "Top players: Alice, Bob")
        var carol = Player(
            id: nil, name: "Carol", score: 200, team: nil, tags: [], stats: .init(wins: 0, losses: 0),
            joinedAt: Date())
        try await db.insert(&carol)
        let deadline = Date(timeIntervalSinceNow: 60)
        while board.summary != "Top players: Carol, Alice, Bob" && Date() < deadline {
            try await Task.sleep(for: .milliseconds(5))
        }
        #expect(board.summary == "Top players: Carol, Alice, Bob")

        Self.startApp(db: db)
        defer { LiveData.database = nil }
        let roster = Roster()
        #expect(roster.players.count == 3)
        #expect(roster.stars.map(\.name) == ["Alice", "Carol"])
        #expect(roster.best?.name == "Carol")
    }
}
