extension Connection {
    /// Runs one SQL statement, or a script of several, on this connection: the same as
    /// ``DatabaseContext/execute(sql:)``, which it shadows for code holding a `Connection`
    /// (a transaction closure's `tx`), so that a statement run in a loop there does not go
    /// through `withConnection` and its closure on every call.
    ///
    /// - Parameter sql: The SQL and its arguments; a script's statements take the arguments in order.
    /// - Returns: The number of rows the statement inserted, updated or deleted, as
    ///   ``DatabaseContext/execute(sql:)`` counts them.
    /// - Throws: As ``DatabaseContext/execute(sql:)``.
    @discardableResult
    public func execute(sql: SQL) throws -> Int {
        try execute(sql)
        return lastExecuteChanges
    }
}
