import Foundation
import LiteRecord
import LiteRecordTestSupport
import Testing

/// An observed query skips the fetch when the rows a commit changed cannot alter its results
/// (see `RowFilter`), and still fetches whenever they can.
@Suite("Observation precision", .offCooperativePool)
struct ObservationPrecisionTests {
    /// The figure: 1,000 commits that change other rows of the table cost no fetch. (Before,
    /// every commit to the table triggered one: 1,001 fetches here, fewer only when commits
    /// came faster than the fetches and were coalesced.)
    @Test func aModelObservedByKeyIsNotFetchedAgainWhenOtherRowsChange() async throws {
        try await withTemporaryDirectory { dir in
            let db = try Database(path: dir.file("key.sqlite"))
            var target = Note(id: nil, author: 1, body: "watched")
            try await db.insert(&target)
            let targetID = try #require(target.id)
            let fetches = Self.countFetches(of: "notes", in: db)
            let values = ObservedValues<[Note]>()
            let token = db.observe(
                db.query(Note.self).where { $0.id == targetID }, onChange: { values.append($0) })
            let sawTarget = await values.waitForBodies { $0 == ["watched"] }
            #expect(sawTarget)
            var others: [Note] = []
            for index in 0..<500 {
                var other = Note(id: nil, author: index, body: "other")
                try await db.insert(&other)
                others.append(other)
            }
            for var other in others {
                other.body = "changed"
                try await db.update(other)
            }
            target.body = "now changed"
            try await db.update(target)
            let sawTargetChange = await values.waitForBodies { $0 == ["now changed"] }
            #expect(sawTargetChange)
            #expect(fetches.count == 2)
            // Deleting another row, then the watched one.
            try await db.delete(others[0])
            try await db.delete(target)
            let sawTargetDeleted = await values.waitForBodies { $0 == [] }
            #expect(sawTargetDeleted)
            #expect(fetches.count == 3)
            token.cancel()
        }
    }

    @Test func rowsEnteringOrLeavingTheConditionFetchOthersDoNot() async throws {
        let db = try Database(.inMemory)
        try await db.migrate(Note.self)
        let fetches = Self.countFetches(of: "notes", in: db)
        let values = ObservedValues<[Note]>()
        let token = db.observe(
            db.query(Note.self).where { $0.author == 7 }.order { $0.id.ascending },
            onChange: { values.append($0) })
        #expect(await values.waitForBodies { $0 == [] })
        var unrelated = Note(id: nil, author: 1, body: "unrelated")
        try await db.insert(&unrelated)  // no fetch: does not match
        var entering = Note(id: nil, author: 7, body: "enters")
        try await db.insert(&entering)  // fetch: matches now
        #expect(await values.waitForBodies { $0 == ["enters"] })
        unrelated.body = "still unrelated"
        try await db.update(unrelated)  // no fetch
        entering.author = 8
        try await db.update(entering)  // fetch: it was in the results
        #expect(await values.waitForBodies { $0 == [] })
        unrelated.author = 7
        try await db.update(unrelated)  // fetch: enters
        #expect(await values.waitForBodies { $0 == ["still unrelated"] })
        // A key changed by SQL, and the row leaving the results: SQLite's update hook names only
        // the new rowid (1000, which does not match), so the probe finds the old one gone.
        try await db.execute(sql: "UPDATE notes SET id = 1000, author = 9 WHERE id = \(unrelated.id)")
        #expect(await values.waitForBodies { $0 == [] })
        #expect(fetches.count == 5)
        token.cancel()
    }

    /// Random writes against an observed query with conditions, order and limit: after each,
    /// the observation ends up with exactly what the query returns (a skipped fetch that
    /// mattered would leave it stale, and the wait would fail).
    @Test func randomWritesNeverLeaveTheObservationStale() async throws {
        var generator = SeededGenerator(seed: 0x0B5E_27A7)
        let db = try Database(.inMemory)
        try await db.migrate(Note.self)
        let query = db.query(Note.self).where { $0.author < 4 && $0.body != "x" }.order { $0.body.ascending }
            .limit(3)
        let values = ObservedValues<[Note]>()
        let token = db.observe(query, onChange: { values.append($0) })
        for step in 0..<300 {
            let ids = try await db.fetchAll(Int64.self, sql: "SELECT id FROM notes")
            let body = ["a", "b", "c", "x", "y"].randomElement(using: &generator) ?? "a"
            let author = Int.random(in: 0..<8, using: &generator)
            switch (Int.random(in: 0..<4, using: &generator), ids.randomElement(using: &generator)) {
            case (0, _), (_, nil):
                try await db.insert(Note(id: nil, author: author, body: body))
            case (1, let id?):
                try await db.execute(sql: "UPDATE notes SET author = \(author) WHERE id = \(id)")
            case (2, let id?):
                try await db.execute(sql: "UPDATE notes SET body = \(body) WHERE id = \(id)")
            case (_, let id?):
                try await db.execute(sql: "DELETE FROM notes WHERE id = \(id)")
            }
            let expected = try await query.fetchAll()
            #expect(await values.waitForLatest { $0 == expected }, "step \(step): expected \(expected)")
        }
        token.cancel()
    }

    /// The `AsyncSequence` form filters rows the same way.
    @Test(.timeLimit(.minutes(10))) func theAsyncSequenceOfAQuerySkipsUnrelatedRowsToo() async throws {
        let db = try Database(.inMemory)
        var watched = Note(id: nil, author: 1, body: "watched")
        try await db.insert(&watched)
        let fetches = Self.countFetches(of: "notes", in: db)
        let watchedID = try #require(watched.id)
        var values = db.observe(db.query(Note.self).where { $0.id == watchedID }).makeAsyncIterator()
        #expect(try await values.next()?.map(\.body) == ["watched"])
        for index in 0..<100 { try await db.insert(Note(id: nil, author: index, body: "other")) }
        watched.body = "changed"
        try await db.update(watched)
        #expect(try await values.next()?.map(\.body) == ["changed"])
        #expect(fetches.count == 2)
    }

    // MARK: - Fixtures

    /// Counts the statements that fetch whole rows of `table` (`SELECT * FROM "table"...`), on
    /// the writer and every reader: the observation's fetches, not its probes.
    static func countFetches(of table: String, in db: Database) -> Counter {
        let fetches = Counter()
        db.trace { sql in
            if sql.hasPrefix("SELECT * FROM \"\(table)\"") { fetches.increment() }
        }
        return fetches
    }
}

extension ObservedValues where Value == [Note] {
    /// Waits until the bodies of the latest notes satisfy `predicate`.
    func waitForBodies(seconds: Double = 60, _ predicate: ([String]) -> Bool) async -> Bool {
        await waitForLatest(seconds: seconds) { (notes: [Note]) in predicate(notes.map(\.body)) }
    }
}
