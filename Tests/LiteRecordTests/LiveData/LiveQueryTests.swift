import Foundation
import LiteRecord
import LiteRecordTestSupport
import Testing

/// A live query on SQLite: its first value at once, fresh after commits from every writer, only
/// when the value changed, in every form. (PostgreSQL: `PostgresLiveQueryParityTests`.)
@Suite struct LiveQueryTests {
    /// The call forms, as written, on an in-memory database and on a file.
    @MainActor @Test(arguments: [false, true])
    func theCallFormsHoldTheCurrentResultAtOnce(onFile: Bool) async throws {
        try await withLiveDirectory { dir in
            let db = onFile ? try Database(path: dir.file("live.sqlite")) : try Database(.inMemory)
            for (name, score) in [("Bea", 20), ("Al", 5), ("Cy", 12)] {
                var player = LivePlayer(name: name, score: score)
                try await db.insert(&player)
            }
            let players = LiveQuery(db.query(LivePlayer.self).order { $0.name })
            let count = LiveQuery(db, initial: 0) { tx in try tx.query(LivePlayer.self).count() }
            #expect(players.value.map(\.name) == ["Al", "Bea", "Cy"])
            #expect(count.value == 3)
            #expect(players.error == nil)
            players.load(db.query(LivePlayer.self).where { $0.score > 10 })
            #expect(players.value.map(\.name).sorted() == ["Bea", "Cy"])

            var dee = LivePlayer(name: "Dee", score: 30)
            try await db.insert(&dee)
            let sawDee = await eventually { players.value.count == 3 && count.value == 4 }
            #expect(sawDee)
            #expect(players.value.map(\.name).sorted() == ["Bea", "Cy", "Dee"])
        }
    }

    @MainActor @Test func aCommitOfAnotherDatabaseOnTheFileIsSeen() async throws {
        try await withLiveDirectory { dir in
            let path = dir.file("two.sqlite")
            let db = try Database(path: path)
            let other = try Database(path: path)
            let players = LiveQuery(db.query(LivePlayer.self))
            #expect(players.value.isEmpty)
            var ann = LivePlayer(name: "Ann", score: 1)
            try await other.insert(&ann)
            let sawAnn = await eventually { players.value.map(\.name) == ["Ann"] }
            #expect(sawAnn)
        }
    }

    @MainActor @Test(.enabled(if: SQLiteShell.path != nil, "the sqlite3 shell is not installed"))
    func theSQLiteShellWritingIsSeen() async throws {
        try await withLiveDirectory { dir in
            let path = dir.file("shell.sqlite")
            try SQLiteShell.write(path, "CREATE TABLE items(id INTEGER PRIMARY KEY, value INTEGER);")
            let db = try Database(path: path)
            let items = LiveQuery(db.query(LiveItem.self).order { $0.value })
            #expect(items.value.isEmpty)
            try SQLiteShell.write(path, "INSERT INTO items(value) VALUES (7), (3);")
            let sawShellRows = await eventually { items.value.map(\.value) == [3, 7] }
            #expect(sawShellRows)
        }
    }

    @MainActor @Test func anotherProcessWritingIsSeen() async throws {
        try await withLiveDirectory { dir in
            let path = dir.file("process.sqlite")
            let db = try Database(path: path)
            try await db.execute(sql: "CREATE TABLE items(id INTEGER PRIMARY KEY, value INTEGER)")
            let total = LiveQuery(db, initial: -1) { tx in try tx.query(LiveItem.self).count() }
            #expect(total.value == 0)
            let child = try HelperProcess(["external-writer", path, "20"])
            #expect(child.waitForExit(seconds: 120) == .exited(0), "\(child.errorText)")
            let sawChildRows = await eventually { total.value == 20 }
            #expect(sawChildRows)
        }
    }

    /// Observation fires only when the value changed: not for a commit to another table, nor to
    /// rows the query cannot match, nor for one that rewrites equal values.
    @MainActor @Test func onlyAChangedValueIsReported() async throws {
        let db = try Database(.inMemory)
        var strong = LivePlayer(name: "Strong", score: 50)
        var weak = LivePlayer(name: "Weak", score: 1)
        try await db.insert(&strong)
        try await db.insert(&weak)
        let stars = LiveQuery(db.query(LivePlayer.self).where { $0.score > 10 })
        let total = LiveQuery(db, initial: 0) { tx in try tx.query(LivePlayer.self).sum { $0.score } ?? 0 }
        let starChanges = ObservedChanges(stars)
        let totalChanges = ObservedChanges(total)

        var trophy = LiveTrophy(title: "Cup")
        try await db.insert(&trophy)  // another table
        weak.name = "Still weak"
        try await db.update(weak)  // a row the stars cannot match (the total does not read names)
        try await db.update(strong)  // equal values rewritten
        try await db.execute(sql: "UPDATE players SET score = score WHERE 1")
        var rising = LivePlayer(name: "Rising", score: 11)
        try await db.insert(&rising)  // the one change both see
        #expect(await eventually { stars.value.count == 2 && total.value == 62 })
        await settle()
        #expect(starChanges.count == 1)
        #expect(totalChanges.count == 1)
        #expect(starChanges.values.last?.map(\.name).sorted() == ["Rising", "Strong"])
    }

    /// A burst of commits gives a few changes, in order, ending at the freshest value.
    @MainActor @Test func aBurstCoalescesAndNeverGoesBack() async throws {
        try await withLiveDirectory { dir in
            let db = try Database(path: dir.file("burst.sqlite"))
            let count = LiveQuery(db, initial: -1) { tx in try tx.query(LivePlayer.self).count() }
            let changes = ObservedChanges(count)
            let writer = BackgroundThread {
                for index in 0..<300 {
                    var player = LivePlayer(name: "p\(index)", score: index)
                    try db.insert(&player)
                }
            }
            let writerEnded = await eventually { writer.result(waitingAtMost: 0) != nil }
            #expect(writerEnded)
            try writer.result(waitingAtMost: 0)?.get()
            let sawAll = await eventually { count.value == 300 }
            #expect(sawAll)
            await settle()
            #expect(changes.values.last == 300)
            #expect(changes.values == changes.values.sorted(), "an older value came after a newer one")
            #expect(changes.count < 300, "\(changes.count) changes for 300 commits: not coalesced")
        }
    }

    /// `load` replaces the query; a slow fetch of the old query never lands after it.
    ///
    /// On a file: the new query's first read runs on a reader while the old fetch holds
    /// another (an in-memory database's single connection would make it wait for the old one).
    @MainActor @Test func aSlowOldFetchNeverOverwritesTheNewQuery() async throws {
        try await withLiveDirectory { dir in
            let db = try Database(path: dir.file("slow.sqlite"))
            let gate = FetchGate()
            let oldFetchEnded = Locked(false)
            let live = LiveQuery(db, initial: -1) { tx in
                gate.pass()
                defer { oldFetchEnded.withLock { $0 = true } }
                return try tx.query(LivePlayer.self).count()
            }
            #expect(live.value == 0)
            oldFetchEnded.withLock { $0 = false }
            gate.close()
            var first = LivePlayer(name: "First", score: 1)
            try await db.insert(&first)
            #expect(gate.waitUntilReached(seconds: 60))
            live.load(db) { tx in try 1000 + tx.query(LiveTrophy.self).count() }
            #expect(live.value == 1000)
            gate.open()
            let oldFetchIsDone = await eventually { oldFetchEnded.withLock { $0 } }
            #expect(oldFetchIsDone)
            await settle()
            #expect(live.value == 1000)
            var trophy = LiveTrophy(title: "Cup")
            try await db.insert(&trophy)
            let sawTrophy = await eventually { live.value == 1001 }
            #expect(sawTrophy)
        }
    }

    /// A failed fetch sets `error` and keeps the last good value; the next good fetch clears it.
    @MainActor @Test func aFailedFetchKeepsTheLastValueUntilTheNextGoodOne() async throws {
        let db = try Database(.inMemory)
        var ann = LivePlayer(name: "Ann", score: 3)
        try await db.insert(&ann)
        let players = LiveQuery(db.query(LivePlayer.self))
        #expect(players.value.map(\.name) == ["Ann"])
        try await db.execute(sql: "INSERT INTO players(name, score) VALUES ('Bad', 'not a number')")
        #expect(await eventually { players.error != nil })
        #expect(players.value.map(\.name) == ["Ann"])
        #expect(String(describing: players.error!).contains("score"))
        try await db.execute(sql: "DELETE FROM players WHERE name = 'Bad'")
        #expect(await eventually { players.error == nil })
        #expect(players.value.map(\.name) == ["Ann"])
        var bo = LivePlayer(name: "Bo", score: 4)
        try await db.insert(&bo)
        #expect(await eventually { players.value.count == 2 })
    }

    @MainActor @Test func aFirstFetchThatFailsReportsAndRecovers() async throws {
        let db = try Database(.inMemory)
        try await db.execute(sql: "CREATE TABLE players(id INTEGER PRIMARY KEY, name TEXT, score)")
        try await db.execute(sql: "INSERT INTO players(name, score) VALUES ('Bad', x'00')")
        let players = LiveQuery(db.query(LivePlayer.self))
        #expect(players.value.isEmpty)
        #expect(players.error != nil)
        try await db.execute(sql: "UPDATE players SET score = 9")
        #expect(await eventually { players.error == nil && players.value.map(\.score) == [9] })
    }

    @MainActor @Test func aQueryBuiltOnATransactionCannotBeFollowed() throws {
        let db = try Database(.inMemory)
        let live = try db.read { tx in LiveQuery(tx.query(LivePlayer.self)) }
        #expect(live.value.isEmpty)
        let error = try #require(live.error as? DatabaseError)
        #expect(error.resultCode == .misuse)
        #expect(error.message.contains("tx.query"))
    }
}
