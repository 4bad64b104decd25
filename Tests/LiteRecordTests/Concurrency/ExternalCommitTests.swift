import Foundation
import LiteRecord
import LiteRecordTestSupport
import Testing

/// Observations see the commits of other connections to the file: another `Database`, another
/// process, the `sqlite3` shell (see `ExternalCommitWatcher`).
@Suite("External commits reach observations", .offCooperativePool)
struct ExternalCommitTests {
    /// The journal modes a file database can be in: WAL (the default) and a rollback journal.
    static let journalModes: [Configuration.JournalMode] = [.wal, .delete]

    @Test(arguments: journalModes)
    func anotherDatabaseOnTheSameFileIsSeen(journalMode: Configuration.JournalMode) async throws {
        try await withTemporaryDirectory { dir in
            let path = dir.file("two.sqlite")
            let observer = try Self.openItems(path, journalMode: journalMode)
            let writer = try Self.openItems(path, journalMode: journalMode)
            let values = ObservedValues<[Int]>()
            let token = observer.observe(Self.fetchValues, onChange: { values.append($0) })
            let sawEmpty = await values.waitForLatest { $0 == [] }
            #expect(sawEmpty)
            try await writer.execute(sql: "INSERT INTO items(value) VALUES (1)")
            let sawInsert = await values.waitForLatest { $0 == [1] }
            #expect(sawInsert)
            try await writer.write { tx in
                try tx.execute(sql: "INSERT INTO items(value) VALUES (2)")
                try tx.execute(sql: "UPDATE items SET value = 10 WHERE value = 1")
            }
            let sawTransaction = await values.waitForLatest { $0 == [10, 2] }
            #expect(sawTransaction)
            try await writer.execute(sql: "DELETE FROM items")
            let sawDelete = await values.waitForLatest { $0 == [] }
            #expect(sawDelete)
            token.cancel()
        }
    }

    @Test func aChildProcessWritingIsSeen() async throws {
        try await withTemporaryDirectory { dir in
            let path = dir.file("child.sqlite")
            let db = try Self.openItems(path)
            let counts = ObservedValues<Int>()
            let token = db.observe(Self.fetchCount, onChange: { counts.append($0) })
            let sawNone = await counts.waitForLatest { $0 == 0 }
            #expect(sawNone)
            let child = try HelperProcess(["external-writer", path, "20"])
            #expect(child.waitForExit(seconds: 120) == .exited(0), "\(child.errorText)")
            let sawChildRows = await counts.waitForLatest { $0 == 20 }
            #expect(sawChildRows)
            token.cancel()
        }
    }

    @Test(
        .enabled(if: SQLiteShell.path != nil, "the sqlite3 shell is not installed: nothing to run it with"),
        arguments: journalModes)
    func theSQLiteShellWritingIsSeen(journalMode: Configuration.JournalMode) async throws {
        try await withTemporaryDirectory { dir in
            let path = dir.file("shell.sqlite")
            let db = try Self.openItems(path, journalMode: journalMode)
            let values = ObservedValues<[Int]>()
            let token = db.observe(Self.fetchValues, onChange: { values.append($0) })
            let sawEmpty = await values.waitForLatest { $0 == [] }
            #expect(sawEmpty)
            #expect(try SQLiteShell.run("INSERT INTO items(value) VALUES (7);", on: path) == 0)
            let sawInsert = await values.waitForLatest { $0 == [7] }
            #expect(sawInsert)
            #expect(
                try SQLiteShell.run(
                    "BEGIN; UPDATE items SET value = 8; INSERT INTO items(value) VALUES (9); COMMIT;",
                    on: path) == 0)
            let sawTransaction = await values.waitForLatest { $0 == [8, 9] }
            #expect(sawTransaction)
            token.cancel()
        }
    }

    @Test func aBurstOfExternalCommitsEndsWithTheLastValueAndFewFetches() async throws {
        try await withTemporaryDirectory { dir in
            let path = dir.file("burst.sqlite")
            let db = try Self.openItems(path)
            let gate = FetchGate()
            let fetches = Counter()
            let counts = ObservedValues<Int>()
            let token = db.observe(
                { connection in
                    fetches.increment()
                    gate.pass()
                    return try Self.fetchCount(connection)
                }, onChange: { counts.append($0) })
            let sawNone = await counts.waitForLatest { $0 == 0 }
            #expect(sawNone)
            // The first commit starts a fetch, held at the gate while 49 more commit.
            gate.close()
            let child = try HelperProcess(["external-writer", path, "50"])
            #expect(gate.waitUntilReached())
            #expect(child.waitForExit(seconds: 120) == .exited(0), "\(child.errorText)")
            gate.open()
            let sawAll = await counts.waitForLatest { $0 == 50 }
            #expect(sawAll)
            // The initial fetch, the held one, one for the commits that came while it was held,
            // and at most one for a check of the last commit still queued: never one per commit.
            #expect(fetches.count <= 4)
            token.cancel()
        }
    }

    @Test(arguments: journalModes)
    func rolledBackExternalWorkIsNeverReported(journalMode: Configuration.JournalMode) async throws {
        try await withTemporaryDirectory { dir in
            let path = dir.file("rollback.sqlite")
            let observer = try Self.openItems(path, journalMode: journalMode)
            let writer = try Self.openItems(path, journalMode: journalMode)
            let values = ObservedValues<[Int]>()
            let token = observer.observe(Self.fetchValues, onChange: { values.append($0) })
            let sawEmpty = await values.waitForLatest { $0 == [] }
            #expect(sawEmpty)
            for _ in 0..<5 {
                #expect(throws: CancellationError.self) {
                    try writer.write { tx in
                        try tx.execute(
                            sql: """
                                WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 20000)
                                INSERT INTO items(value) SELECT -1 FROM n
                                """)
                        throw CancellationError()
                    }
                }
            }
            try await writer.execute(sql: "INSERT INTO items(value) VALUES (1)")
            let sawInsert = await values.waitForLatest { $0 == [1] }
            #expect(sawInsert)
            let noneRolledBack = values.all.allSatisfy { !$0.contains(-1) }
            #expect(noneRolledBack)
            token.cancel()
        }
    }

    @Test func ownCommitsAreFetchedOnceNotAgainForTheFileEvents() async throws {
        try await withTemporaryDirectory { dir in
            let db = try Self.openItems(dir.file("own.sqlite"))
            let fetches = Counter()
            let counts = ObservedValues<Int>()
            let token = db.observe(
                { connection in
                    fetches.increment()
                    return try Self.fetchCount(connection)
                }, onChange: { counts.append($0) })
            let sawNone = await counts.waitForLatest { $0 == 0 }
            #expect(sawNone)
            try await db.execute(sql: "INSERT INTO items(value) VALUES (1)")
            let sawInsert = await counts.waitForLatest { $0 == 1 }
            #expect(sawInsert)
            // Give the file events of that commit time to be checked (a pause, not a measure):
            // `data_version` on our own writer does not change for our own commits.
            try await Task.sleep(for: .seconds(1.5))
            #expect(fetches.count == 2)
            #expect(counts.all == [0, 1])
            token.cancel()
        }
    }

    #if os(Linux)
        @Test func theLastObservationEndingStopsTheWatcher() async throws {
            try await withTemporaryDirectory { dir in
                let db = try Self.openItems(dir.file("stop.sqlite"))
                #expect(WatcherProbe.inotifyDescriptors(watching: dir.path) == 0)
                let first = ObservedValues<Int>()
                let second = ObservedValues<Int>()
                let firstToken = db.observe(Self.fetchCount, onChange: { first.append($0) })
                let secondToken = db.observe(Self.fetchCount, onChange: { second.append($0) })
                let firstSawNone = await first.waitForLatest { $0 == 0 }
                #expect(firstSawNone)
                let secondSawNone = await second.waitForLatest { $0 == 0 }
                #expect(secondSawNone)
                // One watcher (one thread, one descriptor) for every observation of the file.
                #expect(WatcherProbe.inotifyDescriptors(watching: dir.path) == 1)
                // The thread names itself as it starts, perhaps a moment after the first value.
                let threadStarted = WatcherProbe.waitUntil(1, seconds: 20) {
                    WatcherProbe.watcherThreads(watching: dir.path)
                }
                #expect(threadStarted)
                firstToken.cancel()
                #expect(WatcherProbe.inotifyDescriptors(watching: dir.path) == 1)
                secondToken.cancel()
                // `cancel` returns once the thread has ended and the descriptor is closed.
                #expect(WatcherProbe.inotifyDescriptors(watching: dir.path) == 0)
                #expect(WatcherProbe.watcherThreads(watching: dir.path) == 0)
                // Observing again starts a new watcher, which sees another Database's commit.
                let again = ObservedValues<Int>()
                let againToken = db.observe(Self.fetchCount, onChange: { again.append($0) })
                let againSawNone = await again.waitForLatest { $0 == 0 }
                #expect(againSawNone)
                try await Self.openItems(dir.file("stop.sqlite")).execute(
                    sql: "INSERT INTO items(value) VALUES (1)")
                let againSawInsert = await again.waitForLatest { $0 == 1 }
                #expect(againSawInsert)
                againToken.cancel()
                #expect(WatcherProbe.inotifyDescriptors(watching: dir.path) == 0)
            }
        }

        /// Each watcher thread names itself before anyone looks for it, and is gone once the last
        /// observation is cancelled: checked over many cycles. The waits sleep the task, not the
        /// thread, so that the cooperative pool (two threads on two cores) stays free for the
        /// suites running alongside.
        @Test func everyWatcherThreadIsNamedAndEndsWithItsLastObservation() async throws {
            try await withTemporaryDirectory { dir in
                let db = try Self.openItems(dir.file("join.sqlite"))
                var namedInTime: [Bool] = []
                var endedAfterCancel: [Bool] = []
                for _ in 0..<20 {
                    let counts = ObservedValues<Int>()
                    let token = db.observe(Self.fetchCount, onChange: { counts.append($0) })
                    let sawNone = await counts.waitForLatest { $0 == 0 }
                    #expect(sawNone)
                    namedInTime.append(await Self.watcherThreadCount(in: dir.path, becomes: 1))
                    token.cancel()
                    endedAfterCancel.append(await Self.watcherThreadCount(in: dir.path, becomes: 0))
                }
                let everyThreadNamed = namedInTime.allSatisfy { $0 }
                let everyThreadEnded = endedAfterCancel.allSatisfy { $0 }
                #expect(everyThreadNamed, "\(namedInTime)")
                #expect(everyThreadEnded, "\(endedAfterCancel)")
            }
        }

        /// Whether the number of watcher threads of `directory` reaches `expected` within 5 s.
        private static func watcherThreadCount(in directory: String, becomes expected: Int) async -> Bool {
            for _ in 0..<500 {
                if WatcherProbe.watcherThreads(watching: directory) == expected { return true }
                try? await Task.sleep(for: .milliseconds(10))
            }
            return false
        }

        @Test func releasingTheDatabaseAndItsObservationStopsTheWatcher() async throws {
            try await withTemporaryDirectory { dir in
                weak var released: Database?
                do {
                    let db = try Self.openItems(dir.file("release.sqlite"))
                    released = db
                    let counts = ObservedValues<Int>()
                    let token = db.observe(Self.fetchCount, onChange: { counts.append($0) })
                    let sawNone = await counts.waitForLatest { $0 == 0 }
                    #expect(sawNone)
                    #expect(WatcherProbe.inotifyDescriptors(watching: dir.path) == 1)
                    _ = token
                }
                // The token's release cancels at once; the database goes when the observation's
                // last queued work has run.
                #expect(WatcherProbe.inotifyDescriptors(watching: dir.path) == 0)
                #expect(WatcherProbe.watcherThreads(watching: dir.path) == 0)
                let databaseReleased = WatcherProbe.waitUntil(0) { released == nil ? 0 : 1 }
                #expect(databaseReleased)
            }
        }

        @Test func anAsyncObservationEndingStopsTheWatcher() async throws {
            try await withTemporaryDirectory { dir in
                let db = try Self.openItems(dir.file("async.sqlite"))
                let firstValue = Latch()
                let consumer = Task(executorPreference: DedicatedThreadExecutor.promptTasks) {
                    for try await _ in db.observe(Self.fetchCount) { firstValue.open() }
                }
                #expect(await firstValue.opened())
                #expect(WatcherProbe.inotifyDescriptors(watching: dir.path) == 1)
                consumer.cancel()
                _ = try? await consumer.value
                let descriptorClosed = WatcherProbe.waitUntil(0) {
                    WatcherProbe.inotifyDescriptors(watching: dir.path)
                }
                #expect(descriptorClosed)
                let threadEnded = WatcherProbe.waitUntil(0) {
                    WatcherProbe.watcherThreads(watching: dir.path)
                }
                #expect(threadEnded)
            }
        }

    #endif

    // MARK: - Fixtures

    static func openItems(_ path: String, journalMode: Configuration.JournalMode = .wal) throws -> Database {
        var configuration = Configuration()
        configuration.journalMode = journalMode
        let db = try Database(path: path, configuration: configuration)
        try db.execute(sql: "CREATE TABLE IF NOT EXISTS items(id INTEGER PRIMARY KEY, value INTEGER)")
        return db
    }

    @Sendable static func fetchValues(_ connection: Connection) throws -> [Int] {
        try connection.fetchAll(Int.self, sql: "SELECT value FROM items ORDER BY id")
    }

    @Sendable static func fetchCount(_ connection: Connection) throws -> Int {
        try connection.fetchOne(Int.self, sql: "SELECT count(*) FROM items") ?? 0
    }
}
