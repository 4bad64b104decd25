import Foundation
import LiteRecord
import LiteRecordTestSupport
import Synchronization
import Testing

@Suite("async/await", .offCooperativePool)
struct AsyncTests {
    @Test func asyncConvenienceCallsReadAndWrite() async throws {
        try await withTemporaryDirectory { dir in
            let db = try Database(path: dir.file("async.sqlite"))
            var note = Note(id: nil, author: 1, body: "hello")
            try await db.insert(&note)
            let id = try #require(note.id)
            note.body = "hello again"
            try await db.update(note)
            #expect(try await db.find(Note.self, id: id) == note)
            #expect(try await db.exists(Note.self, id: id))
            #expect(try await db.count(Note.self) == 1)
            let inserted = try await db.insert(contentsOf: [
                Note(id: nil, author: 2, body: "b"), Note(id: nil, author: 2, body: "c"),
            ])
            let allHaveIDs = inserted.allSatisfy { $0.id != nil }
            #expect(allHaveIDs)
            let byAuthor = db.query(Note.self).where { $0.author == 2 }
            #expect(try await byAuthor.count() == 2)
            #expect(try await byAuthor.fetchAll().map(\.body) == ["b", "c"])
            #expect(try await byAuthor.deleteAll() == 2)
            #expect(try await db.delete(Note.self, id: id))
            #expect(try await db.fetchAll(Note.self).isEmpty)
            try await db.execute(sql: "INSERT INTO notes(author, body) VALUES (\(5), \("raw"))")
            let rows = try await db.fetchAll(Row.self, sql: "SELECT body FROM notes WHERE author = \(5)")
            let bodies = try rows.map { try $0.value(String.self, at: 0) }
            #expect(bodies == ["raw"])
        }
    }

    @Test func asyncReadAndWriteRunTheirClosures() async throws {
        let db = try Database(.inMemory)
        try await db.write { try $0.execute(sql: "CREATE TABLE t(x INTEGER)") }
        let total = try await db.write { connection in
            try connection.execute(sql: "INSERT INTO t VALUES (1), (2), (3)")
            return try connection.firstValue(Int.self, sql: "SELECT sum(x) FROM t")
        }
        #expect(total == 6)
        #expect(try await db.read { try $0.firstValue(Int.self, sql: "SELECT count(*) FROM t") } == 3)
        // A throwing write leaves nothing behind.
        await #expect(throws: CancellationError.self) {
            try await db.write { connection in
                try connection.execute(sql: "INSERT INTO t VALUES (4)")
                throw CancellationError()
            }
        }
        #expect(try await db.read { try $0.firstValue(Int.self, sql: "SELECT count(*) FROM t") } == 3)
    }

    @Test func aTaskCancelledBeforeTheWorkStartsThrowsWithoutRunningIt() async throws {
        let db = try Database(.inMemory)
        try await db.execute(sql: "CREATE TABLE t(x INTEGER)")
        let ran = Flag()
        let task = Task(executorPreference: DedicatedThreadExecutor.promptTasks) {
            withUnsafeCurrentTask { $0?.cancel() }
            try await db.write { connection in
                ran.set()
                try connection.execute(sql: "INSERT INTO t VALUES (1)")
            }
        }
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(!ran.isSet)
        #expect(try await db.read { try $0.firstValue(Int.self, sql: "SELECT count(*) FROM t") } == 0)
    }

    @Test(arguments: [true, false])
    func cancellingATaskInterruptsItsLongQuery(onFile: Bool) async throws {
        try await withTemporaryDirectory { dir in
            let db = onFile ? try Database(path: dir.file("cancel.sqlite")) : try Database(.inMemory)
            let started = Latch()
            let task = Task(executorPreference: DedicatedThreadExecutor.promptTasks) {
                try await db.read { connection in
                    started.open()
                    return try connection.firstValue(
                        Int.self,
                        sql:
                            "WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c) SELECT max(n) FROM c"
                    )
                }
            }
            #expect(await started.opened())
            task.cancel()
            await #expect(throws: CancellationError.self) { try await task.value }
            // The connection is usable afterwards.
            let answer = try await db.read { try $0.firstValue(Int.self, sql: "SELECT 42") }
            #expect(answer == 42)
        }
    }

    /// A cancel that lands between two statements of the work (no statement running, so
    /// `sqlite3_interrupt` alone has nothing to stop) still stops the next one. The query counts
    /// to fifty million, seconds of work: were the cancel lost it would return its count.
    @Test(arguments: [true, false])
    func aCancelBetweenTwoStatementsStopsTheNextOne(inTransaction: Bool) async throws {
        let db = try Database(.inMemory)
        let started = Latch()
        let cancelled = Latch()
        let countingQuery: SQL =
            "WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c WHERE n < 50000000) SELECT max(n) FROM c"
        let task = Task(executorPreference: DedicatedThreadExecutor.promptTasks) {
            let work: @Sendable (Connection) throws -> Int = { connection in
                _ = try connection.firstValue(Int.self, sql: "SELECT 1")
                started.open()
                _ = cancelled.wait()
                return try connection.firstValue(Int.self, sql: countingQuery) ?? 0
            }
            return inTransaction ? try await db.transaction(.immediate, work) : try await db.read(work)
        }
        #expect(await started.opened())
        task.cancel()
        cancelled.open()
        await #expect(throws: CancellationError.self) { try await task.value }
        let answer = try await db.read { try $0.firstValue(Int.self, sql: "SELECT 42") }
        #expect(answer == 42)
    }

    @Test func asyncReadsRunInParallel() async throws {
        try await withTaskExecutorPreference(DedicatedThreadExecutor.promptTasks) {
            try await withTemporaryDirectory { dir in
                let db = try Database(path: dir.file("parallel-async.sqlite"))
                try await db.insert(Note(id: nil, author: 1, body: "x"))
                let bothInside = Latch()
                let firstInside = Latch()
                // The first read waits inside until the second one has also entered: if reads
                // were serialized, the second could never enter and the first would time out.
                async let first: Bool = db.read { _ in
                    firstInside.open()
                    return bothInside.wait()
                }
                #expect(await firstInside.opened())
                let second: Int = try await db.read { connection in
                    bothInside.open()
                    return try connection.count(Note.self)
                }
                #expect(second == 1)
                #expect(try await first)
            }
        }
    }
}
