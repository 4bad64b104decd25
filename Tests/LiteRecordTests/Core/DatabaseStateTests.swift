import LiteRecord
import Testing

@Suite("Database state: rowids, change counts, transaction state")
struct DatabaseStateTests {
    @Test func lastInsertRowIDFollowsInserts() throws {
        let db = try Database(.inMemory)
        try db.execute(sql: "CREATE TABLE t(id INTEGER PRIMARY KEY, a)")
        #expect(db.lastInsertRowID == 0)
        try db.execute(sql: "INSERT INTO t(id, a) VALUES (41, 'x')")
        #expect(db.lastInsertRowID == 41)
        try db.execute(sql: "INSERT INTO t(a) VALUES ('y')")
        #expect(db.lastInsertRowID == 42)
        #expect(
            try db.firstValue(String.self, sql: "SELECT a FROM t WHERE id = \(db.lastInsertRowID)") == "y")
        // An update or a failed insert does not change it.
        try db.execute(sql: "UPDATE t SET a = 'z'")
        #expect(throws: DatabaseError.self) { try db.execute(sql: "INSERT INTO t(id) VALUES (41)") }
        #expect(db.lastInsertRowID == 42)

        try db.transaction { tx in
            try tx.execute(sql: "INSERT INTO t(id, a) VALUES (\(Int64.max), 'max')")
            #expect(tx.lastInsertRowID == Int64.max)
        }
        #expect(db.lastInsertRowID == Int64.max)
    }

    @Test func changesCountsRowsOfTheLastStatement() throws {
        let db = try Database(.inMemory)
        try db.execute(sql: "CREATE TABLE t(a); INSERT INTO t VALUES (1), (2), (3), (4), (5)")
        #expect(db.changes == 5)
        try db.execute(sql: "UPDATE t SET a = a * 10 WHERE a > \(2)")
        #expect(db.changes == 3)
        try db.execute(sql: "DELETE FROM t WHERE a IN \(list: [10, 20, 30])")
        #expect(db.changes == 1)
        // A query does not reset it.
        _ = try db.fetchAll(Row.self, sql: "SELECT * FROM t")
        #expect(db.changes == 1)
        try db.execute(sql: "UPDATE t SET a = 0 WHERE a < 0")
        #expect(db.changes == 0)
    }

    @Test func totalChangesAccumulates() throws {
        let db = try Database(.inMemory)
        #expect(db.totalChanges == 0)
        try db.execute(sql: "CREATE TABLE t(a); INSERT INTO t VALUES (1), (2), (3)")
        #expect(db.totalChanges == 3)
        try db.execute(sql: "UPDATE t SET a = 0")
        #expect(db.totalChanges == 6)
        try db.execute(sql: "DELETE FROM t WHERE a = 0")
        #expect(db.totalChanges == 9)
        #expect(db.changes == 3)
    }

    @Test func isInsideTransactionTracksExplicitTransactions() throws {
        let db = try Database(.inMemory)
        try db.execute(sql: "CREATE TABLE t(a)")
        #expect(!db.isInsideTransaction)
        try db.transaction { tx in
            #expect(tx.isInsideTransaction)
            #expect(db.isInsideTransaction)  // same thread: the call joins the transaction
        }
        #expect(!db.isInsideTransaction)

        try db.execute(sql: "BEGIN")
        #expect(db.isInsideTransaction)
        try db.execute(sql: "INSERT INTO t VALUES (1)")
        try db.execute(sql: "ROLLBACK")
        #expect(!db.isInsideTransaction)
        #expect(try db.firstValue(Int.self, sql: "SELECT count(*) FROM t") == 0)

        try db.savepoint("outside") { tx in #expect(tx.isInsideTransaction) }
        #expect(!db.isInsideTransaction)
    }
}
