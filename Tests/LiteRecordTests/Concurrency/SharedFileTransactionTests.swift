import Foundation
import LiteRecord
import LiteRecordTestSupport
import Testing

/// Two `Database` objects on one file, as an app and its extension have: read-modify-write
/// transactions on both must neither fail nor lose an increment.
@Suite("Transactions of two Database objects on one file", .offCooperativePool)
struct SharedFileTransactionTests {
    /// Threads per database, and increments per thread.
    static let threads = 4
    static let increments = 50

    /// Each thread reads the counter, then writes it back plus one, in a default transaction.
    private func increment(_ db: Database, times: Int) -> BackgroundThread<[String]> {
        BackgroundThread {
            var errors: [String] = []
            for _ in 0..<times {
                do {
                    try db.transaction { tx in
                        let value = try tx.firstValue(Int.self, sql: "SELECT value FROM counter") ?? 0
                        try tx.execute(sql: "UPDATE counter SET value = \(value + 1)")
                    }
                } catch {
                    errors.append("\(error)")
                }
            }
            return errors
        }
    }

    @Test func readModifyWriteTransactionsNeverFailNorLoseAnIncrement() throws {
        try withTemporaryDirectory { directory in
            let path = directory.file("shared.sqlite")
            let app = try Database(path: path)
            let appExtension = try Database(path: path)
            try app.execute(
                sql: "CREATE TABLE counter(value INTEGER NOT NULL); INSERT INTO counter VALUES (0)")
            let workers = (0..<Self.threads).flatMap { _ in
                [increment(app, times: Self.increments), increment(appExtension, times: Self.increments)]
            }
            var errors: [String] = []
            for worker in workers {
                let result = try #require(worker.result(waitingAtMost: 120), "a worker hung")
                errors += try result.get()
            }
            #expect(errors == [], "\(errors.count) transactions failed, first: \(errors.first ?? "")")
            let total = 2 * Self.threads * Self.increments
            #expect(try app.firstValue(Int.self, sql: "SELECT value FROM counter") == total - errors.count)
            #expect(errors.isEmpty)
        }
    }

    /// `.deferred` stays available: a read-only transaction takes no write lock, so it runs
    /// while another connection holds one.
    @Test func deferredTransactionsStayAvailable() throws {
        try withTemporaryDirectory { directory in
            let path = directory.file("deferred.sqlite")
            let first = try Database(path: path)
            let second = try Database(path: path)
            try first.execute(sql: "CREATE TABLE t(a); INSERT INTO t VALUES (1)")
            try first.transaction { tx in
                try tx.execute(sql: "INSERT INTO t VALUES (2)")
                let seen = try second.transaction(.deferred) { other in
                    try other.firstValue(Int.self, sql: "SELECT count(*) FROM t")
                }
                #expect(seen == 1)
            }
        }
    }

    /// The default transaction takes the write lock at `BEGIN`.
    @Test func theDefaultTransactionBeginsImmediate() throws {
        let db = try Database(.inMemory)
        let statements = Locked<[String]>([])
        db.trace { sql in statements.withLock { $0.append(sql) } }
        try db.transaction { _ in }
        db.trace(nil)
        #expect(statements.withLock { $0 }.first == "BEGIN IMMEDIATE TRANSACTION")
    }

    /// A read-only database cannot take a write lock: its default transaction is deferred.
    @Test func aReadOnlyDatabaseStillRunsDefaultTransactions() throws {
        try withTemporaryDirectory { directory in
            let path = directory.file("readonly.sqlite")
            let writer = try Database(path: path)
            try writer.execute(sql: "CREATE TABLE t(a); INSERT INTO t VALUES (1)")
            var configuration = Configuration()
            configuration.readOnly = true
            let reader = try Database(path: path, configuration: configuration)
            let count = try reader.transaction { tx in
                try tx.firstValue(Int.self, sql: "SELECT count(*) FROM t")
            }
            #expect(count == 1)
        }
    }
}
