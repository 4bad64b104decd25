import Foundation
import LiteRecord
import Testing

extension Reliability {
    /// Faults from outside the program: damaged or foreign files, permissions, a full database, an
    /// interrupted statement, a file deleted under an open connection. Each gives a `DatabaseError`
    /// that says what happened, and the data committed before it stays intact (issue 8).
    @Suite("Faults from the file system and the outside world")
    struct FaultTests {
        /// Creates a WAL database at `path` with table `t(a)` holding `rows` rows, and closes it.
        private func makeDatabase(at path: String, rows: Int, payloadBytes: Int = 10) throws {
            let db = try Database(path: path)
            try db.execute(sql: "CREATE TABLE t(a TEXT)")
            try db.transaction { tx in
                for index in 0..<rows {
                    try tx.execute(
                        sql:
                            "INSERT INTO t VALUES (\(String(repeating: "x", count: payloadBytes) + "\(index)"))"
                    )
                }
            }
        }

        private func fileBytes(_ path: String) throws -> Data {
            try Data(contentsOf: URL(fileURLWithPath: path))
        }

        private func sidecarFiles(of path: String) -> [String] {
            ["-wal", "-shm", "-journal"].map { path + $0 }.filter {
                FileManager.default.fileExists(atPath: $0)
            }
        }

        // MARK: - Foreign and damaged files

        /// Files that are not SQLite databases: plain text of any size, and a file that starts
        /// with SQLite's magic string followed by garbage.
        static let foreignFiles: [(name: String, bytes: [UInt8])] = {
            let garbage = (0..<8192).map { UInt8(truncatingIfNeeded: ($0 &* 2_654_435_761) >> 13) }
            return [
                ("short text", Array("hello\n".utf8)),
                ("magic string then garbage", Array("SQLite format 3\0".utf8) + garbage),
            ]
        }()

        @Test(arguments: foreignFiles.indices)
        func fileThatIsNotADatabaseFailsClearlyAndIsLeftAlone(index: Int) throws {
            let (name, bytes) = Self.foreignFiles[index]
            try withTemporaryDirectory { directory in
                let path = directory.file("foreign.sqlite")
                try Data(bytes).write(to: URL(fileURLWithPath: path))

                let error = try #require(throws: DatabaseError.self, "\(name)") { try Database(path: path) }
                #expect(error.resultCode == .notADatabase, "\(name): \(error)")
                #expect(error.message == "cannot open \(path): file is not a database", "\(name)")
                // Not a byte changed, no journal or WAL left behind.
                #expect(try fileBytes(path) == Data(bytes), "\(name)")
                #expect(sidecarFiles(of: path).isEmpty, "\(name)")
            }
        }

        @Test func truncatedDatabaseFailsToOpenWithCorruptAndIsLeftAlone() throws {
            try withTemporaryDirectory { directory in
                let path = directory.file("truncated.sqlite")
                try makeDatabase(at: path, rows: 3000, payloadBytes: 200)
                let whole = try fileBytes(path)
                #expect(whole.count > 100 * 4096)
                let half = whole.prefix(whole.count / 2)
                try half.write(to: URL(fileURLWithPath: path))

                // The header counts more pages than the file holds: SQLite reports corruption at
                // the first read, which opening does, rather than returning part of the rows later.
                for attempt in 1...2 {
                    let error = try #require(throws: DatabaseError.self) { try Database(path: path) }
                    #expect(error.primaryResultCode == .corrupt, "attempt \(attempt): \(error)")
                    #expect(error.message == "cannot open \(path): database disk image is malformed")
                }
                #expect(try fileBytes(path) == half)
            }
        }

        @Test func damagedPagesAreReportedNotSkipped() throws {
            try withTemporaryDirectory { directory in
                let path = directory.file("damaged.sqlite")
                try makeDatabase(at: path, rows: 3000, payloadBytes: 200)
                var bytes = try fileBytes(path)
                let pageSize = 4096
                let pageCount = bytes.count / pageSize
                #expect(pageCount > 100)
                // Ten data pages in the middle become zeros; the size and the header stay right.
                let damaged = (pageCount / 2 * pageSize)..<((pageCount / 2 + 10) * pageSize)
                bytes.replaceSubrange(damaged, with: Data(count: damaged.count))
                try bytes.write(to: URL(fileURLWithPath: path))

                let db = try Database(path: path)
                let scanError = try #require(throws: DatabaseError.self) {
                    try db.fetchAll(String.self, sql: "SELECT a FROM t")
                }
                #expect(scanError.primaryResultCode == .corrupt, "\(scanError)")
                #expect(scanError.message.contains("database disk image is malformed"), "\(scanError)")
                #expect(scanError.sql == "SELECT a FROM t")
                // integrity_check lists the damage, or fails with SQLITE_CORRUPT when it cannot
                // even walk the tree; either way it does not say "ok".
                do {
                    let report = try db.fetchAll(String.self, sql: "PRAGMA integrity_check")
                    #expect(report != ["ok"] && !report.isEmpty, "\(report)")
                } catch let error as DatabaseError {
                    #expect(error.primaryResultCode == .corrupt, "\(error)")
                }

                // A fresh connection sees the same; neither wrote to the damaged file.
                let second = try Database(path: path)
                #expect(throws: DatabaseError.self) {
                    try second.fetchOne(Int.self, sql: "SELECT count(*) FROM t")
                }
                #expect(try fileBytes(path) == bytes)
            }
        }

        // MARK: - Permissions

        /// Runs `LiteRecordTestHelper access-probe` on `path` (as `nobody` when the tests run as
        /// root, since root ignores permissions) and returns its report lines.
        private func probe(_ path: String) throws -> [String] {
            let probe = try HelperProcess(["access-probe", path])
            let exit = probe.waitForExit(seconds: 30)
            #expect(exit == .exited(0), "\(exit?.description ?? "still running"): \(probe.errorText)")
            return probe.outputLines
        }

        private func setPermissions(_ permissions: Int, _ path: String) throws {
            try FileManager.default.setAttributes([.posixPermissions: permissions], ofItemAtPath: path)
        }

        @Test func readOnlyFileOpensReadOnlyAndRefusesWrites() throws {
            try withTemporaryDirectory { directory in
                let path = directory.file("readonly.sqlite")
                try makeDatabase(at: path, rows: 3)
                try setPermissions(0o444, path)
                try setPermissions(0o777, directory.path)  // the WAL index can still be created
                let before = try fileBytes(path)

                #expect(
                    try probe(path) == [
                        "open ok readOnly=true",
                        "read 3",
                        "write error SQLITE_READONLY (8): attempt to write a readonly database",
                    ])
                #expect(try fileBytes(path) == before)
                #expect(try Database(path: path).fetchOne(Int.self, sql: "SELECT count(*) FROM t") == 3)
            }
        }

        @Test func readOnlyDirectoryFailsToOpenAWALDatabaseAndToCreateOne() throws {
            try withTemporaryDirectory { directory in
                let path = directory.file("in-readonly-dir.sqlite")
                try makeDatabase(at: path, rows: 3)
                try setPermissions(0o666, path)  // the file itself is writable
                try setPermissions(0o555, directory.path)
                defer { try? setPermissions(0o755, directory.path) }
                let before = try fileBytes(path)

                // A WAL database needs to create its -wal and -shm files next to it.
                #expect(
                    try probe(path) == [
                        "open error SQLITE_READONLY_DIRECTORY (1544): cannot open \(path): "
                            + "attempt to write a readonly database"
                    ])
                #expect(try fileBytes(path) == before)

                let newPath = directory.file("new.sqlite")
                #expect(
                    try self.probe(newPath).first?.hasPrefix(
                        "open error SQLITE_CANTOPEN (14): cannot open \(newPath)") == true)
                #expect(!FileManager.default.fileExists(atPath: newPath))

                try setPermissions(0o755, directory.path)
                #expect(try Database(path: path).fetchOne(Int.self, sql: "SELECT count(*) FROM t") == 3)
            }
        }

        // MARK: - Full database

        @Test func fullDatabaseRollsBackTheFailingTransactionAndKeepsCommittedRows() throws {
            try withTemporaryDirectory { directory in
                let path = directory.file("full.sqlite")
                try makeDatabase(at: path, rows: 10)
                let db = try Database(path: path)
                let pages = try #require(try db.fetchOne(Int.self, sql: "PRAGMA page_count"))
                // max_page_count belongs to the connection: this one may grow by a few pages only.
                let limit = SQL("PRAGMA max_page_count = \(pages + 3)" as String)  // a PRAGMA binds nothing
                #expect(try db.fetchOne(Int.self, sql: limit) == pages + 3)

                let big = String(repeating: "y", count: 1000)
                let error = try #require(throws: DatabaseError.self) {
                    try db.transaction { tx in
                        for _ in 0..<100 { try tx.execute(sql: "INSERT INTO t VALUES (\(big))") }
                    }
                }
                #expect(error.primaryResultCode == .full, "\(error)")
                #expect(error.message == "database or disk is full")
                #expect(error.sql == "INSERT INTO t VALUES (?)")
                #expect(!db.isInsideTransaction)
                #expect(try db.fetchOne(Int.self, sql: "SELECT count(*) FROM t") == 10)

                // A single statement too big fails alone; a small one still fits afterwards.
                let autocommitError = try #require(throws: DatabaseError.self) {
                    try db.execute(sql: "INSERT INTO t VALUES (\(String(repeating: "z", count: 100_000)))")
                }
                #expect(autocommitError.primaryResultCode == .full)
                try db.execute(sql: "INSERT INTO t VALUES ('small')")

                let fresh = try Database(path: path)
                #expect(try fresh.fetchAll(String.self, sql: "PRAGMA integrity_check") == ["ok"])
                #expect(try fresh.fetchOne(Int.self, sql: "SELECT count(*) FROM t") == 11)
                #expect(try fresh.fetchOne(Int.self, sql: "SELECT count(*) FROM t WHERE a = 'small'") == 1)
            }
        }

        // MARK: - Interrupt

        /// Runs `work` on another thread and interrupts `db` once its trace hook shows a statement
        /// containing `marker` running, until `work` ends; returns the result of `work`.
        private func interrupting<T: Sendable>(
            _ db: Database, marker: String, _ work: @escaping @Sendable () throws -> T
        ) throws -> Result<T, any Error> {
            let started = DispatchSemaphore(value: 0)
            db.trace { sql in if sql.contains(marker) { started.signal() } }
            defer { db.trace(nil) }
            let worker = BackgroundThread(work)
            try #require(started.wait(timeout: .now() + 10) == .success, "the statement never started")
            for _ in 0..<10 {
                db.interrupt()
                if let result = worker.result(waitingAtMost: 2) { return result }
            }
            Issue.record("the statement was not interrupted within 20 s")
            throw CancellationError()
        }

        @Test func interruptedLongWriteLeavesTheFileAsItWas() throws {
            try withTemporaryDirectory { directory in
                let path = directory.file("interrupted.sqlite")
                try makeDatabase(at: path, rows: 5)
                let db = try Database(path: path)
                // Hours of inserting, so only the interrupt ends it.
                let endless: SQL = """
                    INSERT INTO t SELECT 'endless' FROM (WITH RECURSIVE c(x) AS
                    (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 1000000000000) SELECT x FROM c)
                    """
                let result = try interrupting(db, marker: "endless") {
                    try db.transaction { tx in
                        try tx.execute(sql: "INSERT INTO t VALUES ('inside')")
                        try tx.execute(sql: endless)
                    }
                }
                let error = try #require(throws: DatabaseError.self) { try result.get() }
                #expect(error.resultCode == .interrupt)
                #expect(error.message == "interrupted")
                #expect(error.sql?.contains("WITH RECURSIVE") == true)
                #expect(!db.isInsideTransaction)
                #expect(try db.fetchOne(Int.self, sql: "SELECT count(*) FROM t") == 5)

                // A long read is interrupted the same way, and the connection works afterwards.
                let readResult = try interrupting(db, marker: "endless") {
                    try db.fetchOne(
                        Int.self,
                        sql: """
                            WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 1000000000000)
                            SELECT count(*) FROM c WHERE 'endless' <> ''
                            """)
                }
                #expect(throws: DatabaseError.self) { try readResult.get() }
                try db.execute(sql: "INSERT INTO t VALUES ('after')")

                let fresh = try Database(path: path)
                #expect(try fresh.fetchAll(String.self, sql: "PRAGMA integrity_check") == ["ok"])
                #expect(try fresh.fetchOne(Int.self, sql: "SELECT count(*) FROM t") == 6)
                #expect(
                    try fresh.fetchOne(
                        Int.self, sql: "SELECT count(*) FROM t WHERE a IN ('inside', 'endless')")
                        == 0)
            }
        }

        // MARK: - Deleted file

        @Test func writeToADeletedRollbackJournalDatabaseFailsAndReadsStillWork() throws {
            try withTemporaryDirectory { directory in
                let path = directory.file("deleted.sqlite")
                let db = try Database.rollbackJournal(at: path)
                try db.execute(sql: "CREATE TABLE t(a); INSERT INTO t VALUES ('committed')")
                try FileManager.default.removeItem(atPath: path)

                // SQLite refuses to write a file that is no longer where it was opened: its rollback
                // journal would be orphaned, and a crash could then corrupt the database.
                let error = try #require(throws: DatabaseError.self) {
                    try db.execute(sql: "INSERT INTO t VALUES ('lost')")
                }
                #expect(error.resultCode == .readOnlyDatabaseMoved, "\(error)")
                #expect(error.message == "attempt to write a readonly database")
                // The open connection still reads what was committed.
                #expect(try db.fetchAll(String.self, sql: "SELECT a FROM t") == ["committed"])
                #expect(!FileManager.default.fileExists(atPath: path))
            }
        }

        @Test func writeToADeletedWALDatabaseIsNotReported() throws {
            try withTemporaryDirectory { directory in
                let path = directory.file("deleted-wal.sqlite")
                let db = try Database(path: path)  // WAL, the default
                try db.execute(sql: "CREATE TABLE t(a); INSERT INTO t VALUES ('committed')")
                for file in [path] + sidecarFiles(of: path) {
                    try FileManager.default.removeItem(atPath: file)
                }

                // The writer connection still has the deleted file open. (A read through `db`
                // would open a new reader connection, which finds no file.)
                let stillRead = try db.withConnection { try $0.fetchAll(String.self, sql: "SELECT a FROM t") }
                #expect(stillRead == ["committed"])
                // In WAL mode SQLite 3.40 writes into the deleted files without an error (the rows
                // vanish when the connection closes); only rollback-journal modes report
                // SQLITE_READONLY_DBMOVED. Recorded as a known issue, so the test tells when it is fixed.
                withKnownIssue("a write to a deleted WAL database is not reported") {
                    let error = #expect(throws: DatabaseError.self) {
                        try db.execute(sql: "INSERT INTO t VALUES ('lost')")
                    }
                    #expect(error?.resultCode == .readOnlyDatabaseMoved)
                }
                #expect(!FileManager.default.fileExists(atPath: path))
            }
        }
    }
}
