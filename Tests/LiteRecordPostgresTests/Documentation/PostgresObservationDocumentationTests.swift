// The PostgreSQL article's "Observing changes" section, line for line (see ReadmeCodeBlockTests).
import Foundation
import LiteRecord
import LiteRecordPostgres
import Testing

// `Player` is the documentation's model (OneCodeBaseDocumentationTests.swift).

/// What the article's loops show, for the test to check.
private final class Board: @unchecked Sendable {
    // @unchecked Sendable: `shown` is only touched under `lock`.
    private let lock = NSLock()
    private var shown: [[String]] = []
    var values: [[String]] { lock.withLock { shown } }
    func show(_ players: [Player]) { lock.withLock { shown.append(players.map(\.name)) } }
    func set(_ total: Int) { lock.withLock { shown.append([String(total)]) } }
}

@Suite(.enabled(if: PostgresTestServer.isAvailable, PostgresTestServer.skipMessage))
struct PostgresObservationDocumentationTests {
    @Test func observingAQueryAndAFetch() async throws {
        let pg = try PostgresTestServer.freshDatabase()
        let scoreboard = Board()
        let label = Board()
        let writer = Task {
            try await Task.sleep(for: .milliseconds(200))
            var alice = Player(id: nil, name: "Alice", score: 120)
            try await pg.insert(&alice)
        }
        for try await players in pg.observe(pg.query(Player.self).where { $0.score > 100 }) {
            scoreboard.show(players)  // [Player], now and after each commit that changes them
            if scoreboard.values.count == 2 { break }
        }
        for try await total in pg.observe({ tx in try tx.query(Player.self).count() }) {
            label.set(total)
            break
        }
        try await writer.value
        #expect(scoreboard.values == [[], ["Alice"]])
        #expect(label.values == [["1"]])
        #expect(!pg.observationHub.isListening)  // the last observation ended: no listener left
    }
}

private struct Note: Model, Equatable {
    var id: Int64?
    var body: String
    static let schema = Schema<Note>(table: "notes")
}

extension PostgresObservationDocumentationTests {
    // PostgreSQL's own search functions still work in `where(sql:)`, with the text bound.
    @Test func searchingWithPostgresFunctions() throws {
        let pg = try PostgresTestServer.freshDatabase()
        var note = Note(id: nil, body: "Running Swift on the server")
        try pg.insert(&note)
        let text = "swift run"
        let hits = try pg.query(Note.self)
            .where(sql: "to_tsvector('english', body) @@ websearch_to_tsquery('english', \(text))")
            .fetchAll()
        #expect(hits == [note])
    }
}
