import LiteRecord

// Raw SQL off the calling task beyond what every backend offers (`ModelDatabase+Async.swift`
// in LiteRecord): each call runs the synchronous form on a pooled connection, on a thread of
// its own (see `runCancellable`), and cancelling the task cancels the statement on the server,
// which then throws `DatabaseError` with `ResultCode.interrupt`.

extension PostgresDatabase: AsyncContextRunner {
    /// Every async model and SQL operation runs on a thread of its own with a pooled
    /// connection, whatever it reads or writes: PostgreSQL needs no writer of its own.
    package func runOffTask<T: Sendable>(
        _ work: AsyncWork, _ body: @escaping @Sendable (any ModelContext) throws -> T
    ) async throws -> T {
        try await runCancellable { try body($0) }
    }
}

extension PostgresDatabase {
    /// Fetches rows as ``LiteRecord/Row`` values, off the calling task.
    ///
    /// - Parameter sql: The query, with bound interpolation.
    /// - Returns: The rows.
    /// - Throws: As ``PostgresContext/fetchRows(sql:)``; ``LiteRecord/ResultCode/interrupt`` when
    ///   cancelled.
    public func fetchRows(sql: SQL) async throws -> [Row] {
        try await runCancellable { try $0.fetchRows(sql: sql) }
    }
}
