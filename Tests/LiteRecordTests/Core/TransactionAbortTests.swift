import Foundation
import LiteRecord
import LiteRecordTestSupport
import Testing

/// A user row of the issue's schema, for the model path.
private struct User: Model, Equatable {
    var id: Int64?
    var email: String

    static let schema = Schema<User>(table: "users")
}

/// Transactions that SQLite itself rolled back while the closure went on: nothing of the
/// closure may commit, every later statement in it fails, and `transaction` throws.
@Suite("Transactions SQLite aborted", .offCooperativePool)
struct TransactionAbortTests {
    static let emails = ["a@x", "b@x", "a@x", "c@x", "d@x"]

    private func makeUsersDatabase(_ onConflict: String = "ROLLBACK") throws -> Database {
        let db = try Database(.inMemory)
        try db.execute(
            sql: SQL(
                "CREATE TABLE users(id INTEGER PRIMARY KEY, email TEXT UNIQUE ON CONFLICT \(onConflict))"
                    as String))
        return db
    }

    private func emails(_ db: Database) throws -> [String] {
        try db.fetchAll(Row.self, sql: "SELECT email FROM users ORDER BY id").map {
            try $0.value(String.self, at: 0)
        }
    }

    /// Inserts the issue's emails one by one, catching each error; returns the errors caught.
    private func insertCatchingErrors(_ tx: Connection) -> [DatabaseError] {
        var errors: [DatabaseError] = []
        for email in Self.emails {
            do {
                try tx.execute(sql: "INSERT INTO users(email) VALUES (\(email))")
            } catch let error as DatabaseError {
                errors.append(error)
            } catch {
                Issue.record("unexpected error \(error)")
            }
        }
        return errors
    }

    /// The database error `body` throws, if any.
    private func databaseError(_ body: () throws -> Void) -> DatabaseError? {
        do {
            try body()
            return nil
        } catch {
            return error as? DatabaseError
        }
    }

    /// Checks the error of a statement refused, or a transaction failed, after SQLite rolled
    /// back: it says so, and names the error that made SQLite roll back.
    private func expectRolledBack(_ error: DatabaseError?, because cause: String) {
        #expect(error?.resultCode == .abortRollback)
        #expect(error?.message.contains("rolled back") == true, "\(String(describing: error))")
        #expect(error?.message.contains(cause) == true, "\(String(describing: error))")
    }

    @Test func onConflictRollbackAbortsTheWholeClosure() throws {
        let db = try makeUsersDatabase()
        try db.execute(sql: "INSERT INTO users(email) VALUES ('kept@x')")
        var caught: [DatabaseError] = []
        let error = #expect(throws: DatabaseError.self) {
            try db.transaction { tx in caught = insertCatchingErrors(tx) }
        }
        expectRolledBack(error, because: "UNIQUE constraint failed: users.email")
        #expect(caught.map(\.resultCode) == [.constraintUnique, .abortRollback, .abortRollback])
        expectRolledBack(caught.last, because: "UNIQUE constraint failed: users.email")
        #expect(caught.last?.sql?.contains("INSERT INTO users") == true)
        // The refusal names the statement that made SQLite roll back, and its code.
        #expect(
            caught.last?.message.hasSuffix(
                "the error was SQLITE_CONSTRAINT_UNIQUE (2067): UNIQUE constraint failed: users.email, "
                    + "in `INSERT INTO users(email) VALUES (?)`") == true,
            "\(String(describing: caught.last))")
        #expect(try emails(db) == ["kept@x"])
        #expect(!db.isInsideTransaction)

        // The connection is usable again once the closure has ended.
        try db.transaction { tx in try tx.execute(sql: "INSERT INTO users(email) VALUES ('next@x')") }
        #expect(try emails(db) == ["kept@x", "next@x"])
    }

    @Test func aPlainUniqueConstraintKeepsTheTransaction() throws {
        let db = try makeUsersDatabase("ABORT")
        var caught: [DatabaseError] = []
        try db.transaction { tx in caught = insertCatchingErrors(tx) }
        #expect(caught.map(\.resultCode) == [.constraintUnique])
        #expect(try emails(db) == ["a@x", "b@x", "c@x", "d@x"])
    }

    @Test func raiseRollbackInATriggerAbortsTheClosure() throws {
        let db = try Database(.inMemory)
        try db.execute(
            sql: """
                CREATE TABLE t(v INTEGER);
                CREATE TRIGGER guard BEFORE INSERT ON t WHEN NEW.v < 0
                BEGIN SELECT RAISE(ROLLBACK, 'negative values are refused'); END;
                """)
        let error = #expect(throws: DatabaseError.self) {
            try db.transaction { tx in
                try tx.execute(sql: "INSERT INTO t VALUES (1)")
                let cause = databaseError { try tx.execute(sql: "INSERT INTO t VALUES (-1)") }
                #expect(cause?.resultCode == .constraintTrigger)
                let refused = databaseError { try tx.execute(sql: "INSERT INTO t VALUES (2)") }
                expectRolledBack(refused, because: "negative values are refused")
            }
        }
        expectRolledBack(error, because: "negative values are refused")
        #expect(try db.firstValue(Int.self, sql: "SELECT count(*) FROM t") == 0)
    }

    /// Every way a statement runs is refused after the abort: raw SQL, a prepared statement,
    /// a model insert, a query, a savepoint, a nested transaction.
    @Test func everyStatementPathIsRefusedAfterTheAbort() throws {
        let db = try makeUsersDatabase()
        try db.execute(sql: "INSERT INTO users(email) VALUES ('a@x')")
        let cause = "UNIQUE constraint failed: users.email"
        _ = try? db.transaction { tx in
            #expect(throws: DatabaseError.self) {
                try tx.execute(sql: "INSERT INTO users(email) VALUES ('a@x')")
            }
            expectRolledBack(
                #expect(throws: DatabaseError.self) {
                    let statement = try tx.makeStatement(sql: "INSERT INTO users(email) VALUES (?)")
                    try statement.bind(["p@x"])
                    try statement.step()
                }, because: cause)
            expectRolledBack(
                #expect(throws: DatabaseError.self) {
                    var user = User(id: nil, email: "m@x")
                    try tx.insert(&user)
                }, because: cause)
            expectRolledBack(
                #expect(throws: DatabaseError.self) { _ = try tx.fetchAll(User.self) }, because: cause)
            expectRolledBack(
                #expect(throws: DatabaseError.self) { _ = try tx.query(User.self).count() }, because: cause)
            expectRolledBack(
                #expect(throws: DatabaseError.self) {
                    try tx.savepoint { sp in try sp.execute(sql: "INSERT INTO users(email) VALUES ('s@x')") }
                }, because: cause)
            expectRolledBack(
                #expect(throws: DatabaseError.self) {
                    try tx.transaction { inner in
                        try inner.execute(sql: "INSERT INTO users(email) VALUES ('t@x')")
                    }
                }, because: cause)
        }
        #expect(try emails(db) == ["a@x"])
        #expect(try db.count(User.self) == 1)
    }

    @Test func anAbortInsideANestedSavepointAbortsTheOuterTransaction() throws {
        let db = try makeUsersDatabase()
        let error = #expect(throws: DatabaseError.self) {
            try db.transaction { tx in
                try tx.execute(sql: "INSERT INTO users(email) VALUES ('outer@x')")
                do {
                    try tx.savepoint { sp in
                        try sp.execute(sql: "INSERT INTO users(email) VALUES ('inner@x')")
                        try sp.savepoint { deeper in
                            _ = insertCatchingErrors(deeper)
                        }
                    }
                    Issue.record("the savepoint did not throw")
                } catch {}
                _ = try? tx.execute(sql: "INSERT INTO users(email) VALUES ('after@x')")
            }
        }
        expectRolledBack(error, because: "UNIQUE constraint failed: users.email")
        #expect(try emails(db) == [])
    }

    @Test func aSavepointOutsideATransactionIsAbortedToo() throws {
        let db = try makeUsersDatabase()
        let error = #expect(throws: DatabaseError.self) {
            try db.savepoint("import") { sp in _ = insertCatchingErrors(sp) }
        }
        expectRolledBack(error, because: "UNIQUE constraint failed: users.email")
        #expect(try emails(db) == [])
    }

    @Test func aModelInsertThatAbortsIsCaughtAndNothingCommits() throws {
        let db = try makeUsersDatabase()
        let error = #expect(throws: DatabaseError.self) {
            try db.transaction { tx in
                for email in Self.emails {
                    var user = User(id: nil, email: email)
                    try? tx.insert(&user)
                }
            }
        }
        expectRolledBack(error, because: "UNIQUE constraint failed: users.email")
        #expect(try emails(db) == [])
    }

    @Test func aFullDatabaseAbortsTheClosure() throws {
        try withTemporaryDirectory { directory in
            let db = try Database(path: directory.file("full.sqlite"))
            try db.execute(sql: "CREATE TABLE t(a)")
            let pages = try #require(try db.firstValue(Int.self, sql: "PRAGMA page_count"))
            try db.execute(sql: SQL("PRAGMA max_page_count = \(pages + 2)" as String))
            let error = #expect(throws: DatabaseError.self) {
                try db.transaction { tx in
                    try tx.execute(sql: "INSERT INTO t VALUES ('small')")
                    let full = databaseError {
                        try tx.execute(sql: "INSERT INTO t VALUES (randomblob(100000))")
                    }
                    #expect(full?.resultCode == .full)
                    _ = try? tx.execute(sql: "INSERT INTO t VALUES ('after')")
                }
            }
            expectRolledBack(error, because: "full")
            #expect(try db.firstValue(Int.self, sql: "SELECT count(*) FROM t") == 0)
        }
    }

    @Test func anInterruptedStatementAbortsTheClosure() throws {
        let db = try Database(.inMemory)
        try db.execute(sql: "CREATE TABLE t(a)")
        let started = DispatchSemaphore(value: 0)
        db.trace { sql in if sql.contains("WITH RECURSIVE") { started.signal() } }
        let worker = BackgroundThread {
            try db.transaction { tx in
                try tx.execute(sql: "INSERT INTO t VALUES ('before')")
                let interrupted = TransactionAbortTests().databaseError {
                    try tx.execute(
                        sql: """
                            INSERT INTO t WITH RECURSIVE c(x) AS
                            (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 1000000000000) SELECT x FROM c
                            """)
                }
                #expect(interrupted?.resultCode == .interrupt)
                _ = try? tx.execute(sql: "INSERT INTO t VALUES ('after')")
            }
        }
        try #require(started.wait(timeout: .now() + 10) == .success, "the statement never started")
        var result: Result<Void, any Error>?
        for _ in 0..<10 where result == nil {
            db.interrupt()
            result = worker.result(waitingAtMost: 2)
        }
        db.trace(nil)
        let error = #expect(throws: DatabaseError.self) { try result?.get() }
        expectRolledBack(error, because: "interrupted")
        #expect(try db.firstValue(Int.self, sql: "SELECT count(*) FROM t") == 0)
    }

    @Test func aMigrationThatAbortsRecordsNothing() throws {
        let db = try makeUsersDatabase()
        var migrator = Migrator()
        migrator.registerMigration("import users") { tx in
            _ = TransactionAbortTests().insertCatchingErrors(tx)
        }
        let error = #expect(throws: MigrationError.self) { try migrator.migrate(db) }
        #expect(error?.isMigrationFailure == true)
        expectRolledBack(error?.underlyingError as? DatabaseError, because: "UNIQUE constraint failed")
        #expect(try emails(db) == [])
        #expect(try migrator.appliedMigrations(in: db) == [])
    }

    @Test func anAsyncWriteThatAbortsCommitsNothing() async throws {
        let db = try makeUsersDatabase()
        await #expect(throws: DatabaseError.self) {
            try await db.write { tx in _ = self.insertCatchingErrors(tx) }
        }
        #expect(try emails(db) == [])
    }
}
