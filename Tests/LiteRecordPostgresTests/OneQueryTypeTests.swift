import Foundation
import LiteRecord
import LiteRecordPostgres
import Testing

// `pg.query(M.self)` is LiteRecord's own `Query<M>`: a function written once over `Query`,
// `Projection` or an `including` query runs on either backend, and the overloads SQLite's
// `Query` has (which a separate PostgreSQL copy lacked) run on PostgreSQL too.

private struct Racer: Model, Equatable {
    var id: Int64?
    var name: String
    var team: String?
    var laps: Int
    static let schema = Schema<Racer>(table: "one_query_racers")
}

private struct Lap: Model, Equatable {
    var id: Int64?
    var racerID: Int64
    var seconds: Double
    static let schema = Schema<Lap>(table: "one_query_laps").foreignKey(\.racerID, references: Racer.self)
}

private struct TeamLaps: Decodable, Equatable {
    var team: String?
    var laps: Int
}

/// What one function written over the shared types reads, for comparing the two backends.
private struct Readings: Equatable {
    var byName: [String]
    var fast: [String]
    var count: Int
    var sum: Int
    var teams: [TeamLaps]
    var lapsPerRacer: [String: Int]
    var page: [String]
    var sqlMentionsTable: Bool
    var skipped: [String]
    var bySQL: [String]
    var average: Double?
}

/// Written once, generic over nothing but LiteRecord's `Query`.
private func readings(_ racers: Query<Racer>) throws -> Readings {
    // A plain column as the sort key: `order { $0.name }` (PostgresQuery had no such overload).
    let byName = try racers.order { $0.name }.fetchAll().map(\.name)
    let fast = try racers.where { $0.laps >= 3 }.order { $0.laps.descending }.fetchAll().map(\.name)
    let teams = try racers.group(by: \.team).order { $0.team }
        .select(TeamLaps.self) { [$0.team.as("team"), $0.laps.sum.as("laps")] }
        .fetchAll()
    var lapsPerRacer: [String: Int] = [:]
    for (racer, laps) in try racers.including(all: Lap.self).fetchAll() {
        lapsPerRacer[racer.name] = laps.count
    }
    let first = try racers.order { $0.name }.page(after: nil, limit: 2).fetchAll()
    let page = try racers.order { $0.name }.page(after: first.last, limit: 2).fetchAll().map(\.name)
    let skipped = try racers.order { $0.name }.offset(2).fetchAll().map(\.name)
    let bySQL = try racers.where(sql: "laps > \(2)").order { $0.name }.fetchAll().map(\.name)
    return Readings(
        byName: byName, fast: fast, count: try racers.count(), sum: try racers.sum { $0.laps }, teams: teams,
        lapsPerRacer: lapsPerRacer, page: page,
        sqlMentionsTable: racers.sqlDescription.contains("one_query_racers"), skipped: skipped, bySQL: bySQL,
        average: try racers.average { $0.laps })
}

private struct Shelf: Decodable {
    var racer: Racer
    var laps: [Lap]
}

/// Written once over any query with related rows: each root's number of related rows.
private func shelves<Q: IncludingQuery>(_ query: Q) throws -> [String: Int] {
    Dictionary(uniqueKeysWithValues: try query.fetchAll(Shelf.self).map { ($0.racer.name, $0.laps.count) })
}

private func seed(insert: (inout Racer) throws -> Void, insertLap: (inout Lap) throws -> Void) throws {
    for (name, team, laps) in [("Ada", "red", 4), ("Bea", nil, 1), ("Cy", "blue", 3), ("Dee", "red", 2)]
        as [(String, String?, Int)]
    {
        var racer = Racer(id: nil, name: name, team: team, laps: laps)
        try insert(&racer)
        for second in 0..<laps {
            var lap = Lap(id: nil, racerID: racer.id!, seconds: 60 + Double(second))
            try insertLap(&lap)
        }
    }
}

@Suite(.enabled(if: PostgresTestServer.isAvailable, PostgresTestServer.skipMessage), .offCooperativePool)
struct OneQueryTypeTests {
    @Test func oneFunctionOverQueryReadsTheSameOnSQLiteAndPostgreSQL() throws {
        let db = try Database(.inMemory)
        let pg = try PostgresTestServer.freshDatabase()
        try seed(insert: { try db.insert(&$0) }, insertLap: { try db.insert(&$0) })
        try seed(insert: { try pg.insert(&$0) }, insertLap: { try pg.insert(&$0) })
        let onSQLite = try readings(db.query(Racer.self))
        let onPostgreSQL = try readings(pg.query(Racer.self))
        #expect(onSQLite.byName == ["Ada", "Bea", "Cy", "Dee"])
        #expect(onSQLite.fast == ["Ada", "Cy"])
        #expect(onSQLite.count == 4 && onSQLite.sum == 10)
        #expect(onSQLite.lapsPerRacer == ["Ada": 4, "Bea": 1, "Cy": 3, "Dee": 2])
        #expect(onSQLite.page == ["Cy", "Dee"])
        #expect(
            onSQLite.skipped == ["Cy", "Dee"] && onSQLite.bySQL == ["Ada", "Cy"] && onSQLite.average == 2.5)
        #expect(onSQLite.sqlMentionsTable)
        // NULL sorts last in PostgreSQL's ascending order, first in SQLite's: compare as sets.
        #expect(Set(onPostgreSQL.teams.map(\.team)) == Set(onSQLite.teams.map(\.team)))
        #expect(onPostgreSQL.teams.reduce(0) { $0 + $1.laps } == 10)
        var comparable = onPostgreSQL
        comparable.teams = onSQLite.teams
        #expect(comparable == onSQLite)
        // The SQL of each is its own dialect's.
        let sqliteSQL = db.query(Racer.self).where { $0.team == nil }.sqlDescription
        let postgresSQL = pg.query(Racer.self).where { $0.team == nil }.sqlDescription
        #expect(sqliteSQL.contains("IS ?") || sqliteSQL.contains("IS NULL"))
        #expect(postgresSQL.contains("IS NOT DISTINCT FROM") || postgresSQL.contains("IS NULL"))
        #expect(sqliteSQL != postgresSQL)
        #expect(
            try shelves(db.query(Racer.self).including(all: Lap.self)) == [
                "Ada": 4, "Bea": 1, "Cy": 3, "Dee": 2,
            ])
        let fastLaps: (Query<Lap>) -> Query<Lap> = { $0.where { $0.seconds > 60 } }
        let expected = ["Ada": 3, "Bea": 0, "Cy": 2, "Dee": 1]
        #expect(try shelves(db.query(Racer.self).including(all: Lap.self, fastLaps)) == expected)
        #expect(try shelves(pg.query(Racer.self).including(all: Lap.self, fastLaps)) == expected)
    }

    @Test func aQueryBuiltInAPostgresTransactionChangesRowsThere() throws {
        let pg = try PostgresTestServer.freshDatabase()
        try seed(insert: { try pg.insert(&$0) }, insertLap: { try pg.insert(&$0) })
        let changed = try pg.transaction { tx in
            try tx.query(Racer.self).where { $0.team == "red" }.updateAll { [$0.laps.set(to: $0.laps + 10)] }
        }
        #expect(changed == 2)
        #expect(
            try pg.query(Racer.self).where { $0.laps > 10 }.order { $0.name }.fetchAll().map(\.name) == [
                "Ada", "Dee",
            ])
        let deleted = try pg.query(Lap.self).where(Racer.self) { $0.name == "Bea" }.deleteAll()
        #expect(deleted == 1)
        #expect(try pg.fetchAll(Int64.self, sql: "SELECT count(*) FROM one_query_laps") == [9])
    }

    @Test func aSQLiteQueryHandedToPostgresObservationIsRefused() async throws {
        let db = try Database(.inMemory)
        let pg = try PostgresTestServer.freshDatabase()
        let sqliteQuery = db.query(Racer.self)
        let observation = pg.observe(sqliteQuery)
        let error = await #expect(throws: DatabaseError.self) {
            for try await _ in observation { break }
        }
        #expect(error?.resultCode == .misuse)
        #expect(error?.message.contains("not one built on SQLite") == true)
    }

    @Test func asyncFormsOfTheSharedTypesRunOnPostgreSQL() async throws {
        let pg = try PostgresTestServer.freshDatabase()
        var racer = Racer(id: nil, name: "Eve", team: "green", laps: 7)
        try await pg.insert(&racer)
        let query = pg.query(Racer.self).where { $0.laps > 5 }
        #expect(try await query.fetchAll().map(\.name) == ["Eve"])
        #expect(try await query.count() == 1)
        #expect(try await query.max { $0.laps } == 7)
        #expect(
            try await query.select(TeamLaps.self) { [$0.team.as("team"), $0.laps.as("laps")] }.fetchAll()
                == [TeamLaps(team: "green", laps: 7)])
        #expect(try await query.including(all: Lap.self).fetchAll().map(\.1.count) == [0])
        #expect(try await query.deleteAll() == 1)
    }

    @Test func observingWithCallbacksDeliversTheFirstAndTheNextResultsOnBothBackends() throws {
        try Self.observeWithCallbacks(on: try Database(.inMemory))
        try Self.observeWithCallbacks(on: try PostgresTestServer.freshDatabase())
    }

    /// The callback form, written once over the protocol: the first results, then those after
    /// a commit.
    private static func observeWithCallbacks(on db: some ModelDatabase) throws {
        let seen = ObservedNames()
        let query = db.query(Racer.self).order { $0.name }
        let token = db.observe(query, onChange: { seen.append($0.map(\.name)) }, onError: { _ in })
        try seen.wait(forCount: 1)
        var racer = Racer(id: nil, name: "Fay", team: nil, laps: 2)
        try db.insert(&racer)
        try seen.wait(forCount: 2)
        token.cancel()
        #expect(seen.values == [[], ["Fay"]])
    }
}

/// The values a callback observation delivered, waited for from the test's thread.
private final class ObservedNames: @unchecked Sendable {
    // @unchecked Sendable: `delivered` is only touched under `condition`.
    private let condition = NSCondition()
    private var delivered: [[String]] = []

    var values: [[String]] { condition.withLock { delivered } }

    func append(_ names: [String]) {
        condition.withLock {
            delivered.append(names)
            condition.broadcast()
        }
    }

    func wait(forCount count: Int) throws {
        let deadline = Date().addingTimeInterval(30)
        try condition.withLock {
            while delivered.count < count {
                guard condition.wait(until: deadline) else {
                    throw DatabaseError(resultCode: .busy, message: "no value \(count) within 30 s")
                }
            }
        }
    }
}

extension OneQueryTypeTests {
    @Test func aPostgresQueryHandedToSQLiteObservationIsRefused() async throws {
        let db = try Database(.inMemory)
        let pg = try PostgresTestServer.freshDatabase()
        let observation = db.observe(pg.query(Racer.self).where { $0.laps > 1 })
        let error = await #expect(throws: DatabaseError.self) {
            for try await _ in observation { break }
        }
        #expect(error?.resultCode == .misuse)
        #expect(error?.message.contains("built on another database") == true)
        let tree = db.observe(pg.query(Racer.self).including(all: Lap.self))
        let treeError = await #expect(throws: DatabaseError.self) {
            for try await _ in tree { break }
        }
        #expect(treeError?.resultCode == .misuse)
    }
}

extension OneQueryTypeTests {
    // SQLite's FTS5 query language has no PostgreSQL translation: refused there, with the way out.
    @Test func matchingWithFTS5SyntaxRunsOnSQLiteAndIsRefusedOnPostgreSQL() throws {
        let db = try Database(.inMemory)
        let pg = try PostgresTestServer.freshDatabase()
        var article = SearchedArticle(id: nil, text: "swift on linux")
        try db.insert(&article)
        article.id = nil
        try pg.insert(&article)
        #expect(try db.query(SearchedArticle.self).matching(fts5Query: "swift OR rust").fetchAll().count == 1)
        let refused = pg.query(SearchedArticle.self).matching(fts5Query: "swift OR rust")
        let error = #expect(throws: SchemaError.self) { try refused.fetchAll() }
        #expect(error?.message.contains("matching(_:)") == true)
    }
}

private struct SearchedArticle: Model, Equatable {
    var id: Int64?
    var text: String
    static let schema = Schema<SearchedArticle>(table: "one_query_articles").fullTextSearch(on: [\.text])
}
