import Foundation
import LiteRecord
import LiteRecordPostgres
import LiteRecordTestSupport
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
        #expect(await eventually { racers.value.map(\.name) == ["Ann"] && laps.value == 3 })
        var bo = Racer(name: "Bo", laps: 4)
        try await other.insert(&bo)
        #expect(await eventually { racers.value.map(\.name) == ["Ann", "Bo"] && laps.value == 7 })
        try await other.execute(sql: "UPDATE live_racers SET laps = laps + 1 WHERE name = 'Ann'")
        #expect(await eventually { laps.value == 8 && racers.value.first?.laps == 4 })
        racers.load(pg.query(Racer.self).where { $0.name == "Bo" })
        #expect(await eventually { racers.value.map(\.name) == ["Bo"] })
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
        #expect(await eventually { leaders.value.map(\.name) == ["Fast"] })
        let changes = ObservedChanges(leaders)
        flag.color = "green"
        try await other.update(flag)  // another table
        slow.name = "Still slow"
        try await other.update(slow)  // a row the query cannot match
        try await other.update(fast)  // equal values rewritten
        var rising = Racer(name: "Rising", laps: 11)
        try await other.insert(&rising)
        #expect(await eventually { leaders.value.count == 2 })
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
        #expect(await eventually { count.value == 1 })
        var bo = Racer(name: "Bo", laps: 2)
        try await other.insert(&bo)
        #expect(await eventually { count.error is Failure })
        #expect(count.value == 1)
        var cy = Racer(name: "Cy", laps: 3)
        try await other.insert(&cy)
        #expect(await eventually { count.error == nil && count.value == 3 })
    }

    @MainActor @Test func treesAndMatchesAndReleaseStopTheListener() async throws {
        let (pg, other) = try twoClients()
        var crew = Crew(name: "Pit")
        try await pg.insert(&crew)
        var crews: LiveQuery? = LiveQuery(pg.query(Crew.self).including(all: Mechanic.self))
        #expect(await eventually { crews?.value.first?.1.isEmpty == true })
        var max = Mechanic(crewID: crew.id, name: "Max")
        try await other.insert(&max)
        #expect(await eventually { crews?.value.first?.1.map(\.name) == ["Max"] })
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
