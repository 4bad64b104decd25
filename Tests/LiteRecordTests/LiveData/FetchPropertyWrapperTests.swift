import Foundation
import LiteRecord
import LiteRecordTestSupport
import Observation
import Testing

/// A screen's state as an app writes it: the rows named where the property is declared.
@MainActor
private struct Roster {
    @FetchAll var players: [LivePlayer]
    @FetchAll({ $0.where { $0.score > 10 }.order { $0.name } }) var stars: [LivePlayer]
    @FetchOne({ $0.order { $0.score.descending } }) var best: LivePlayer?
}

/// An `@Observable` model holding live rows: its property reads are tracked through the live query.
@MainActor
@Observable
private final class LeaderboardModel {
    @ObservationIgnored @FetchAll({ $0.order { $0.score.descending } }) var ranking: [LivePlayer]
    var title = "Top"
}

/// `@FetchAll` and `@FetchOne` on `LiveData.database`, which is one per process: the suite runs
/// its tests one at a time.
@Suite(.serialized) struct FetchPropertyWrapperTests {
    @MainActor @Test func wrappersInAStructReadTheAppsDatabase() async throws {
        let db = try Database(.inMemory)
        for (name, score) in [("Al", 5), ("Bea", 20)] {
            var player = LivePlayer(name: name, score: score)
            try await db.insert(&player)
        }
        LiveData.database = db
        defer { LiveData.database = nil }
        let roster = Roster()
        #expect(roster.players.count == 2)
        #expect(roster.stars.map(\.name) == ["Bea"])
        #expect(roster.best?.name == "Bea")
        var cy = LivePlayer(name: "Cy", score: 30)
        try await db.insert(&cy)
        #expect(await eventually { roster.best?.name == "Cy" && roster.stars.count == 2 })
        #expect(roster.$players.error == nil)
        roster.$stars.load(db.query(LivePlayer.self).where { $0.score < 10 })
        #expect(roster.stars.map(\.name) == ["Al"])
    }

    @MainActor @Test func anObservableModelsReadsAreTracked() async throws {
        let db = try Database(.inMemory)
        LiveData.database = db
        defer { LiveData.database = nil }
        let model = LeaderboardModel()
        #expect(model.ranking.isEmpty)
        let changed = Locked(false)
        withObservationTracking {
            _ = model.ranking
        } onChange: {
            changed.withLock { $0 = true }
        }
        var ann = LivePlayer(name: "Ann", score: 3)
        try await db.insert(&ann)
        #expect(await eventually { changed.withLock { $0 } })
        #expect(model.ranking.map(\.name) == ["Ann"])
    }

    @MainActor @Test func withoutADatabaseTheWrapperSaysSo() throws {
        LiveData.database = nil
        let roster = Roster()
        #expect(roster.players.isEmpty)
        let error = try #require(roster.$players.error as? DatabaseError)
        #expect(error.resultCode == .misuse)
        #expect(error.message.contains("LiveData.database"))
    }
}
