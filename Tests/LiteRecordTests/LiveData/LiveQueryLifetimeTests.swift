import Foundation
import LiteRecord
import LiteRecordTestSupport
import Testing

/// A live query's observation ends with it, and pauses while it is inactive.
@Suite struct LiveQueryLifetimeTests {
    /// Create and drop 1,000 live queries on a file: the database's descriptors come back to
    /// where they were, and the file's watcher (its thread and inotify descriptor) ends.
    @MainActor @Test func aThousandReleasedLiveQueriesLeaveNothing() async throws {
        try await withLiveDirectory { dir in
            let db = try Database(path: dir.file("lifetime.sqlite"))
            var ann = LivePlayer(name: "Ann", score: 1)
            try await db.insert(&ann)
            // Warm: the readers the first reads open stay in the pool, as they do for any read.
            for _ in 0..<8 {
                let warm = LiveQuery(db.query(LivePlayer.self))
                #expect(warm.value.count == 1)
            }
            let warmWatcherEnded = WatcherProbe.waitUntil(0) {
                WatcherProbe.watcherThreads(watching: dir.path)
            }
            #expect(warmWatcherEnded)
            // This database's own descriptors and threads: other tests run in the same process
            // meanwhile, so the process's totals move on their own.
            let descriptors = Self.openDescriptors(under: dir.path)
            for index in 0..<1_000 {
                let live = LiveQuery(db.query(LivePlayer.self).where { $0.score > index % 3 - 1 })
                #expect(live.value.isEmpty == (index % 3 == 2))
            }
            let watcherEnded = WatcherProbe.waitUntil(0) { WatcherProbe.watcherThreads(watching: dir.path) }
            #expect(watcherEnded)
            let descriptorsBack = WatcherProbe.waitUntil(descriptors) {
                Self.openDescriptors(under: dir.path)
            }
            #expect(descriptorsBack)
            let inotifyClosed = WatcherProbe.waitUntil(0) {
                WatcherProbe.inotifyDescriptors(watching: dir.path)
            }
            #expect(inotifyClosed)
            // Nothing observes any more: a commit is delivered to no one.
            try await db.execute(sql: "UPDATE players SET score = 2")
        }
    }

    @MainActor @Test func anInactiveQueryFetchesNothingAndResumesFresh() async throws {
        let db = try Database(.inMemory)
        let fetches = Locked(0)
        let count = LiveQuery(db, initial: -1) { tx in
            fetches.withLock { $0 += 1 }
            return try tx.query(LivePlayer.self).count()
        }
        #expect(count.value == 0)
        count.isActive = false
        let fetchesWhenPaused = fetches.withLock { $0 }
        for index in 0..<5 {
            var player = LivePlayer(name: "p\(index)", score: index)
            try await db.insert(&player)
        }
        await settle()
        #expect(count.value == 0)
        #expect(fetches.withLock { $0 } == fetchesWhenPaused)
        count.isActive = true
        #expect(count.value == 5)
        var more = LivePlayer(name: "more", score: 1)
        try await db.insert(&more)
        #expect(await eventually { count.value == 6 })
    }

    @MainActor @Test func aReleasedQueryStopsFetching() async throws {
        let db = try Database(.inMemory)
        let fetches = Locked(0)
        var live: LiveQuery<Int>? = LiveQuery(db, initial: -1) { tx in
            fetches.withLock { $0 += 1 }
            return try tx.query(LivePlayer.self).count()
        }
        #expect(live?.value == 0)
        live = nil
        let before = fetches.withLock { $0 }
        var ann = LivePlayer(name: "Ann", score: 1)
        try await db.insert(&ann)
        await settle()
        #expect(fetches.withLock { $0 } == before)
    }

    /// The descriptors of this process open on files under `directory` (the database's files).
    static func openDescriptors(under directory: String) -> Int {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        return entries.filter { entry in
            let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/" + entry)
            return target?.hasPrefix(directory + "/") == true
        }.count
    }
}
