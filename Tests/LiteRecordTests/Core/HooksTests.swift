import Foundation
import LiteRecord
import Testing

private struct HookFailure: Error {}

@Suite("Trace, update, commit and rollback hooks")
struct HooksTests {
    @Test func traceReportsSQLWithPlaceholdersNotValues() throws {
        let db = try Database(.inMemory)
        try db.execute(sql: "CREATE TABLE t(secret TEXT)")
        let statements = EventLog<String>()
        db.trace { statements.append($0) }

        let secret = "hunter2-password"
        try db.execute(sql: "INSERT INTO t VALUES (\(secret))")
        _ = try db.fetchAll(
            Row.self, sql: "SELECT * FROM t WHERE secret = :s", arguments: ["s": .text(secret)])
        try db.execute(sql: "UPDATE t SET secret = 'x'; DELETE FROM t")
        // A script's statements are reported one by one, as SQLite cut them from the text.
        #expect(
            statements.events.map { $0.trimmingCharacters(in: .whitespaces) } == [
                "INSERT INTO t VALUES (?)",
                "SELECT * FROM t WHERE secret = :s",
                "UPDATE t SET secret = 'x';",
                "DELETE FROM t",
            ])
        #expect(!statements.events.contains { $0.contains(secret) })

        db.trace(nil)
        try db.execute(sql: "INSERT INTO t VALUES ('untraced')")
        #expect(statements.events.count == 4)
        // A new handler replaces the old one.
        let second = EventLog<String>()
        db.trace { statements.append("old: " + $0) }
        db.trace { second.append($0) }
        try db.execute(sql: "SELECT 1")
        #expect(second.events == ["SELECT 1"])
        #expect(statements.events.count == 4)
    }

    @Test func updateHookReportsEachChangedRow() throws {
        let db = try Database(.inMemory)
        try db.execute(sql: "CREATE TABLE \"my table\"(id INTEGER PRIMARY KEY, a)")
        let changes = EventLog<DatabaseChange>()
        db.onUpdate { changes.append($0) }

        try db.execute(sql: "INSERT INTO \"my table\"(id, a) VALUES (5, 'x'), (9, 'y')")
        try db.execute(sql: "UPDATE \"my table\" SET a = 'z' WHERE id = 9")
        try db.execute(sql: "DELETE FROM \"my table\" WHERE id = 5")
        #expect(changes.events.map(\.operation) == [.insert, .insert, .update, .delete])
        #expect(changes.events.map(\.rowID) == [5, 9, 9, 5])
        #expect(changes.events.allSatisfy { $0.tableName == "my table" && $0.databaseName == "main" })

        // Changes are reported as they happen, also when rolled back later.
        try? db.transaction { tx in
            try tx.execute(sql: "INSERT INTO \"my table\"(id) VALUES (77)")
            throw HookFailure()
        }
        #expect(changes.events.last?.rowID == 77)
        #expect(changes.events.last?.operation == .insert)
    }

    @Test func removeHookStopsOnlyThatHandler() throws {
        let db = try Database(.inMemory)
        try db.execute(sql: "CREATE TABLE t(a)")
        let first = EventLog<Int64>()
        let second = EventLog<Int64>()
        let firstRegistration = db.onUpdate { first.append($0.rowID) }
        let secondRegistration = db.onUpdate { second.append($0.rowID) }
        #expect(firstRegistration != secondRegistration)

        try db.execute(sql: "INSERT INTO t VALUES (1)")
        #expect(db.removeHook(firstRegistration))
        #expect(!db.removeHook(firstRegistration))
        try db.execute(sql: "INSERT INTO t VALUES (2)")
        #expect(first.events == [1])
        #expect(second.events == [1, 2])

        #expect(db.removeHook(secondRegistration))
        try db.execute(sql: "INSERT INTO t VALUES (3)")
        #expect(second.events == [1, 2])
    }

    @Test func commitHookFiresAfterTheCommitOnly() throws {
        try withTemporaryDirectory { directory in
            let path = directory.file("commit.sqlite")
            let db = try Database(path: path)
            let observer = try Database(path: path)
            try db.execute(sql: "CREATE TABLE t(a)")
            // What another connection sees when the handler runs: the commit is done by then.
            let seenByObserver = EventLog<Int>()
            let rollbacks = EventLog<Int>()
            let commitRegistration = db.onCommit {
                seenByObserver.append(
                    (try? observer.firstValue(Int.self, sql: "SELECT count(*) FROM t")) ?? -1)
            }
            db.onRollback { rollbacks.append(1) }

            try db.execute(sql: "INSERT INTO t VALUES (1)")  // autocommit
            #expect(seenByObserver.events == [1])
            try db.transaction { tx in
                try tx.execute(sql: "INSERT INTO t VALUES (2)")
                try tx.execute(sql: "INSERT INTO t VALUES (3)")
                #expect(seenByObserver.events == [1])
            }
            #expect(seenByObserver.events == [1, 3])
            try? db.transaction { tx in
                try tx.execute(sql: "INSERT INTO t VALUES (4)")
                throw HookFailure()
            }
            #expect(seenByObserver.events == [1, 3])
            #expect(rollbacks.events.count == 1)
            // A read-only statement commits nothing.
            _ = try db.fetchAll(Row.self, sql: "SELECT * FROM t")
            #expect(seenByObserver.events == [1, 3])

            #expect(db.removeHook(commitRegistration))
            try db.execute(sql: "INSERT INTO t VALUES (5)")
            #expect(seenByObserver.events == [1, 3])
        }
    }

    @Test func commitOfAStatementLeftBeforeItsEndIsReportedAtOnce() throws {
        let db = try Database(.inMemory)
        try db.execute(sql: "CREATE TABLE t(a)")
        let events = EventLog<String>()
        db.onCommit { events.append("commit") }
        // fetchOne steps once: SQLite commits the autocommit write when the statement is reset.
        let row = try db.fetchOne(Row.self, sql: "INSERT INTO t VALUES (1), (2) RETURNING a")
        #expect(row?.values == [1])
        #expect(!db.isInsideTransaction)
        #expect(events.events == ["commit"])
        _ = try db.fetchAll(Row.self, sql: "SELECT * FROM t")  // commits nothing
        #expect(events.events == ["commit"])

        try db.execute(sql: "BEGIN; INSERT INTO t VALUES (3); INSERT INTO t VALUES (4); COMMIT")
        #expect(events.events == ["commit", "commit"])
        #expect(try db.firstValue(Int.self, sql: "SELECT count(*) FROM t") == 4)
    }

    @Test func failedCommitReportsARollbackNotACommit() throws {
        let db = try Database(.inMemory)
        try db.execute(
            sql: """
                CREATE TABLE parent(id INTEGER PRIMARY KEY);
                CREATE TABLE child(parentID REFERENCES parent(id) DEFERRABLE INITIALLY DEFERRED);
                """)
        let events = EventLog<String>()
        db.onCommit { events.append("commit") }
        db.onRollback { events.append("rollback") }
        #expect(throws: DatabaseError.self) {
            try db.transaction { tx in try tx.execute(sql: "INSERT INTO child VALUES (1)") }
        }
        #expect(events.events == ["rollback"])
        try db.transaction { tx in
            try tx.execute(sql: "INSERT INTO parent VALUES (1)")
            try tx.execute(sql: "INSERT INTO child VALUES (1)")
        }
        #expect(events.events == ["rollback", "commit"])
    }

    @Test func rollbackHookFiresOnRollbacksNotOnSavepointRollbacks() throws {
        let db = try Database(.inMemory)
        try db.execute(sql: "CREATE TABLE t(a)")
        let events = EventLog<String>()
        let registration = db.onRollback { events.append("rollback") }
        db.onCommit { events.append("commit") }

        try db.transaction { tx in
            try? tx.savepoint { inner in
                try inner.execute(sql: "INSERT INTO t VALUES (1)")
                throw HookFailure()
            }
        }
        #expect(events.events == ["commit"])
        try db.execute(sql: "BEGIN; INSERT INTO t VALUES (2); ROLLBACK")
        #expect(events.events == ["commit", "rollback"])
        #expect(db.removeHook(registration))
        try db.execute(sql: "BEGIN; INSERT INTO t VALUES (3); ROLLBACK")
        #expect(events.events == ["commit", "rollback"])
        #expect(try db.firstValue(Int.self, sql: "SELECT count(*) FROM t") == 0)
    }

    @Test func hooksRegisteredInsideATransactionOnTheConnection() throws {
        let db = try Database(.inMemory)
        try db.execute(sql: "CREATE TABLE t(a)")
        let events = EventLog<String>()
        try db.transaction { tx in
            tx.onCommit { events.append("commit") }
            tx.onUpdate { events.append("\($0.operation) \($0.tableName) \($0.rowID)") }
            try tx.execute(sql: "INSERT INTO t VALUES ('a')")
            #expect(events.events == ["insert t 1"])
        }
        #expect(events.events == ["insert t 1", "commit"])
    }
}
