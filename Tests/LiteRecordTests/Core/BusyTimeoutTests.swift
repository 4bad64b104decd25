import Foundation
import LiteRecord
import LiteRecordTestSupport
import Testing

@Suite("Busy timeout between two connections", .offCooperativePool)
struct BusyTimeoutTests {
    /// Holds the write lock of `db` on a thread of its own until `release` is signaled
    /// (or 10 s have passed), after inserting one row.
    private func holdWriteLock(
        _ db: Database, locked: DispatchSemaphore, release: DispatchSemaphore
    ) -> BackgroundThread<Void> {
        BackgroundThread {
            try db.transaction(.immediate) { tx in
                try tx.execute(sql: "INSERT INTO t VALUES ('holder')")
                locked.signal()
                _ = release.wait(timeout: .now() + 10)
            }
        }
    }

    @Test func writerFailsWithBusyAfterWaitingTheTimeout() throws {
        try withTemporaryDirectory { directory in
            let path = directory.file("busy.sqlite")
            let first = try Database(path: path)
            try first.execute(sql: "CREATE TABLE t(a)")
            var configuration = Configuration()
            configuration.busyTimeout = .milliseconds(200)
            let second = try Database(path: path, configuration: configuration)
            #expect(try second.firstValue(Int.self, sql: "PRAGMA busy_timeout") == 200)

            let locked = DispatchSemaphore(value: 0)
            let release = DispatchSemaphore(value: 0)
            let holder = holdWriteLock(first, locked: locked, release: release)
            defer { release.signal() }
            try #require(locked.wait(timeout: .now() + 10) == .success)

            let start = ContinuousClock.now
            let error = #expect(throws: DatabaseError.self) {
                try second.execute(sql: "INSERT INTO t VALUES (\("second"))")
            }
            let waited = ContinuousClock.now - start
            #expect(error?.primaryResultCode == .busy)
            #expect(error?.message == "database is locked")
            #expect(error?.sql == "INSERT INTO t VALUES (?)")
            #expect(waited >= .milliseconds(150))
            #expect(waited < .seconds(5))

            release.signal()
            let holderResult = try #require(holder.result(waitingAtMost: 10))
            try holderResult.get()
            // Once the lock is gone the same write succeeds.
            try second.execute(sql: "INSERT INTO t VALUES (\("second"))")
            let values = try first.fetchAll(Row.self, sql: "SELECT a FROM t ORDER BY rowid").map {
                $0.values[0]
            }
            #expect(values == ["holder", "second"])
        }
    }

    @Test func writerSucceedsWhenTheLockIsReleasedDuringTheWait() throws {
        try withTemporaryDirectory { directory in
            let path = directory.file("wait.sqlite")
            let first = try Database(path: path)
            try first.execute(sql: "CREATE TABLE t(a)")
            var configuration = Configuration()
            configuration.busyTimeout = .seconds(10)
            let second = try Database(path: path, configuration: configuration)

            let locked = DispatchSemaphore(value: 0)
            let release = DispatchSemaphore(value: 0)
            let holder = holdWriteLock(first, locked: locked, release: release)
            defer { release.signal() }
            try #require(locked.wait(timeout: .now() + 10) == .success)

            let writeStarted = DispatchSemaphore(value: 0)
            second.trace { sql in if sql.hasPrefix("INSERT") { writeStarted.signal() } }
            let writer = BackgroundThread<Void> {
                try second.execute(sql: "INSERT INTO t VALUES ('second')")
            }
            try #require(writeStarted.wait(timeout: .now() + 10) == .success)
            Thread.sleep(forTimeInterval: 0.1)  // the writer is now waiting on the lock
            release.signal()

            let holderResult = try #require(holder.result(waitingAtMost: 10))
            try holderResult.get()
            let writerResult = try #require(writer.result(waitingAtMost: 15), "the writer never finished")
            try writerResult.get()
            let values = try first.fetchAll(Row.self, sql: "SELECT a FROM t ORDER BY rowid").map {
                $0.values[0]
            }
            #expect(values == ["holder", "second"])
        }
    }

    @Test func zeroTimeoutFailsWithoutWaitingForTheLock() throws {
        try withTemporaryDirectory { directory in
            let path = directory.file("zero.sqlite")
            let first = try Database(path: path)
            try first.execute(sql: "CREATE TABLE t(a)")
            var configuration = Configuration()
            configuration.busyTimeout = .zero
            let second = try Database(path: path, configuration: configuration)
            #expect(try second.firstValue(Int.self, sql: "PRAGMA busy_timeout") == 0)
            try first.transaction(.immediate) { _ throws in
                let error = #expect(throws: DatabaseError.self) {
                    try second.transaction(.immediate) { _ in }
                }
                #expect(error?.primaryResultCode == .busy)
                #expect(error?.sql == "BEGIN IMMEDIATE TRANSACTION")
                #expect(!second.isInsideTransaction)
                // Reading is still possible in WAL mode.
                #expect(try second.firstValue(Int.self, sql: "SELECT count(*) FROM t") == 0)
            }
        }
    }

    /// Connections that open one new file at the same moment all open it: the one switching the
    /// file to WAL while another does the same no longer fails at once with "database is
    /// locked" (SQLite does not call the busy handler there; it failed in about one round in 30
    /// with four threads, and once made two writer processes of `MultiProcessTests` fail).
    @Test func connectionsOpeningOneNewFileTogetherAllOpenIt() throws {
        let threadsPerRound = 4
        let rounds = 200
        try withTemporaryDirectory { directory in
            for round in 1...rounds {
                let path = directory.file("together-\(round).sqlite")
                let start = DispatchGroup()
                start.enter()
                let openers = (1...threadsPerRound).map { opener in
                    BackgroundThread { () throws -> Void in
                        start.wait()
                        let db = try Database(path: path)
                        try db.execute(sql: "CREATE TABLE IF NOT EXISTS openers(round, opener)")
                        try db.execute(sql: "INSERT INTO openers VALUES (\(round), \(opener))")
                    }
                }
                start.leave()
                for (index, opener) in openers.enumerated() {
                    switch opener.result(waitingAtMost: 30) {
                    case .success: break
                    case .failure(let error): Issue.record("round \(round), opener \(index + 1): \(error)")
                    case nil: Issue.record("round \(round), opener \(index + 1) still runs after 30 s")
                    }
                }
                let db = try Database(path: path)
                #expect(
                    try db.fetchAll(Int.self, sql: "SELECT opener FROM openers ORDER BY opener")
                        == Array(1...threadsPerRound))
                #expect(try db.firstValue(String.self, sql: "PRAGMA journal_mode") == "wal")
            }
        }
    }

    /// A file another program is reading in rollback-journal mode opens once that read ends:
    /// switching it to WAL waits for the reader within the busy timeout.
    @Test func openingWaitsForAnotherProgramsReadBeforeSwitchingToWAL() throws {
        try withTemporaryDirectory { directory in
            let path = directory.file("rollback.sqlite")
            let otherProgram = try Database.rollbackJournal(at: path)
            try otherProgram.execute(sql: "CREATE TABLE t(a)")
            try otherProgram.execute(sql: "INSERT INTO t VALUES ('kept')")
            let reading = DispatchSemaphore(value: 0)
            let reader = BackgroundThread {
                try otherProgram.read { connection in
                    _ = try connection.fetchAll(String.self, sql: "SELECT a FROM t")
                    reading.signal()
                    Thread.sleep(forTimeInterval: 0.3)
                }
            }
            try #require(reading.wait(timeout: .now() + 10) == .success)

            let db = try Database(path: path)
            #expect(try db.firstValue(String.self, sql: "PRAGMA journal_mode") == "wal")
            #expect(try db.fetchAll(String.self, sql: "SELECT a FROM t") == ["kept"])
            if case .failure(let error) = reader.result(waitingAtMost: 10) {
                Issue.record("the other program's read failed: \(error)")
            }
        }
    }
}
