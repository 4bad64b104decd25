import LiteRecord

// The statements a transaction runs, for the tests that count them (an eager load runs one
// statement per level, whatever the number of rows), as SQLite's public `trace` lets them do.
// Package access: the public API does not grow.

extension PostgresDatabase {
    /// Runs `body` in a transaction and returns, with its result, every statement it ran on
    /// the server, in order.
    ///
    /// - Parameter body: The work; use the transaction it receives.
    /// - Returns: What `body` returns, and the statements.
    /// - Throws: As ``transaction(_:)-6j7fl``.
    package func transactionLoggingStatements<T>(_ body: (PostgresTransaction) throws -> T) throws -> (
        value: T, statements: [SQL]
    ) {
        try transaction { tx in
            let connection = tx.session.connection
            connection.statementLog = []
            defer { connection.statementLog = nil }
            let value = try body(tx)
            return (value, connection.statementLog ?? [])
        }
    }
}
