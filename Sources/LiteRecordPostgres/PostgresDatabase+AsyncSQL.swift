import LiteRecord

// Raw SQL off the calling task, as on SQLite (`Database+Async.swift`): each call runs the
// synchronous form on a pooled connection, on a thread of its own (see `runCancellable`), and
// cancelling the task cancels the statement on the server, which then throws `DatabaseError`
// with `ResultCode.interrupt`.

extension PostgresDatabase {
    /// Runs SQL off the calling task; interpolated values are bound, never spliced.
    ///
    /// - Parameter sql: The SQL: `"UPDATE players SET score = score + \(bonus)"`.
    /// - Returns: The number of rows changed.
    /// - Throws: As ``PostgresContext/execute(sql:)``; ``LiteRecord/ResultCode/interrupt`` when
    ///   cancelled (a write is then rolled back).
    @discardableResult
    public func execute(sql: SQL) async throws -> Int {
        try await runCancellable { try $0.execute(sql: sql) }
    }

    /// Fetches rows as ``LiteRecord/Row`` values, off the calling task.
    ///
    /// - Parameter sql: The query, with bound interpolation.
    /// - Returns: The rows.
    /// - Throws: As ``PostgresContext/fetchRows(sql:)``; ``LiteRecord/ResultCode/interrupt`` when
    ///   cancelled.
    public func fetchRows(sql: SQL) async throws -> [Row] {
        try await runCancellable { try $0.fetchRows(sql: sql) }
    }

    /// Fetches rows decoded into a `Decodable` type (a model, a struct, a plain value from the
    /// first column), off the calling task.
    ///
    /// - Parameters:
    ///   - type: The type to decode.
    ///   - sql: The query, with bound interpolation.
    /// - Returns: The decoded rows.
    /// - Throws: As ``PostgresContext/fetchAll(_:sql:)``; ``LiteRecord/ResultCode/interrupt``
    ///   when cancelled.
    public func fetchAll<T: Decodable & Sendable>(_ type: T.Type, sql: SQL) async throws -> [T] {
        try await runCancellable { try $0.fetchAll(T.self, sql: sql) }
    }

    /// Fetches the first row decoded, or `nil` when there is none, off the calling task.
    ///
    /// - Parameters:
    ///   - type: The type to decode.
    ///   - sql: The query, with bound interpolation.
    /// - Returns: The first decoded row, or `nil`.
    /// - Throws: As ``PostgresContext/fetchOne(_:sql:)``; ``LiteRecord/ResultCode/interrupt``
    ///   when cancelled.
    public func fetchOne<T: Decodable & Sendable>(_ type: T.Type, sql: SQL) async throws -> T? {
        try await runCancellable { try $0.fetchOne(T.self, sql: sql) }
    }

    /// Fetches every row of a table (or view) into a `Decodable` type that is not a model, off
    /// the calling task; see ``PostgresContext/fetchAll(_:fromTable:)``.
    ///
    /// - Parameters:
    ///   - type: The type of each element.
    ///   - table: The table or view name; it is quoted.
    /// - Returns: The rows.
    /// - Throws: As ``PostgresContext/fetchAll(_:fromTable:)``; ``LiteRecord/ResultCode/interrupt``
    ///   when cancelled.
    public func fetchAll<T: Decodable & Sendable>(_ type: T.Type, fromTable table: String) async throws -> [T]
    {
        try await runCancellable { try $0.fetchAll(T.self, fromTable: table) }
    }
}
