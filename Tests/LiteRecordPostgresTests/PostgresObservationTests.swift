import Foundation
import LiteRecord
import LiteRecordPostgres
import LiteRecordTestSupport
import Testing

// Observation on PostgreSQL: LISTEN/NOTIFY from the triggers LiteRecord installs, one listening
// connection per database, stopped by the last observation.

private struct Score: Model, Equatable {
    var id: Int64?
    var name: String
    var points: Int
    static let schema = Schema<Score>(table: "scores")
}

private struct Team: Model, Equatable {
    var id: Int64?
    var name: String
    static let schema = Schema<Team>(table: "teams")
}

private struct Writer: Model, Equatable {
    var id: Int64?
    var name: String
    static let schema = Schema<Writer>(table: "obs_writers")
}

private struct Novel: Model, Equatable {
    var id: Int64?
    var writerID: Int64
    var title: String
    static let schema = Schema<Novel>(table: "obs_novels")
        .foreignKey(\.writerID, references: Writer.self, onDelete: .cascade)
}

private struct Critique: Model, Equatable {
    var id: Int64?
    var novelID: Int64
    var stars: Int
    static let schema = Schema<Critique>(table: "obs_critiques")
        .foreignKey(\.novelID, references: Novel.self, onDelete: .cascade)
}

/// A writer's tree as text: `Ann: Dune [3, 5]; Emma []`.
private func describe(_ tree: [(Writer, [(Novel, [Critique])])]) -> [String] {
    tree.map { writer, novels in
        "\(writer.name): " + novels.map { "\($0.0.title) \($0.1.map(\.stars))" }.joined(separator: "; ")
    }
}

/// Each novel with its writer, as text: `Dune by Ann`.
private func credits(_ value: [(Novel, Writer?)]) -> [String] {
    value.map { "\($0.0.title) by \($0.1?.name ?? "nobody")" }
}

/// The tables of the current schema that carry LiteRecord's notifying trigger.
private func triggeredTables(_ database: PostgresDatabase) throws -> [String] {
    try database.fetchAll(
        String.self,
        sql: """
            SELECT c.relname FROM pg_trigger AS t JOIN pg_class AS c ON c.oid = t.tgrelid
            WHERE t.tgname = 'literecord_observation' AND c.relnamespace = CAST(current_schema() AS regnamespace)
            ORDER BY 1
            """)
}

/// The values an observation delivered, collected by a task of its own.
private final class Collector<Value: Sendable>: @unchecked Sendable {
    // @unchecked Sendable: `values`, `failure` and `fetches` are only touched under `lock`.
    private let lock = NSLock()
    private var storedValues: [Value] = []
    private var storedFailure: (any Error)?
    private var storedFetches = 0
    private(set) var task: Task<Void, Never>?

    var values: [Value] { lock.withLock { storedValues } }
    var failure: (any Error)? { lock.withLock { storedFailure } }
    /// How many times a counted fetch ran.
    var fetches: Int { lock.withLock { storedFetches } }

    func countFetch() { lock.withLock { storedFetches += 1 } }

    func start(_ observation: DatabaseObservation<Value>) {
        task = Task(executorPreference: DedicatedThreadExecutor.promptTasks) {
            do {
                for try await value in observation { self.lock.withLock { self.storedValues.append(value) } }
            } catch {
                self.lock.withLock { self.storedFailure = error }
            }
        }
    }

    /// Waits (up to 20 s) until the values satisfy `condition`.
    func wait(until condition: ([Value]) -> Bool) async throws -> Bool {
        for _ in 0..<2000 {
            if condition(values) { return true }
            try await Task.sleep(for: .milliseconds(10))
        }
        return condition(values)
    }

    func stop() async {
        task?.cancel()
        await task?.value
    }
}

/// Two databases on one fresh schema: `observed` observes, `writer` writes, as two processes.
private func twoDatabases() throws -> (observed: PostgresDatabase, writer: PostgresDatabase) {
    let databases = try PostgresTestServer.freshDatabases(count: 2)
    return (databases[0], databases[1])
}

/// Whether the server still has the session with this process id.
private func serverHasSession(_ pid: Int32, on database: PostgresDatabase) throws -> Bool {
    try database.fetchOne(Int.self, sql: "SELECT count(*) FROM pg_stat_activity WHERE pid = \(Int(pid))") == 1
}

@Suite(.enabled(if: PostgresTestServer.isAvailable, PostgresTestServer.skipMessage), .offCooperativePool)
struct PostgresObservationTests {
    @Test func aQueryIsDeliveredAtOnceThenAfterCommitsOfAnotherDatabase() async throws {
        let (observed, writer) = try twoDatabases()
        let collector = Collector<[Score]>()
        collector.start(observed.observe(observed.query(Score.self).order { $0.points.descending }))
        #expect(try await collector.wait { $0 == [[]] })
        var alice = Score(id: nil, name: "Alice", points: 10)
        try await writer.insert(&alice)
        #expect(try await collector.wait { $0.last == [alice] })
        try await writer.execute(sql: "UPDATE scores SET points = \(20)")  // raw SQL, as another tool
        alice.points = 20
        #expect(try await collector.wait { $0.last == [alice] })
        try await writer.execute(sql: "TRUNCATE scores")
        #expect(try await collector.wait { $0.last == [] })
        await collector.stop()
        #expect(collector.failure == nil)
        #expect(collector.values.first == [])
    }

    // `insert(contentsOf:)` goes by COPY, which fires the notifying statement trigger once.
    @Test func aBatchInsertedByCopyIsObserved() async throws {
        let (observed, writer) = try twoDatabases()
        let collector = Collector<[Score]>()
        collector.start(observed.observe(observed.query(Score.self).order { $0.points.ascending }))
        #expect(try await collector.wait { $0 == [[]] })
        let scores = (1...200).map { Score(id: nil, name: "S\($0)", points: $0) }
        let inserted = try await writer.insert(contentsOf: scores)
        #expect(try await collector.wait { $0.last == inserted })
        await collector.stop()
        #expect(collector.failure == nil)
    }

    // A fetch that iterates with `forEach` reads through a cursor: the observer learns the
    // tables from the query inside it, and remembers queries only (a cursor's DECLARE, FETCH and
    // CLOSE are named anew at every fetch, and remembering them grew the observer's memory by
    // three statements per fetch for as long as the observation lasted).
    @Test func aFetchThatIteratesWithACursorIsObservedAndOnlyItsQueriesAreRemembered() async throws {
        let (observed, writer) = try twoDatabases()
        let collector = Collector<Int>()
        collector.start(
            observed.observe { tx in
                var total = 0
                // swift-format-ignore: ReplaceForEachWithForLoop
                try tx.query(Score.self).forEach { total += $0.points }  // a cursor, not an array
                return total
            })
        #expect(try await collector.wait { $0 == [0] })
        for points in 1...5 {
            var score = Score(id: nil, name: "S\(points)", points: points)
            try await writer.insert(&score)
            #expect(try await collector.wait { $0.last == (1...points).reduce(0, +) })
        }
        await collector.stop()
        #expect(collector.failure == nil)
        let cursorStatements: [SQL] = [
            "DECLARE literecord_cursor_7 NO SCROLL CURSOR FOR SELECT * FROM \"scores\"",
            "FETCH FORWARD 500 FROM literecord_cursor_7", "CLOSE literecord_cursor_7",
        ]
        #expect(cursorStatements.filter(PostgresObservationHub.isExplained).isEmpty)
        let queries: [SQL] = [
            "SELECT * FROM \"scores\"", " (SELECT 1)", "WITH a AS (SELECT 1) SELECT * FROM a",
        ]
        #expect(queries.allSatisfy(PostgresObservationHub.isExplained))
    }

    @Test func rolledBackWritesAreNotSeen() async throws {
        let (observed, writer) = try twoDatabases()
        try await writer.execute(sql: "CREATE TABLE counters (value bigint)")
        let collector = Collector<Int>()
        collector.start(
            observed.observe { tx in
                collector.countFetch()
                return try tx.fetchOne(Int.self, sql: "SELECT count(*) FROM counters") ?? -1
            })
        #expect(try await collector.wait { $0 == [0] })
        let fetchesBefore = collector.fetches
        struct Abandon: Error {}
        #expect(throws: Abandon.self) {
            try writer.transaction { tx in
                try tx.execute(sql: "INSERT INTO counters VALUES (\(1))")
                throw Abandon()
            }
        }
        // No notification: nothing fetches again (a commit would, within milliseconds).
        try await Task.sleep(for: .milliseconds(500))
        #expect(collector.fetches == fetchesBefore)
        try await writer.execute(sql: "INSERT INTO counters VALUES (\(2))")
        #expect(try await collector.wait { $0 == [0, 1] })
        #expect(collector.fetches > fetchesBefore)
        await collector.stop()
    }

    @Test func aFilteredQueryYieldsOnlyWhenItsResultsChange() async throws {
        let (observed, writer) = try twoDatabases()
        let high = Collector<[Score]>()
        high.start(observed.observe(observed.query(Score.self).where { $0.points > 100 }))
        #expect(try await high.wait { $0 == [[]] })  // its table exists now
        let counted = Collector<[String]>()
        counted.start(
            observed.observe { tx in
                counted.countFetch()
                return try tx.query(Score.self).where { $0.points > 100 }.fetchAll().map(\.name)
            })
        #expect(try await counted.wait { $0 == [[]] })
        let fetchesBefore = counted.fetches
        var low = Score(id: nil, name: "Low", points: 50)
        try await writer.insert(&low)
        // The commit makes the observation fetch again, and the same result is not delivered.
        #expect(try await counted.wait { _ in counted.fetches > fetchesBefore })
        var top = Score(id: nil, name: "Top", points: 150)
        try await writer.insert(&top)
        #expect(try await counted.wait { $0.count == 2 })
        #expect(try await high.wait { $0.count == 2 })
        await high.stop()
        await counted.stop()
        #expect(counted.values == [[], ["Top"]])
        #expect(high.values == [[], [top]])
    }

    @Test func aJoinIsObservedThroughEveryTableItReads() async throws {
        let (observed, writer) = try twoDatabases()
        try await writer.execute(sql: "CREATE TABLE members (team text, person text)")
        try await writer.execute(sql: "CREATE TABLE captains (team text, person text)")
        let collector = Collector<[String]>()
        collector.start(
            observed.observe { tx in
                try tx.fetchAll(
                    String.self,
                    sql: """
                        SELECT m.person FROM members m
                        WHERE EXISTS (SELECT 1 FROM captains c WHERE c.person = m.person) ORDER BY 1
                        """)
            })
        try await writer.execute(sql: "INSERT INTO members VALUES ('red', 'ann'), ('red', 'bob')")
        #expect(try await collector.wait { $0.last == [] })
        try await writer.execute(sql: "INSERT INTO captains VALUES ('red', 'bob')")  // the subquery's table
        #expect(try await collector.wait { $0.last == ["bob"] })
        await collector.stop()
    }

    @Test func cancellingTheLastObservationStopsTheListenerAndItsConnection() async throws {
        let (observed, writer) = try twoDatabases()
        #expect(!observed.observationHub.isListening)
        let collector = Collector<[Score]>()
        collector.start(observed.observe(observed.query(Score.self)))
        #expect(try await collector.wait { $0 == [[]] })
        #expect(observed.observationHub.isListening)
        let pid = try #require(observed.observationHub.listenerBackendPID)
        #expect(try serverHasSession(pid, on: writer))
        await collector.stop()
        // The thread was waited for, and the connection closed, before cancellation returned.
        #expect(!observed.observationHub.isListening)
        #expect(observed.observationHub.listenerBackendPID == nil)
        var sessionIsGone = false
        for _ in 0..<500 where !sessionIsGone {
            sessionIsGone = try !serverHasSession(pid, on: writer)
            if !sessionIsGone { try await Task.sleep(for: .milliseconds(10)) }
        }
        #expect(sessionIsGone)
        // Nothing is delivered after cancellation; a new observation starts a new listener.
        var bob = Score(id: nil, name: "Bob", points: 1)
        try await writer.insert(&bob)
        let again = Collector<[Score]>()
        again.start(observed.observe(observed.query(Score.self)))
        #expect(try await again.wait { $0 == [[bob]] })
        #expect(observed.observationHub.listenerBackendPID != pid)
        await again.stop()
        #expect(collector.values == [[]])
        #expect(!observed.observationHub.isListening)
    }

    @Test func breakingOutOfTheLoopEndsTheObservation() async throws {
        let (observed, _) = try twoDatabases()
        var seen: [[Score]] = []
        for try await scores in observed.observe(observed.query(Score.self)) {
            seen.append(scores)
            break
        }
        #expect(seen == [[]])
        #expect(!observed.observationHub.isListening)
    }

    @Test func manyObserversShareOneListener() async throws {
        let (observed, writer) = try twoDatabases()
        let collectors = (0..<12).map { _ in Collector<[Score]>() }
        for (index, collector) in collectors.enumerated() {
            collector.start(observed.observe(observed.query(Score.self).where { $0.points >= index }))
        }
        for collector in collectors { #expect(try await collector.wait { $0 == [[]] }) }
        let pid = observed.observationHub.listenerBackendPID
        var scores: [Score] = []
        for points in [3, 8] {
            var score = Score(id: nil, name: "p\(points)", points: points)
            try await writer.insert(&score)
            scores.append(score)
        }
        for (index, collector) in collectors.enumerated() {
            let expected = scores.filter { $0.points >= index }
            #expect(try await collector.wait { $0.last == expected }, "observer \(index)")
        }
        #expect(observed.observationHub.listenerBackendPID == pid)
        for collector in collectors.prefix(11) { await collector.stop() }
        #expect(observed.observationHub.isListening)
        await collectors[11].stop()
        #expect(!observed.observationHub.isListening)
        for collector in collectors { #expect(collector.failure == nil) }
    }

    @Test func tablesOfTheSameNameInAnotherSchemaAreNotConfused() async throws {
        let (observed, _) = try twoDatabases()
        let (other, _) = try twoDatabases()
        var mine = Team(id: nil, name: "mine")
        try await observed.insert(&mine)
        let collector = Collector<[Team]>()
        collector.start(
            observed.observe { tx in
                collector.countFetch()
                return try tx.query(Team.self).fetchAll()
            })
        #expect(try await collector.wait { $0 == [[mine]] })
        let fetchesBefore = collector.fetches
        var elsewhere = Team(id: nil, name: "elsewhere")
        try await other.insert(&elsewhere)
        try await Task.sleep(for: .milliseconds(300))
        #expect(collector.fetches == fetchesBefore)
        await collector.stop()
    }

    @Test func aFetchThatFailsEndsTheObservationWithItsError() async throws {
        let (observed, _) = try twoDatabases()
        let collector = Collector<Int>()
        collector.start(
            observed.observe { tx in try tx.fetchOne(Int.self, sql: "SELECT * FROM missing") ?? 0 })
        await collector.task?.value
        let error = try #require(collector.failure as? DatabaseError)
        #expect(error.message.contains("missing"))
        #expect(collector.values.isEmpty)
        #expect(!observed.observationHub.isListening)
    }

    @Test func anIncludingQueryIsObservedThroughEveryTableAtEveryDepth() async throws {
        let (observed, writer) = try twoDatabases()
        let collector = Collector<[(Writer, [(Novel, [Critique])])]>()
        collector.start(
            observed.observe(
                observed.query(Writer.self).order { $0.name.ascending }
                    .including(all: Novel.self) {
                        $0.order { $0.title.ascending }.including(all: Critique.self) {
                            $0.order { $0.stars.ascending }
                        }
                    }))
        #expect(try await collector.wait { $0.count == 1 && $0[0].isEmpty })
        // Before any row reaches the lower levels, every table the tree reads is listened to.
        #expect(try triggeredTables(observed) == ["obs_critiques", "obs_novels", "obs_writers"])
        var ann = Writer(id: nil, name: "Ann")
        try await writer.insert(&ann)
        #expect(try await collector.wait { $0.last.map(describe) == ["Ann: "] })
        var dune = Novel(id: nil, writerID: try #require(ann.id), title: "Dune")
        try await writer.insert(&dune)
        #expect(try await collector.wait { $0.last.map(describe) == ["Ann: Dune []"] })
        var critique = Critique(id: nil, novelID: try #require(dune.id), stars: 4)
        try await writer.insert(&critique)  // the third level
        #expect(try await collector.wait { $0.last.map(describe) == ["Ann: Dune [4]"] })
        try await writer.execute(sql: "UPDATE obs_critiques SET stars = \(5)")  // raw SQL, as another tool
        #expect(try await collector.wait { $0.last.map(describe) == ["Ann: Dune [5]"] })
        let delivered = collector.values.count
        // A table the query does not read gets no trigger, and its changes deliver nothing.
        var team = Team(id: nil, name: "red")
        try await writer.insert(&team)
        try await writer.execute(sql: "UPDATE teams SET name = \("blue")")
        try await Task.sleep(for: .milliseconds(300))
        #expect(collector.values.count == delivered)
        #expect(try triggeredTables(observed) == ["obs_critiques", "obs_novels", "obs_writers"])
        try await writer.execute(sql: "DELETE FROM obs_novels")  // cascades to the critiques
        #expect(try await collector.wait { $0.last.map(describe) == ["Ann: "] })
        await collector.stop()
        #expect(collector.failure == nil)
        #expect(
            collector.values.map(describe) == [
                [], ["Ann: "], ["Ann: Dune []"], ["Ann: Dune [4]"], ["Ann: Dune [5]"], ["Ann: "],
            ])
    }

    @Test func aToOneIncludingQueryIsObservedThroughItsRelatedTable() async throws {
        let (observed, writer) = try twoDatabases()
        var ann = Writer(id: nil, name: "Ann")
        try await writer.insert(&ann)
        var dune = Novel(id: nil, writerID: try #require(ann.id), title: "Dune")
        try await writer.insert(&dune)
        let collector = Collector<[(Novel, Writer?)]>()
        collector.start(observed.observe(observed.query(Novel.self).including(one: Writer.self)))
        #expect(try await collector.wait { $0.last.map(credits) == ["Dune by Ann"] })
        try await writer.execute(sql: "UPDATE obs_writers SET name = \("Anna")")  // only the related table
        #expect(try await collector.wait { $0.last.map(credits) == ["Dune by Anna"] })
        await collector.stop()
        #expect(collector.failure == nil)
        #expect(collector.values.map(credits) == [["Dune by Ann"], ["Dune by Anna"]])
    }
}
