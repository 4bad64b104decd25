import Foundation
import LiteRecord
import Testing

/// The README's "Transactions and savepoints" examples, as written.
@Suite("README: transactions")
struct TransactionsDocumentationTests {
    @Test func transferAndDeferredRead() throws {
        let db = try Database(.inMemory)
        try db.execute(
            sql: """
                CREATE TABLE accounts(id INTEGER PRIMARY KEY, balance INTEGER);
                INSERT INTO accounts VALUES (1, 100), (2, 0)
                """)
        let (amount, from, to) = (30, 1, 2)

        try db.transaction { tx in  // BEGIN IMMEDIATE ... COMMIT
            try tx.execute(sql: "UPDATE accounts SET balance = balance - \(amount) WHERE id = \(from)")
            try tx.execute(sql: "UPDATE accounts SET balance = balance + \(amount) WHERE id = \(to)")
        }  // a throw rolls back and rethrows the same error
        let total = try db.transaction(.deferred) { tx in  // only reads: takes no write lock
            try tx.firstValue(Int.self, sql: "SELECT sum(balance) FROM accounts")
        }

        #expect(total == 100)
        #expect(try db.firstValue(Int.self, sql: "SELECT balance FROM accounts WHERE id = 2") == 30)
    }

    struct Purchase: Model, Equatable {
        var id: Int64?
        var item: String
        var quantity: Int
    }

    /// "On PostgreSQL the closure may run more than once": the effect outside the database runs
    /// after the transaction, once, with what committed.
    @Test func effectsOutsideTheDatabaseRunAfterTheTransaction() throws {
        let db = try Database(.inMemory)
        try db.execute(sql: "CREATE TABLE stock(item TEXT PRIMARY KEY, count INTEGER); INSERT INTO stock VALUES ('book', 5)")
        var confirmations: [Purchase] = []
        func sendConfirmation(for purchase: Purchase) { confirmations.append(purchase) }

        let placed = try db.transaction { tx in     // on PostgreSQL, this may run more than once
            var purchase = Purchase(id: nil, item: "book", quantity: 2)
            try tx.insert(&purchase)
            try tx.execute(sql: "UPDATE stock SET count = count - \(purchase.quantity) WHERE item = \(purchase.item)")
            return purchase                         // no email, network call or counter in here
        }
        sendConfirmation(for: placed)               // after the commit: once, for what committed

        #expect(placed.id != nil)
        #expect(confirmations == [placed])
        #expect(try db.find(Purchase.self, id: placed.id ?? -1) == placed)
        #expect(try db.firstValue(Int.self, sql: "SELECT count FROM stock WHERE item = 'book'") == 3)
    }

    @Test func aTransactionSQLiteRolledBackCommitsNothing() throws {
        let db = try Database(.inMemory)
        try db.execute(
            sql: "CREATE TABLE users(id INTEGER PRIMARY KEY, email TEXT UNIQUE ON CONFLICT ROLLBACK)")
        var reachedCatch = false

        do {
            try db.transaction { tx in
                for email in ["a@x", "b@x", "a@x", "c@x"] {  // email TEXT UNIQUE ON CONFLICT ROLLBACK
                    do {
                        try tx.execute(sql: "INSERT INTO users(email) VALUES (\(email))")
                    } catch {
                        // the second a@x rolls the whole transaction back: c@x is refused, not committed
                    }
                }
            }
        } catch ResultCode.abortRollback {
            // nothing of the closure was committed
            reachedCatch = true
        }

        #expect(reachedCatch)
        #expect(try db.firstValue(Int.self, sql: "SELECT count(*) FROM users") == 0)
    }
}
