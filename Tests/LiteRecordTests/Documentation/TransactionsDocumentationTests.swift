// The README's "Transactions and savepoints" and "Errors" sections, line for line (see
// ReadmeCodeBlockTests).
import Foundation
import LiteRecord
import Testing

@Suite struct TransactionsDocumentationTests {
    @Test func aTransactionCommitsOrRollsBack() throws {
        let db = try Database(.inMemory)
        try db.execute(sql: "CREATE TABLE accounts(id INTEGER PRIMARY KEY, balance INTEGER CHECK (balance >= 0))")
        try db.execute(sql: "INSERT INTO accounts VALUES (1, 100), (2, 0)")
        let (amount, from, to) = (30, 1, 2)
        try db.transaction { tx in                 // BEGIN DEFERRED ... COMMIT
            try tx.execute(sql: "UPDATE accounts SET balance = balance - \(amount) WHERE id = \(from)")
            try tx.execute(sql: "UPDATE accounts SET balance = balance + \(amount) WHERE id = \(to)")
        }                                          // a throw rolls back and rethrows the same error
        try db.transaction(.immediate) { tx in /* ... */ }   // also .exclusive
        #expect(try db.fetchAll(Int.self, sql: "SELECT balance FROM accounts ORDER BY id") == [70, 30])
        let error = #expect(throws: DatabaseError.self) {
            try db.transaction { tx in
                try tx.execute(sql: "UPDATE accounts SET balance = balance + 500 WHERE id = 2")
                try tx.execute(sql: "UPDATE accounts SET balance = balance - 500 WHERE id = 1")
            }
        }
        #expect(error?.resultCode == .constraintCheck)
        #expect(try db.fetchAll(Int.self, sql: "SELECT balance FROM accounts ORDER BY id") == [70, 30])
    }

    @Test func constraintErrorsAreCaughtByCode() throws {
        let db = try Database(.inMemory)
        try db.execute(sql: "CREATE TABLE players(name TEXT NOT NULL UNIQUE)")
        var branches: [String] = []
        for name in ["Alice", "Alice", nil] as [String?] {
            do {
                try db.execute(sql: "INSERT INTO players(name) VALUES (\(name))")
                branches.append("inserted")
            } catch ResultCode.constraintUnique {
                // the name is taken
                branches.append("unique")
            } catch ResultCode.constraint {
                // another constraint: NOT NULL, CHECK, FOREIGN KEY ...
                branches.append("constraint")
            } catch let error as DatabaseError {
                print(error)   // SQLITE_CONSTRAINT_NOTNULL (1299): NOT NULL constraint failed: players.name — while executing `INSERT ...`
                branches.append("other")
            }
        }
        #expect(branches == ["inserted", "unique", "constraint"])
    }
}
