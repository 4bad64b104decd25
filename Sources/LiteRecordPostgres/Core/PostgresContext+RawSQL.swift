import LiteRecord

// The raw SQL forms SQLite's `DatabaseContext` offers, with the same signatures, so that code
// written against `ModelContext` runs on both backends.

extension PostgresContext {
    /// Runs SQL text with `?` parameters and their values, as on SQLite.
    ///
    /// The `?` are numbered `$1`, `$2`, ... by the same lexer as interpolated SQL (a `?` inside
    /// a string, a quoted identifier or a comment is text, not a parameter), and the values are
    /// bound, never spliced.
    ///
    /// ```swift
    /// try pg.execute(sql: "UPDATE players SET score = ? WHERE name = ?", arguments: [10, "Alice"])
    /// ```
    ///
    /// - Parameters:
    ///   - sql: SQL text with `?` parameters.
    ///   - arguments: The values, in order: `[1, "two"]`. Named values (`["name": ...]`) are not
    ///     supported on PostgreSQL.
    /// - Returns: As ``execute(sql:)``.
    /// - Throws: ``LiteRecord/DatabaseError`` with ``LiteRecord/ResultCode/misuse`` when the
    ///   number of values differs from the number of parameters or a value is named (nothing
    ///   runs then); otherwise as ``execute(sql:)``.
    @discardableResult
    public func execute(sql: String, arguments: StatementArguments) throws -> Int {
        try execute(sql: SQL(verbatim: sql, arguments: arguments))
    }

    /// Fetches every row of a query with `?` parameters, decoded into a `Decodable` type.
    ///
    /// - Parameters:
    ///   - type: The type of each element.
    ///   - sql: One query with `?` parameters.
    ///   - arguments: Their values, in order.
    /// - Returns: The decoded rows.
    /// - Throws: As ``fetchAll(_:sql:)->[T]``, and as ``execute(sql:arguments:)`` for the arguments.
    public func fetchAll<T: Decodable>(_ type: T.Type, sql: String, arguments: StatementArguments) throws
        -> [T]
    {
        try fetchAll(T.self, sql: SQL(verbatim: sql, arguments: arguments))
    }

    /// Fetches every row of a query as ``LiteRecord/Row`` values; the same as
    /// ``fetchRows(sql:)``, with SQLite's spelling.
    ///
    /// - Parameters:
    ///   - type: `Row.self`.
    ///   - sql: The query, with bound interpolation.
    /// - Returns: The rows.
    /// - Throws: ``LiteRecord/DatabaseError``.
    public func fetchAll(_ type: Row.Type, sql: SQL) throws -> [Row] {
        try fetchRows(sql: sql)
    }

    /// Fetches every row of a query with `?` parameters as ``LiteRecord/Row`` values.
    ///
    /// - Parameters:
    ///   - type: `Row.self`.
    ///   - sql: One query with `?` parameters.
    ///   - arguments: Their values, in order.
    /// - Returns: The rows.
    /// - Throws: As ``execute(sql:arguments:)`` for the arguments, ``LiteRecord/DatabaseError``.
    public func fetchAll(_ type: Row.Type, sql: String, arguments: StatementArguments) throws -> [Row] {
        try fetchRows(sql: SQL(verbatim: sql, arguments: arguments))
    }

    /// Fetches the first row of a query as a ``LiteRecord/Row``, or `nil` when there is none.
    ///
    /// - Parameters:
    ///   - type: `Row.self`.
    ///   - sql: The query, with bound interpolation.
    /// - Returns: The first row.
    /// - Throws: ``LiteRecord/DatabaseError``.
    public func fetchOne(_ type: Row.Type, sql: SQL) throws -> Row? {
        try fetchRows(sql: sql).first
    }

    /// Calls `body` with each row of a query, one at a time, holding at most one batch of rows
    /// in memory (a server-side cursor).
    ///
    /// A cursor lives in a transaction: outside one, the rows are read in a read-only
    /// transaction of their own. Inside a transaction, `body` may run statements on it between
    /// rows, as on SQLite.
    ///
    /// - Parameters:
    ///   - sql: A query (a `SELECT`, `VALUES` or `TABLE`; PostgreSQL's cursors take no other
    ///     statement), with bound interpolation.
    ///   - body: Called once per row; throwing stops the iteration and is rethrown.
    /// - Throws: ``LiteRecord/DatabaseError``, or what `body` throws.
    public func forEachRow(sql: SQL, _ body: (Row) throws -> Void) throws {
        try withReadingSession { try $0.forEachRow(sql, body) }
    }
}
