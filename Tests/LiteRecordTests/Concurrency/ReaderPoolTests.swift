import Foundation
import LiteRecord
import LiteRecordTestSupport
import Testing

@Suite("Readers and the writer", .offCooperativePool)
struct ReaderPoolTests {
    @Test func fileDatabasesInWALModeReadInParallel() throws {
        try withTemporaryDirectory { dir in
            let wal = try Database(path: dir.file("wal.sqlite"))
            #expect(wal.readsInParallel)
            let delete = try Database.rollbackJournal(at: dir.file("delete.sqlite"))
            #expect(!delete.readsInParallel)
            var noReaders = Configuration()
            noReaders.maximumReaderCount = 0
            let none = try Database(path: dir.file("none.sqlite"), configuration: noReaders)
            #expect(!none.readsInParallel)
        }
        #expect(try !Database(.inMemory).readsInParallel)
        #expect(try !Database(.temporary).readsInParallel)
    }

    @Test func aReadOnlyDatabaseReadsOnThePoolAndRefusesWrites() throws {
        try withTemporaryDirectory { dir in
            let path = dir.file("read-only.sqlite")
            do {
                let writer = try Database(path: path)
                try writer.insert(Note(id: nil, author: 1, body: "kept"))
            }
            var configuration = Configuration()
            configuration.readOnly = true
            let db = try Database(path: path, configuration: configuration)
            #expect(db.readsInParallel)
            #expect(try db.fetchAll(Note.self).map(\.body) == ["kept"])
            let readCount = try db.read { try $0.count(Note.self) }
            #expect(readCount == 1)
            #expect {
                try db.insert(Note(id: nil, author: 2, body: "refused"))
            } throws: { error in
                (error as? DatabaseError)?.resultCode.primary == .readOnly
            }
            #expect(try db.count(Note.self) == 1)
        }
    }

    @Test func aReaderNeverCreatesADeletedDatabaseFileAgain() throws {
        try withTemporaryDirectory { dir in
            let path = dir.file("deleted.sqlite")
            let db = try Database(path: path)
            try db.execute(sql: "CREATE TABLE t(x)")
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
            #expect {
                try db.fetchAll(Row.self, sql: "SELECT * FROM t")
            } throws: { error in
                (error as? DatabaseError)?.resultCode.primary == .cannotOpen
            }
            #expect(!FileManager.default.fileExists(atPath: path))
        }
    }

    @Test func aSlowReadBlocksNeitherAnotherReadNorTheWriter() throws {
        try withTemporaryDirectory { dir in
            let db = try Database(path: dir.file("parallel.sqlite"))
            try db.insert(Note(id: nil, author: 1, body: "first"))
            let slowReadStarted = Latch()
            let othersFinished = Latch()
            let slowRead = BackgroundThread { () throws -> (before: Int, after: Int) in
                try db.read { connection in
                    let before = try connection.count(Note.self)
                    slowReadStarted.open()
                    // Holds its reader until the other read and the write are done: if either
                    // waited for this read, the latch would time out.
                    guard othersFinished.wait() else { throw CancellationError() }
                    return (before, try connection.count(Note.self))
                }
            }
            #expect(slowReadStarted.wait())
            let otherRead = BackgroundThread { try db.read { try $0.count(Note.self) } }
            #expect(try otherRead.result(waitingAtMost: 60)?.get() == 1)
            let write = BackgroundThread { try db.insert(Note(id: nil, author: 2, body: "second")) }
            #expect(try write.result(waitingAtMost: 60)?.get() != nil)
            othersFinished.open()
            let counts = try slowRead.result(waitingAtMost: 60)?.get()
            // The slow read kept its snapshot: it did not see the write made meanwhile.
            #expect(counts?.before == 1)
            #expect(counts?.after == 1)
            #expect(try db.count(Note.self) == 2)
        }
    }

    @Test func readsInsideAWriteSeeItsUncommittedChanges() throws {
        try withTemporaryDirectory { dir in
            let db = try Database(path: dir.file("own-writes.sqlite"))
            try db.migrate(Note.self)
            try db.write { connection in
                try connection.insert(Note(id: nil, author: 1, body: "pending"))
                // Through the database, from the writing thread: routed to the writer.
                #expect(try db.count(Note.self) == 1)
                #expect(try db.query(Note.self).fetchAll().map(\.body) == ["pending"])
                let readCount = try db.read { try $0.count(Note.self) }
                #expect(readCount == 1)
                // Another thread sees nothing until the commit.
                let outside = BackgroundThread { try db.count(Note.self) }
                #expect(try outside.result(waitingAtMost: 60)?.get() == 0)
            }
            #expect(try db.count(Note.self) == 1)
        }
    }

    @Test(arguments: [true, false])
    func aReadCannotWrite(onFile: Bool) throws {
        try withTemporaryDirectory { dir in
            let db = onFile ? try Database(path: dir.file("read-only.sqlite")) : try Database(.inMemory)
            try db.execute(sql: "CREATE TABLE t(x)")
            #expect {
                try db.read { try $0.execute(sql: "INSERT INTO t VALUES (1)") }
            } throws: { error in
                (error as? DatabaseError)?.resultCode == .readOnly
            }
            #expect(try db.firstValue(Int.self, sql: "SELECT count(*) FROM t") == 0)
            // The writer is writable again after the read.
            try db.execute(sql: "INSERT INTO t VALUES (2)")
            #expect(try db.firstValue(Int.self, sql: "SELECT count(*) FROM t") == 1)
        }
    }

    @Test func fetchingRowsFromAStatementThatWritesRunsOnTheWriter() throws {
        try withTemporaryDirectory { dir in
            let db = try Database(path: dir.file("returning.sqlite"))
            try db.execute(sql: "CREATE TABLE t(id INTEGER PRIMARY KEY, x TEXT)")
            let rows = try db.fetchAll(
                Row.self, sql: "INSERT INTO t(x) VALUES (\("a")), (\("b")) RETURNING id")
            let ids = try rows.map { try $0.value(Int.self, at: 0) }
            #expect(ids == [1, 2])
            #expect(try db.firstValue(Int.self, sql: "SELECT count(*) FROM t") == 2)
        }
    }

    @Test func pragmasReportTheWritersSettings() throws {
        try withTemporaryDirectory { dir in
            let db = try Database(path: dir.file("pragma.sqlite"))
            try db.execute(sql: "PRAGMA foreign_keys = OFF")
            #expect(try db.firstValue(Int.self, sql: "PRAGMA foreign_keys") == 0)
            try db.execute(sql: "PRAGMA foreign_keys = ON")
            #expect(try db.firstValue(Int.self, sql: "PRAGMA foreign_keys") == 1)
        }
    }

    @Test func readingAModelBeforeItsTableExistsCreatesTheTableOnTheWriter() throws {
        try withTemporaryDirectory { dir in
            let db = try Database(path: dir.file("first-read.sqlite"))
            #expect(try db.fetchAll(Note.self).isEmpty)
            let byAuthor = try db.query(Note.self).where { $0.author == 3 }.count()
            #expect(byAuthor == 0)
            #expect(
                try db.firstValue(String.self, sql: "SELECT name FROM sqlite_master WHERE name = 'notes'")
                    == "notes")
        }
    }

    @Test func aReadClosureDoesNotCreateTables() throws {
        try withTemporaryDirectory { dir in
            let db = try Database(path: dir.file("read-closure.sqlite"))
            // A model never written reads as an empty table, and the read creates nothing.
            let notes = try db.read { try $0.fetchAll(Note.self) }
            #expect(notes == [])
            let tables = try db.fetchOne(
                Int.self, sql: "SELECT count(*) FROM sqlite_master WHERE name = 'notes'")
            #expect(tables == 0)
        }
    }

    @Test func nestedReadsOnOneThreadShareTheirReader() throws {
        try withTemporaryDirectory { dir in
            var configuration = Configuration()
            configuration.maximumReaderCount = 1
            let db = try Database(path: dir.file("nested.sqlite"), configuration: configuration)
            try db.insert(Note(id: nil, author: 1, body: "a"))
            // With one reader, a nested read that took a second one would wait forever.
            let nested = BackgroundThread {
                try db.read { outer in
                    try db.read { _ in try db.count(Note.self) } + outer.count(Note.self)
                }
            }
            #expect(try nested.result(waitingAtMost: 60)?.get() == 2)
        }
    }

    @Test func writesFromManyThreadsAreQueuedNotRefused() throws {
        try withTemporaryDirectory { dir in
            var configuration = Configuration()
            configuration.busyTimeout = .zero  // in-process writers must not rely on it
            let db = try Database(path: dir.file("queued.sqlite"), configuration: configuration)
            try db.migrate(Note.self)
            let writers = (0..<4).map { author in
                BackgroundThread {
                    for index in 0..<100 {
                        try db.write { try $0.insert(Note(id: nil, author: author, body: "\(index)")) }
                    }
                }
            }
            for writer in writers {
                #expect(throws: Never.self) { try writer.result(waitingAtMost: 60)?.get() }
            }
            #expect(try db.count(Note.self) == 400)
        }
    }

    @Test func traceReportsStatementsOfReadersToo() throws {
        try withTemporaryDirectory { dir in
            let db = try Database(path: dir.file("trace.sqlite"))
            try db.migrate(Note.self)
            let log = EventLog<String>()
            db.trace { log.append($0) }
            _ = try db.fetchAll(Note.self)
            let reader = BackgroundThread { try db.read { try $0.count(Note.self) } }
            _ = try reader.result(waitingAtMost: 60)?.get()
            db.trace(nil)
            let noteReads = log.events.filter { $0.contains("FROM \"notes\"") }.count
            #expect(noteReads >= 2)
        }
    }

    @Test func interruptStopsAReadOnAReader() throws {
        try withTemporaryDirectory { dir in
            let db = try Database(path: dir.file("interrupt.sqlite"))
            let started = Latch()
            let endless = BackgroundThread {
                try db.read { connection in
                    started.open()
                    return try connection.firstValue(
                        Int.self,
                        sql:
                            "WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c) SELECT max(n) FROM c"
                    )
                }
            }
            #expect(started.wait())
            var outcome: Result<Int?, any Error>?
            for _ in 0..<100 where outcome == nil {
                db.interrupt()
                outcome = endless.result(waitingAtMost: 0.1)
            }
            #expect(throws: DatabaseError.self) { try outcome?.get() }
            #expect((try? outcome?.get()) == nil)
        }
    }
}
