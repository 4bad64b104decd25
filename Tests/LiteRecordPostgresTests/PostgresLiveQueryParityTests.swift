import Foundation
import LiteRecord
import LiteRecordPostgres
import Observation
import Testing

// LiveQuery on PostgreSQL, run on a C and an ICU database (CI's ICU step runs the
// `Postgres…ParityTests` suites): the first value arrives asynchronously, then a fresh one after
// each commit of any client that changes it, and only then.

private struct Racer: Model, Equatable {
    var id: Int64?
    var name: String
    var laps: Int
    static let schema = Schema<Racer>(table: "live_racers")
}

private struct Flag: Model, Equatable {
    var id: Int64?
    var color: String
    static let schema = Schema<Flag>(table: "live_flags")
}

private struct Crew: Model {
    var id: Int64?
    var name: String
    static let schema = Schema<Crew>(table: "live_crews")
}

private struct Mechanic: Model {
    var id: Int64?
    var crewID: Int64?
    var name: String
    static let schema = Schema<Mechanic>(table: "live_mechanics").foreignKey(\.crewID, references: Crew.self)
}

private struct Failure: Error {}

@MainActor
private func waitFor(seconds: Double = 60, _ condition: () -> Bool) async -> Bool {
    let deadline = Date(timeIntervalSinceNow: seconds)
    while !condition() {
        guard Date() < deadline else { return false }
        try? await Task.sleep(for: .milliseconds(2))
    }
    return true
}

/// Counts the changes `withObservationTracking` reports of a live query's value.
@MainActor
private final class Changes<Value: Sendable> {
    private let live: LiveQuery<Value>
    private(set) var count = 0

    init(_ live: LiveQuery<Value>) {
        self.live = live
        track()
    }

    private func track() {
        withObservationTracking {
            _ = live.value
        } onChange: { [weak self] in
            Task { @MainActor in
                self?.count += 1
                self?.track()
            }
        }
    }
}

@Suite(.enabled(if: PostgresTestServer.isAvailable, PostgresTestServer.skipMessage))
struct PostgresLiveQueryParityTests {
    /// Two pools on one fresh schema, as two processes: one follows, the other writes.
    private func twoClients() throws -> (PostgresDatabase, PostgresDatabase) {
        let databases = try PostgresTestServer.freshDatabases(count: 2)
        return (databases[0], databases[1])
    }

    @MainActor @Test func theFirstValueArrivesThenEveryClientsCommits() async throws {
        let (pg, other) = try twoClients()
        var ann = Racer(name: "Ann", laps: 3)
        try await pg.insert(&ann)
        let racers = LiveQuery(pg.query(Racer.self).order { $0.name })
        let laps = LiveQuery(pg, initial: -1) { tx in try tx.query(Racer.self).sum { $0.laps } ?? 0 }
        #expect(await waitFor { racers.value.map(\.name) == ["Ann"] && laps.value == 3 })
        var bo = Racer(name: "Bo", laps: 4)
        try await other.insert(&bo)
        #expect(await waitFor { racers.value.map(\.name) == ["Ann", "Bo"] && laps.value == 7 })
        try await other.execute(sql: "UPDATE live_racers SET laps = laps + 1 WHERE name = 'Ann'")
        #expect(await waitFor { laps.value == 8 && racers.value.first?.laps == 4 })
        racers.load(pg.query(Racer.self).where { $0.name == "Bo" })
        #expect(await waitFor { racers.value.map(\.name) == ["Bo"] })
    }

    @MainActor @Test func onlyAChangedValueIsReported() async throws {
        let (pg, other) = try twoClients()
        var fast = Racer(name: "Fast", laps: 50)
        var slow = Racer(name: "Slow", laps: 1)
        try await pg.insert(&fast)
        try await pg.insert(&slow)
        var flag = Flag(color: "red")
        try await pg.insert(&flag)
        let leaders = LiveQuery(pg.query(Racer.self).where { $0.laps > 10 })
        #expect(await waitFor { leaders.value.map(\.name) == ["Fast"] })
        let changes = Changes(leaders)
        flag.color = "green"
        try await other.update(flag)  // another table
        slow.name = "Still slow"
        try await other.update(slow)  // a row the query cannot match
        try await other.update(fast)  // equal values rewritten
        var rising = Racer(name: "Rising", laps: 11)
        try await other.insert(&rising)
        #expect(await waitFor { leaders.value.count == 2 })
        try? await Task.sleep(for: .milliseconds(300))
        #expect(changes.count == 1)
    }

    @MainActor @Test func aFailedFetchKeepsTheLastValueUntilTheNextGoodOne() async throws {
        let (pg, other) = try twoClients()
        var ann = Racer(name: "Ann", laps: 1)
        try await pg.insert(&ann)
        let count = LiveQuery(pg, initial: -1) { tx in
            let count = try tx.query(Racer.self).count()
            if count == 2 { throw Failure() }
            return count
        }
        #expect(await waitFor { count.value == 1 })
        var bo = Racer(name: "Bo", laps: 2)
        try await other.insert(&bo)
        #expect(await waitFor { count.error is Failure })
        #expect(count.value == 1)
        var cy = Racer(name: "Cy", laps: 3)
        try await other.insert(&cy)
        #expect(await waitFor { count.error == nil && count.value == 3 })
    }

    @MainActor @Test func treesAndMatchesAndReleaseStopTheListener() async throws {
        let (pg, other) = try twoClients()
        var crew = Crew(name: "Pit")
        try await pg.insert(&crew)
        var crews: LiveQuery? = LiveQuery(pg.query(Crew.self).including(all: Mechanic.self))
        #expect(await waitFor { crews?.value.first?.1.isEmpty == true })
        var max = Mechanic(crewID: crew.id, name: "Max")
        try await other.insert(&max)
        #expect(await waitFor { crews?.value.first?.1.map(\.name) == ["Max"] })
        #expect(pg.observationHub.isListening)
        crews = nil
        #expect(!pg.observationHub.isListening)
    }

    @MainActor @Test func aQueryBuiltOnATransactionCannotBeFollowed() throws {
        let (pg, _) = try twoClients()
        let live = try pg.read { tx in LiveQuery(tx.query(Racer.self)) }
        let error = try #require(live.error as? DatabaseError)
        #expect(error.resultCode == .misuse)
    }
}
