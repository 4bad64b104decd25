// The README's "Concurrency" section, line for line (see ReadmeCodeBlockTests).
import Foundation
import LiteRecord
import LiteRecordTestSupport
import Testing

@Suite struct ConcurrencyDocumentationTests {
    typealias Player = QuickStartDocumentationTests.Player

    /// A database holding the table the write block updates, and Alice, not inserted yet.
    static func gameDatabase() throws -> (Database, Player) {
        let db = try Database(.temporary)
        try db.execute(sql: "CREATE TABLE teams(name TEXT PRIMARY KEY, size INTEGER)")
        try db.execute(sql: "INSERT INTO teams VALUES ('red', 0), ('blue', 0)")
        let alice = Player(
            id: nil, name: "Alice", score: 120, team: .red, tags: ["pro"],
            stats: .init(wins: 3, losses: 1), joinedAt: Date())
        return (db, alice)
    }

    @Test func writesAndSnapshotReads() throws {
        let (db, player) = try Self.gameDatabase()
        var alice = player
        try db.write { tx in                    // BEGIN IMMEDIATE ... COMMIT, on the writer
            try tx.insert(&alice)
            try tx.execute(sql: "UPDATE teams SET size = size + 1 WHERE name = \(alice.team?.rawValue)")
        }
        let (players, total) = try db.read { db in    // one snapshot for the whole closure
            (try db.query(Player.self).where { $0.score > 100 }.fetchAll(), try db.count(Player.self))
        }
        #expect(players == [alice])
        #expect(total == 1)
        #expect(try db.fetchOne(Int.self, sql: "SELECT size FROM teams WHERE name = 'red'") == 1)
    }

    @Test func everyOperationHasAnAsyncForm() async throws {
        let (db, player) = try Self.gameDatabase()
        var alice = player
        try await db.insert(&alice)
        alice.score += 1
        let top = try await db.query(Player.self).order { $0.score.descending }.limit(10).fetchAll()
        let count = try await db.read { db in try db.count(Player.self) }
        try await db.write { [alice] tx in try tx.update(alice) }
        #expect(top.map(\.name) == ["Alice"])
        #expect(count == 1)
        #expect(try await db.find(Player.self, id: alice.id!)?.score == 121)
    }

    @MainActor
    func leaderboard(_ db: Database) async throws -> (leaders: [Player], points: Int) {
        let strong = db.query(Player.self).where { $0.score > 100 }
        let leaders = try await strong.order { $0.score.descending }.limit(3).fetchAll()
        let points = try await strong.sum { $0.score }
        return (leaders, points)
    }

    @MainActor
    @Test func queriesAreAwaitedFromTheMainActor() async throws {
        let db = try Database(.inMemory)
        #expect(try await leaderboard(db).leaders == [])  // never written: an empty table
        for (name, score) in [("a", 150), ("b", 90), ("c", 200)] {
            try await db.insert(
                Player(id: nil, name: name, score: score, team: nil, tags: [], stats: .init(wins: 0, losses: 0),
                       joinedAt: Date()))
        }
        let (leaders, points) = try await leaderboard(db)
        #expect(leaders.map(\.name) == ["c", "a"])
        #expect(points == 350)
    }

    /// Stand-ins for an app's screen: each records what it is shown, and stops the observation
    /// it is called from by cancelling the task consuming it.
    final class Screen<Value: Sendable>: Sendable {
        let shown = Locked<[Value]>([])

        func show(_ value: Value) {
            shown.withLock { $0.append(value) }
            withUnsafeCurrentTask { $0?.cancel() }
        }

        func set(_ value: Value) { show(value) }

        func record(_ value: Value) { show(value) }
    }

    @Test func observingChanges() async throws {
        do {
            let (db, player) = try Self.gameDatabase()
            var alice = player
            try await db.insert(&alice)
            let scoreboard = Screen<[Player]>()
            let label = Screen<Int>()
            let audit = Screen<[DatabaseChange]>()
            try await Task {
                for try await players in db.observe(db.query(Player.self).order { $0.score.descending }) {
                    scoreboard.show(players)                       // [Player], now and after each change
                }
            }.value
            try await Task {
                for try await total in db.observe({ db in try db.count(Player.self) }) { label.set(total) }   // any reads
            }.value
            #expect(scoreboard.shown.withLock { $0 } == [[alice]])
            #expect(label.shown.withLock { $0 } == [1])

            // Without async: a callback, on a background thread, until the token is cancelled or released.
            let token = db.observe({ db in try db.count(Player.self) }, onChange: { label.set($0) })

            // The raw change stream: the rows (operation, table, rowid) of each committed transaction.
            let stream = Task {
                for await rows in db.committedChanges() { audit.record(rows) }
            }
            let changes = db.onCommittedChanges { rows in audit.record(rows) }
            var written = 0
            while audit.shown.withLock({ $0.count }) < 2 && written < 500 {
                try await db.execute(sql: "UPDATE players SET score = score + 1")
                written += 1
                try await Task.sleep(nanoseconds: 2_000_000)
            }
            await stream.value
            token.cancel()
            changes.cancel()
            #expect(audit.shown.withLock { $0 }.count >= 2)
            #expect(audit.shown.withLock { $0 }.first?.first?.tableName == "players")
            #expect(label.shown.withLock { $0 }.count >= 2)
        }
    }
}
