import Foundation
import LiteRecord
import LiteRecordTestSupport
import Testing

/// An error whose identity the tests check: the transaction must rethrow this very instance.
private final class Marker: Error, Sendable {}

@Suite("Transactions", .offCooperativePool)
struct TransactionTests {
    private func count(_ db: some DatabaseContext, _ table: String = "t") throws -> Int? {
        try db.firstValue(Int.self, sql: "SELECT count(*) FROM \(identifier: table)")
    }

    @Test func commitsWhenTheBodyReturns() throws {
        try withTemporaryDirectory { directory in
            let path = directory.file("commit.sqlite")
            let db = try Database(path: path)
            let observer = try Database(path: path)
            try db.execute(sql: "CREATE TABLE t(a)")
            let result = try db.transaction { tx in
                try tx.execute(sql: "INSERT INTO t VALUES (1), (2)")
                #expect(try count(observer) == 0)  // not visible before the commit
                return "done"
            }
            #expect(result == "done")
            #expect(!db.isInsideTransaction)
            #expect(try count(observer) == 2)
        }
    }

    @Test func rollsBackAndRethrowsTheSameError() throws {
        let db = try Database(.inMemory)
        try db.execute(sql: "CREATE TABLE t(a); INSERT INTO t VALUES ('before')")
        let marker = Marker()
        do {
            try db.transaction { tx in
                try tx.execute(sql: "INSERT INTO t VALUES ('inside')")
                try tx.execute(sql: "DELETE FROM t WHERE a = 'before'")
                throw marker
            }
            Issue.record("the transaction did not throw")
        } catch let error as Marker {
            #expect(error === marker)
        }
        #expect(!db.isInsideTransaction)
        #expect(try db.fetchAll(Row.self, sql: "SELECT a FROM t").map(\.values) == [["before"]])
    }

    @Test func aDatabaseErrorInTheBodyRollsBackAndIsRethrown() throws {
        let db = try Database(.inMemory)
        try db.execute(sql: "CREATE TABLE t(a UNIQUE)")
        let error = #expect(throws: DatabaseError.self) {
            try db.transaction { tx in
                try tx.execute(sql: "INSERT INTO t VALUES (1)")
                try tx.execute(sql: "INSERT INTO t VALUES (1)")
            }
        }
        #expect(error?.resultCode == .constraintUnique)
        #expect(try count(db) == 0)
        #expect(!db.isInsideTransaction)
    }

    @Test(arguments: [TransactionKind.deferred, .immediate, .exclusive])
    func transactionKinds(kind: TransactionKind) throws {
        try withTemporaryDirectory { directory in
            let path = directory.file("kinds.sqlite")
            let db = try Database.rollbackJournal(at: path)
            try db.execute(sql: "CREATE TABLE t(a); INSERT INTO t VALUES (1)")
            var impatient = Configuration()
            impatient.busyTimeout = .zero
            impatient.journalMode = nil
            let other = try Database(path: path, configuration: impatient)
            let statements = EventLog<String>()
            db.trace { statements.append($0) }

            try db.transaction(kind) { tx in
                // Before the body writes anything, another connection can write only into a
                // deferred transaction, and read unless it is exclusive (rollback journal).
                let write = Result { try other.execute(sql: "INSERT INTO t VALUES (2)") }
                let read = Result { try other.firstValue(Int.self, sql: "SELECT count(*) FROM t") }
                switch kind {
                case .deferred:
                    #expect(throws: Never.self) { try write.get() }
                case .immediate, .exclusive:
                    #expect((try? write.get()) == nil)
                    #expect(throws: DatabaseError.self) { try write.get() }
                }
                #expect(((try? read.get()) == nil) == (kind == .exclusive))
                try tx.execute(sql: "INSERT INTO t VALUES (3)")
            }
            #expect(statements.events.first == "BEGIN \(kind.rawValue) TRANSACTION")
            #expect(statements.events.last == "COMMIT TRANSACTION")
            let expected: [DatabaseValue] = kind == .deferred ? [1, 2, 3] : [1, 3]
            let seen = try other.fetchAll(Row.self, sql: "SELECT a FROM t ORDER BY a").map { $0.values[0] }
            #expect(seen == expected)
        }
    }

    @Test func busyErrorOfAnotherConnectionHasTheBusyCode() throws {
        try withTemporaryDirectory { directory in
            let path = directory.file("busy.sqlite")
            let db = try Database(path: path)
            try db.execute(sql: "CREATE TABLE t(a)")
            var impatient = Configuration()
            impatient.busyTimeout = .zero
            let other = try Database(path: path, configuration: impatient)
            try db.transaction(.immediate) { _ in
                let error = #expect(throws: DatabaseError.self) {
                    try other.execute(sql: "INSERT INTO t VALUES (1)")
                }
                #expect(error?.primaryResultCode == .busy)
                #expect(error?.message.contains("database is locked") == true)
            }
        }
    }

    @Test func nestedTransactionBecomesASavepoint() throws {
        let db = try Database(.inMemory)
        try db.execute(sql: "CREATE TABLE t(a)")
        let statements = EventLog<String>()
        db.trace { statements.append($0) }
        try db.transaction { tx in
            try tx.execute(sql: "INSERT INTO t VALUES ('outer 1')")
            let marker = Marker()
            do {
                try tx.transaction { inner in
                    try inner.execute(sql: "INSERT INTO t VALUES ('inner, rolled back')")
                    throw marker
                }
            } catch let error as Marker {
                #expect(error === marker)
            }
            #expect(tx.isInsideTransaction)
            try db.transaction { sameThread in  // through the Database, on the same thread
                try sameThread.execute(sql: "INSERT INTO t VALUES ('inner, kept')")
            }
            try tx.execute(sql: "INSERT INTO t VALUES ('outer 2')")
        }
        #expect(
            try db.fetchAll(Row.self, sql: "SELECT a FROM t ORDER BY rowid").map { $0.values[0] } == [
                "outer 1", "inner, kept", "outer 2",
            ])
        #expect(statements.events.filter { $0.hasPrefix("BEGIN") }.count == 1)
        #expect(statements.events.contains { $0.hasPrefix("SAVEPOINT ") })
        #expect(statements.events.contains { $0.hasPrefix("ROLLBACK TRANSACTION TO SAVEPOINT ") })
    }

    @Test func outerRollbackUndoesCommittedInnerTransactions() throws {
        let db = try Database(.inMemory)
        try db.execute(sql: "CREATE TABLE t(a)")
        #expect(throws: Marker.self) {
            try db.transaction { tx in
                try tx.transaction { inner in try inner.execute(sql: "INSERT INTO t VALUES (1)") }
                try tx.savepoint("s") { inner in try inner.execute(sql: "INSERT INTO t VALUES (2)") }
                #expect(try count(tx) == 2)
                throw Marker()
            }
        }
        #expect(try count(db) == 0)
    }

    @Test func failedCommitRollsBack() throws {
        let db = try Database(.inMemory)
        try db.execute(
            sql: """
                CREATE TABLE parent(id INTEGER PRIMARY KEY);
                CREATE TABLE child(parentID REFERENCES parent(id) DEFERRABLE INITIALLY DEFERRED);
                """)
        let error = #expect(throws: DatabaseError.self) {
            try db.transaction { tx in
                try tx.execute(sql: "INSERT INTO parent VALUES (1)")
                try tx.execute(sql: "INSERT INTO child VALUES (2)")  // checked at COMMIT
            }
        }
        #expect(error?.resultCode == .constraintForeignKey)
        #expect(error?.sql == "COMMIT TRANSACTION")
        #expect(!db.isInsideTransaction)
        #expect(try count(db, "parent") == 0)
        #expect(try count(db, "child") == 0)
    }

    @Test func throwingTransactionLeavesTheFileByteForByte() throws {
        try withTemporaryDirectory { directory in
            let path = directory.file("bytes.sqlite")
            let db = try Database.rollbackJournal(at: path)
            try db.execute(
                sql: """
                    CREATE TABLE t(id INTEGER PRIMARY KEY, payload BLOB);
                    WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 500)
                    INSERT INTO t(payload) SELECT randomblob(1000) FROM n;
                    """)
            let before = try Data(contentsOf: URL(fileURLWithPath: path))

            #expect(throws: Marker.self) {
                try db.transaction { tx in
                    // Enough to spill past the page cache into the file before the rollback.
                    try tx.execute(
                        sql: """
                            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 8000)
                            INSERT INTO t(payload) SELECT randomblob(1000) FROM n;
                            UPDATE t SET payload = zeroblob(10) WHERE id % 2 = 0;
                            DELETE FROM t WHERE id % 3 = 0;
                            CREATE TABLE extra(a); CREATE INDEX t_payload ON t(payload);
                            """)
                    throw Marker()
                }
            }
            let after = try Data(contentsOf: URL(fileURLWithPath: path))
            #expect(after.count == before.count)
            #expect(after == before)
            #expect(try count(db) == 500)
            #expect(try db.firstValue(String.self, sql: "PRAGMA integrity_check") == "ok")
        }
    }

    @Test func sameThreadCallsJoinTheTransactionWithoutDeadlock() throws {
        let db = try Database(.inMemory)
        try db.execute(sql: "CREATE TABLE t(a)")
        let work = BackgroundThread<Bool> {
            do {
                try db.transaction { _ in
                    try db.execute(sql: "INSERT INTO t VALUES (1)")  // the Database, not the connection
                    _ = try db.fetchAll(Row.self, sql: "SELECT * FROM t")
                    throw Marker()
                }
            } catch is Marker {
                return true
            }
            return false
        }
        let result = try #require(work.result(waitingAtMost: 10), "deadlocked")
        #expect(try result.get())
        #expect(try count(db) == 0)  // the insert was part of the rolled-back transaction
    }

    @Test func otherThreadsWaitForTheTransaction() throws {
        let db = try Database(.inMemory)
        try db.execute(sql: "CREATE TABLE t(a)")
        let entered = DispatchSemaphore(value: 0)
        let otherStarted = DispatchSemaphore(value: 0)
        let events = EventLog<String>()

        let holder = BackgroundThread<Void> {
            do {
                try db.transaction { tx in
                    try tx.execute(sql: "INSERT INTO t VALUES ('holder')")
                    entered.signal()
                    _ = otherStarted.wait(timeout: .now() + 10)
                    // Give the other thread time to reach the lock; the test holds without it.
                    Thread.sleep(forTimeInterval: 0.05)
                    events.append("holder sees \(try count(tx) ?? -1) row")
                    throw Marker()
                }
            } catch is Marker {}
        }
        #expect(entered.wait(timeout: .now() + 10) == .success)
        let other = BackgroundThread<Void> {
            otherStarted.signal()
            try db.execute(sql: "INSERT INTO t VALUES ('other')")
            events.append("other done")
        }
        #expect(holder.result(waitingAtMost: 10) != nil)
        let otherResult = try #require(other.result(waitingAtMost: 10), "the other thread never ran")
        try otherResult.get()
        #expect(events.events == ["holder sees 1 row", "other done"])
        // The other thread's write was not part of the rolled-back transaction.
        #expect(try db.fetchAll(Row.self, sql: "SELECT a FROM t").map { $0.values[0] } == ["other"])
    }
}
