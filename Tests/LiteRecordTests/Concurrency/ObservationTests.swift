import Foundation
import LiteRecord
import LiteRecordTestSupport
import Synchronization
import Testing

@Suite("Change observation", .offCooperativePool)
struct ObservationTests {
    @Test(arguments: [true, false])
    func emitsTheInitialValueThenAfterEachCommit(onFile: Bool) async throws {
        try await withTemporaryDirectory { dir in
            let db = onFile ? try Database(path: dir.file("observe.sqlite")) : try Database(.inMemory)
            var values = db.observe(db.query(Note.self).order { $0.id.ascending }).makeAsyncIterator()
            #expect(try await values.next() == [])
            var note = Note(id: nil, author: 1, body: "first")
            try await db.insert(&note)
            #expect(try await values.next()?.map(\.body) == ["first"])
            note.body = "changed"
            try await db.update(note)
            #expect(try await values.next()?.map(\.body) == ["changed"])
            try await db.write { connection in
                try connection.insert(Note(id: nil, author: 2, body: "second"))
                try connection.insert(Note(id: nil, author: 3, body: "third"))
            }
            #expect(try await values.next()?.map(\.body) == ["changed", "second", "third"])
            // DELETE without WHERE, which SQLite would otherwise do without the update hook.
            try await db.execute(sql: "DELETE FROM notes")
            #expect(try await values.next() == [])
        }
    }

    @Test func rolledBackWorkIsNotReportedAndUnrelatedTablesDoNotTrigger() async throws {
        try await withTemporaryDirectory { dir in
            let db = try Database(path: dir.file("rollback.sqlite"))
            try await db.migrate(Note.self)
            try await db.execute(sql: "CREATE TABLE unrelated(x)")
            let fetches = Counter()
            var counts = Self.observeNoteCount(in: db, countingFetchesIn: fetches).makeAsyncIterator()
            #expect(try await counts.next() == 0)
            var changes = db.committedChanges().makeAsyncIterator()

            #expect(throws: CancellationError.self) {
                try db.write { connection in
                    try connection.insert(Note(id: nil, author: 9, body: "rolled back"))
                    throw CancellationError()
                }
            }
            try await db.execute(sql: "INSERT INTO unrelated VALUES (1)")
            var kept = Note(id: nil, author: 1, body: "kept")
            try await db.insert(&kept)

            // Had the rolled-back insert been reported, a fetch would have delivered 0 again.
            #expect(try await counts.next() == 1)
            #expect(fetches.count == 2)
            let unrelated = await changes.next()
            #expect(unrelated?.map(\.tableName) == ["unrelated"])
            let committed = await changes.next()
            #expect(committed?.map(\.operation) == [.insert])
            #expect(committed?.map(\.tableName) == ["notes"])
            let keptRowIDs = kept.id.map { [$0] }
            #expect(committed?.map(\.rowID) == keptRowIDs)
        }
    }

    @Test func burstsOfCommitsAreCoalesced() async throws {
        try await withTemporaryDirectory { dir in
            let db = try Database(path: dir.file("burst.sqlite"))
            try await db.migrate(Note.self)
            let fetches = Counter()
            var counts = Self.observeNoteCount(in: db, countingFetchesIn: fetches).makeAsyncIterator()
            #expect(try await counts.next() == 0)
            for index in 0..<500 {
                try await db.insert(Note(id: nil, author: index, body: "burst"))
            }
            // The freshest value arrives; far fewer fetches than commits ran.
            var latest = 0
            while latest < 500 {
                latest = try #require(try await counts.next())
            }
            #expect(latest == 500)
            #expect(fetches.count < 500)
        }
    }

    @Test func cancellingTheConsumingTaskEndsTheObservation() async throws {
        let db = try Database(.inMemory)
        try await db.migrate(Note.self)
        let fetches = Counter()
        let firstValue = Latch()
        let consumer = Task(executorPreference: DedicatedThreadExecutor.promptTasks) {
            var received: [Int] = []
            for try await count in db.observe({ connection in
                fetches.increment()
                return try connection.count(Note.self)
            }) {
                received.append(count)
                firstValue.open()
            }
            return received
        }
        #expect(await firstValue.opened())
        consumer.cancel()
        let received = try await consumer.value
        #expect(received == [0])
        // Once ended, commits no longer fetch.
        let fetchesAtEnd = fetches.count
        for index in 0..<20 { try await db.insert(Note(id: nil, author: index, body: "after")) }
        #expect(try await db.count(Note.self) == 20)
        #expect(fetches.count == fetchesAtEnd)
    }

    @Test func callbackObservationDeliversValuesUntilCancelled() throws {
        try withTemporaryDirectory { dir in
            let db = try Database(path: dir.file("callback.sqlite"))
            try db.migrate(Note.self)
            let values = EventLog<Int>()
            let received = DispatchSemaphore(value: 0)
            let observation = db.observe({ try $0.count(Note.self) }) { count in
                values.append(count)
                received.signal()
            }
            #expect(received.wait(timeout: .now() + 60) == .success)
            try db.insert(Note(id: nil, author: 1, body: "one"))
            #expect(received.wait(timeout: .now() + 60) == .success)
            #expect(values.events == [0, 1])
            observation.cancel()
            try db.insert(Note(id: nil, author: 2, body: "two"))
            #expect(try db.count(Note.self) == 2)
            #expect(values.events == [0, 1])
        }
    }

    @Test func aFailingFetchEndsTheSequenceWithItsError() async throws {
        let db = try Database(.inMemory)
        var values = db.observe { try $0.fetchAll(Row.self, sql: "SELECT * FROM missing") }
            .makeAsyncIterator()
        await #expect {
            _ = try await values.next()
        } throws: { error in
            (error as? DatabaseError)?.message.contains("no such table: missing") == true
        }
    }

    @Test func committedChangesCallbackReportsRowsOfEachTransaction() throws {
        let db = try Database(.inMemory)
        try db.execute(sql: "CREATE TABLE t(x)")
        let batches = EventLog<[DatabaseChange]>()
        let subscription = db.onCommittedChanges { batches.append($0) }
        try db.write { connection in
            try connection.execute(sql: "INSERT INTO t VALUES (1), (2)")
            try connection.execute(sql: "UPDATE t SET x = 3 WHERE rowid = 2")
        }
        try? db.write { connection in
            try connection.execute(sql: "INSERT INTO t VALUES (9)")
            throw CancellationError()
        }
        try db.execute(sql: "DELETE FROM t")
        #expect(
            batches.events.map { $0.map(\.operation) } == [[.insert, .insert, .update], [.delete, .delete]])
        #expect(batches.events.map { $0.map(\.rowID) } == [[1, 2, 2], [1, 2]])
        subscription.cancel()
        try db.execute(sql: "INSERT INTO t VALUES (1)")
        #expect(batches.events.count == 2)
    }

    /// Observes the number of notes, counting each fetch the observation runs.
    private static func observeNoteCount(in db: Database, countingFetchesIn fetches: Counter)
        -> DatabaseObservation<Int>
    {
        db.observe { connection in
            fetches.increment()
            return try connection.count(Note.self)
        }
    }
}
