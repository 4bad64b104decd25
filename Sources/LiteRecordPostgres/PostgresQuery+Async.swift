import LiteRecord

// A query's operations off the calling task, as on SQLite (`Query+Async.swift`): each runs the
// synchronous form on a pooled connection, on a thread of its own (see `runCancellable`), and
// cancelling the task cancels the statement on the server, which then throws `DatabaseError`
// with `ResultCode.interrupt`. A query built on a transaction runs right there, in its closure.
// The closures that pick a column run on the calling task: the column they build crosses to the
// thread, not the closure.

extension PostgresQuery where M: Sendable {
    /// Fetches every matching row, off the calling task; cancelling the task cancels the query.
    ///
    /// - Returns: The models.
    /// - Throws: As ``fetchAll()``; ``LiteRecord/ResultCode/interrupt`` when cancelled.
    public func fetchAll() async throws -> [M] {
        try await runAsync { try $0.fetchAll() }
    }

    /// Fetches the first matching row, off the calling task.
    ///
    /// - Returns: The first model, or `nil`.
    /// - Throws: As ``fetchOne()``.
    public func fetchOne() async throws -> M? {
        try await runAsync { try $0.fetchOne() }
    }

    /// The first matching model, or `nil`, off the calling task; the same as `fetchOne()`.
    ///
    /// - Returns: The first model, or `nil`.
    /// - Throws: As ``fetchOne()-1s3kc``; ``LiteRecord/ResultCode/interrupt`` when cancelled.
    public func first() async throws -> M? {
        try await runAsync { try $0.first() }
    }

    /// Counts the matching rows, off the calling task.
    ///
    /// - Returns: The number of rows.
    /// - Throws: As ``count()``.
    public func count() async throws -> Int {
        try await runAsync { try $0.count() }
    }

    /// Whether any row matches, off the calling task.
    ///
    /// - Returns: Whether a row matches.
    /// - Throws: As ``exists()``; ``LiteRecord/ResultCode/interrupt`` when cancelled.
    public func exists() async throws -> Bool {
        try await runAsync { try $0.exists() }
    }

    /// Runs the synchronous form off the calling task; a query built on a transaction runs right
    /// there, inside that transaction's closure, on its thread.
    func runAsync<T: Sendable>(_ work: @escaping @Sendable (PostgresQuery) throws -> T) async throws -> T {
        guard let database = target.database else { return try work(self) }
        return try await database.runCancellable { _ in try work(self) }
    }

    /// What a column closure builds, built on the calling task as the synchronous forms build
    /// it (in PostgreSQL's dialect).
    private func built<T>(_ make: (Columns<M>) -> T) -> T {
        SQLDialect.$current.withValue(.postgres) { make(query.backendColumns) }
    }
}

// MARK: - Aggregates

extension PostgresQuery where M: Sendable {
    /// The sum of a numeric column over the matching rows, off the calling task; 0 when none
    /// match.
    ///
    /// - Parameter column: `{ $0.score }`.
    /// - Returns: The sum, of the column's type.
    /// - Throws: As the synchronous `sum(_:)`; ``LiteRecord/ResultCode/interrupt`` when
    ///   cancelled.
    public func sum<Value: Numeric & Decodable & Sendable>(
        _ column: @Sendable (Columns<M>) -> Column<Value>
    ) async throws -> Value {
        let selected = built(column)
        return try await runAsync { try $0.sum { _ in selected } }
    }

    /// The smallest value of a column over the matching rows, off the calling task, or `nil`
    /// when none match.
    ///
    /// - Parameter column: `{ $0.score }`.
    /// - Returns: The minimum.
    /// - Throws: As the synchronous `min(_:)`; ``LiteRecord/ResultCode/interrupt`` when
    ///   cancelled.
    public func min<Value: Comparable & Decodable & Sendable>(
        _ column: @Sendable (Columns<M>) -> Column<Value>
    ) async throws -> Value? {
        let selected = built(column)
        return try await runAsync { try $0.min { _ in selected } }
    }

    /// The largest value of a column over the matching rows, off the calling task, or `nil`
    /// when none match.
    ///
    /// - Parameter column: `{ $0.score }`.
    /// - Returns: The maximum.
    /// - Throws: As the synchronous `max(_:)`; ``LiteRecord/ResultCode/interrupt`` when
    ///   cancelled.
    public func max<Value: Comparable & Decodable & Sendable>(
        _ column: @Sendable (Columns<M>) -> Column<Value>
    ) async throws -> Value? {
        let selected = built(column)
        return try await runAsync { try $0.max { _ in selected } }
    }

    /// The average of a numeric column over the matching rows, off the calling task, or `nil`
    /// when none match.
    ///
    /// - Parameter column: `{ $0.score }`.
    /// - Returns: The average as a `Double`.
    /// - Throws: As the synchronous `average(_:)`; ``LiteRecord/ResultCode/interrupt`` when
    ///   cancelled.
    public func average<Value: Numeric & Sendable>(
        _ column: @Sendable (Columns<M>) -> Column<Value>
    ) async throws -> Double? {
        let selected = built(column)
        return try await runAsync { try $0.average { _ in selected } }
    }
}

// MARK: - Changes

extension PostgresQuery where M: Sendable {
    /// Sets columns of every matching row, in one statement, off the calling task.
    ///
    /// - Parameter assignments: The columns to set and their new values or expressions.
    /// - Returns: The number of rows changed.
    /// - Throws: As the synchronous `updateAll(_:)`; ``LiteRecord/ResultCode/interrupt`` when
    ///   cancelled (nothing is changed then).
    @discardableResult
    public func updateAll(_ assignments: @Sendable (Columns<M>) -> [ColumnAssignment]) async throws -> Int {
        let sets = built(assignments)
        return try await runAsync { try $0.updateAll { _ in sets } }
    }

    /// Deletes every matching row, in one statement, off the calling task.
    ///
    /// - Returns: The number of rows deleted.
    /// - Throws: As the synchronous `deleteAll()`; ``LiteRecord/ResultCode/interrupt`` when
    ///   cancelled (nothing is deleted then).
    @discardableResult
    public func deleteAll() async throws -> Int {
        try await runAsync { try $0.deleteAll() }
    }
}
