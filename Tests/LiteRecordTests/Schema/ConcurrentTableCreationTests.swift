import Foundation
import LiteRecord
import LiteRecordTestSupport
import Testing

/// The first use of a model creates its table; when another connection holds the write lock at
/// that moment, the first use waits for it with the busy timeout instead of failing at once
/// with `SQLITE_BUSY` (two processes starting together hit this on their first insert).
@Suite("Creating a model's table while another connection writes", .offCooperativePool)
struct ConcurrentTableCreationTests {
    struct Note: Model, Equatable {
        var id: Int64?
        var text: String
    }

    struct Tag: Model, Equatable {
        var id: Int64?
        var label: String
    }

    /// Holds the write lock of `db` on a thread of its own, signaling `locked` once it has it,
    /// until `release` is signaled or `milliseconds` have passed.
    private func holdWriteLock(
        _ db: Database, milliseconds: Int, locked: DispatchSemaphore,
        release: DispatchSemaphore = DispatchSemaphore(value: 0)
    ) -> BackgroundThread<Void> {
        BackgroundThread {
            try db.transaction(.immediate) { tx in
                try tx.execute(sql: "INSERT INTO other VALUES ('holder')")
                locked.signal()
                _ = release.wait(timeout: .now() + .milliseconds(milliseconds))
            }
        }
    }

    private func makeDatabases(_ directory: TemporaryDirectory) throws -> (holder: Database, user: Database) {
        let path = directory.file("first-use.sqlite")
        let holder = try Database(path: path)
        try holder.execute(sql: "CREATE TABLE other(a)")
        return (holder, try Database(path: path))
    }

    @Test func firstInsertWaitsForTheWriteLock() throws {
        try withTemporaryDirectory { directory in
            let (holder, user) = try makeDatabases(directory)
            let locked = DispatchSemaphore(value: 0)
            let thread = holdWriteLock(holder, milliseconds: 300, locked: locked)
            try #require(locked.wait(timeout: .now() + 10) == .success)

            var note = Note(id: nil, text: "first")
            try user.insert(&note)  // creates the table: waits for the holder, then writes
            try #require(thread.result(waitingAtMost: 10), "the lock holder never finished").get()
            #expect(note.id == 1)
            #expect(try holder.fetchAll(Note.self) == [note])
            #expect(try holder.fetchOne(Int.self, sql: "SELECT count(*) FROM other") == 1)
        }
    }

    @Test func firstBatchInsertWaitsForTheWriteLock() throws {
        try withTemporaryDirectory { directory in
            let (holder, user) = try makeDatabases(directory)
            let locked = DispatchSemaphore(value: 0)
            let thread = holdWriteLock(holder, milliseconds: 300, locked: locked)
            try #require(locked.wait(timeout: .now() + 10) == .success)

            let tags = try user.insert(contentsOf: [Tag(id: nil, label: "a"), Tag(id: nil, label: "b")])
            try #require(thread.result(waitingAtMost: 10), "the lock holder never finished").get()
            #expect(tags.map(\.id) == [1, 2])
            #expect(try holder.fetchAll(Tag.self) == tags)
        }
    }

    @Test func firstReadOfAnExistingTableDoesNotWaitForWriters() throws {
        try withTemporaryDirectory { directory in
            let (holder, user) = try makeDatabases(directory)
            try holder.insert(Note(id: nil, text: "kept"))
            let locked = DispatchSemaphore(value: 0)
            let release = DispatchSemaphore(value: 0)
            let thread = holdWriteLock(holder, milliseconds: 60_000, locked: locked, release: release)
            defer { release.signal() }
            try #require(locked.wait(timeout: .now() + 10) == .success)

            // The table needs nothing, so checking it takes no write lock: WAL readers never wait.
            // No clock: the lock is held until the read has returned, so a read that needed it
            // would fail with SQLITE_BUSY or return only after the holder gave up.
            let texts = try user.fetchAll(Note.self).map(\.text)
            let lockStillHeld = thread.result(waitingAtMost: 0) == nil
            release.signal()
            #expect(texts == ["kept"])
            #expect(lockStillHeld, "the read returned only once the writer had finished")
            try #require(thread.result(waitingAtMost: 10), "the lock holder never finished").get()
        }
    }
}
