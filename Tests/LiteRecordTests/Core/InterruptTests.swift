import Foundation
import LiteRecord
import LiteRecordTestSupport
import Testing

@Suite("Interrupting a running statement", .offCooperativePool)
struct InterruptTests {
    /// Counts to 10^12: hours of work, so only an interrupt ends it within the test's limits.
    static let endlessQuery: SQL = """
        WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 1000000000000)
        SELECT count(*) FROM c
        """

    /// Runs `work` on another thread and, once `db` reports through its trace hook that the
    /// long query is running, interrupts it until `work` ends; returns the result of `work`.
    ///
    /// The trace hook fires inside the running statement, after SQLite cleared any earlier
    /// interrupt, so the first interrupt is enough; it is repeated only as a safety net, rarely,
    /// because an interrupt landing on the rollback that follows would leave it undone.
    private func interrupting<T: Sendable>(
        _ db: Database, _ work: @escaping @Sendable () throws -> T
    ) throws -> Result<T, any Error> {
        let started = DispatchSemaphore(value: 0)
        db.trace { sql in if sql.contains("WITH RECURSIVE") { started.signal() } }
        defer { db.trace(nil) }
        let worker = BackgroundThread(work)
        try #require(started.wait(timeout: .now() + 10) == .success, "the query never started")
        for _ in 0..<10 {
            db.interrupt()
            if let result = worker.result(waitingAtMost: 2) { return result }
        }
        Issue.record("the query was not interrupted within 20 s")
        throw CancellationError()
    }

    @Test func interruptStopsALongQuery() throws {
        let db = try Database(.inMemory)
        let result = try interrupting(db) {
            try db.firstValue(Int.self, sql: Self.endlessQuery)
        }
        let error = try #require(
            #expect(throws: DatabaseError.self) { try result.get() })
        #expect(error.resultCode == .interrupt)
        #expect(error.message == "interrupted")
        #expect(error.sql?.contains("WITH RECURSIVE") == true)

        // The connection works again, and the same (cached) statement runs when not interrupted.
        #expect(try db.firstValue(Int.self, sql: "SELECT 1 + 1") == 2)
        let short: SQL =
            "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 1000) SELECT count(*) FROM c"
        #expect(try db.firstValue(Int.self, sql: short) == 1000)
    }

    @Test func interruptedTransactionIsRolledBack() throws {
        let db = try Database(.inMemory)
        try db.execute(sql: "CREATE TABLE t(a); INSERT INTO t VALUES ('before')")
        let result = try interrupting(db) {
            try db.transaction { tx in
                try tx.execute(sql: "INSERT INTO t VALUES ('inside')")
                return try tx.firstValue(Int.self, sql: Self.endlessQuery)
            }
        }
        let error = #expect(throws: DatabaseError.self) { try result.get() }
        #expect(error?.resultCode == .interrupt)
        #expect(!db.isInsideTransaction)
        #expect(try db.fetchAll(Row.self, sql: "SELECT a FROM t").map { $0.values[0] } == ["before"])
    }

    @Test func interruptWhileIdleDoesNotAffectTheNextStatement() throws {
        let db = try Database(.inMemory)
        try db.execute(sql: "CREATE TABLE t(a)")
        db.interrupt()
        try db.execute(sql: "INSERT INTO t VALUES (1)")
        #expect(try db.firstValue(Int.self, sql: "SELECT count(*) FROM t") == 1)
    }
}
