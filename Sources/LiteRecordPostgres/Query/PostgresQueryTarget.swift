import LiteRecord

/// Where a PostgreSQL query runs: the ``PostgresDatabase`` it was built on, usable from any
/// thread or task, or the transaction it was built in, usable only inside that closure.
///
/// This is what lets a ``LiteRecord/Query`` built on PostgreSQL be `Sendable` (an `await` on it from the main actor in
/// Swift 6 mode) while `tx.query(...)` keeps working inside a transaction.
struct PostgresQueryTarget: @unchecked Sendable {
    // @unchecked Sendable, and why it is sound: a `PostgresDatabase` is `Sendable`. Any other
    // context (a transaction's session, lent to one thread) is kept with the thread that built
    // the query and handed out only on that thread, so it is never touched from two threads.
    private let stored: any PostgresContext
    /// The thread that built a query on a transaction; `nil` for a database.
    private let thread: UInt?

    init(_ context: any PostgresContext) {
        stored = context
        thread = context is PostgresDatabase ? nil : ThreadIdentity.current
    }

    /// The database, when the query was built on one.
    var database: PostgresDatabase? { stored as? PostgresDatabase }

    /// The database the query was built on, directly or through one of its transactions.
    var owningDatabase: PostgresDatabase? {
        database ?? (stored as? PostgresTransaction)?.session.database
    }

    /// The context to run the query on.
    ///
    /// - Throws: ``LiteRecord/DatabaseError`` with ``LiteRecord/ResultCode/misuse`` when a query
    ///   built on a transaction runs on another thread than that transaction's.
    func context() throws -> any PostgresContext {
        if let thread, thread != ThreadIdentity.current {
            throw DatabaseError(
                backendName: "PostgreSQL",
                resultCode: .misuse,
                message: "a query built on a transaction (tx.query) runs only inside that closure, on its "
                    + "thread; build it with pg.query to run it anywhere")
        }
        return stored
    }
}
