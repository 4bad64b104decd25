import LiteRecord

// Aggregates over the rows a query returns, as on SQLite (`Query+Fetching.swift`): integers
// sum exactly (an overflow fails, as Swift traps), `nil`s are left out of optional columns.

extension PostgresQuery {
    private func aggregate<Value, Result: Decodable>(
        _ function: String, _ column: (Columns<M>) -> Column<Value>, as type: Result.Type
    ) throws -> Result? {
        let sql = try SQLDialect.$current.withValue(.postgres) {
            try query.backendAggregateSQL(function, column, resultType: Result.self)
        }
        return try context.withSession { session in
            guard try session.readableTable(for: M.self) != nil, try session.readableTables(of: relatedTypes)
            else { return nil }
            guard let row = try session.execute(sql).lrRows.first else { return nil }
            return try RowDecoder(dateStorage: session.dateStorage).decode(Result?.self, from: row)
        }
    }

    /// The sum of a numeric column over the matching rows; 0 when none match.
    ///
    /// - Parameter column: `{ $0.score }`.
    /// - Returns: The sum, of the column's type.
    /// - Throws: ``LiteRecord/DatabaseError`` (an integer overflow, for instance).
    public func sum<Value: Numeric & Decodable>(_ column: (Columns<M>) -> Column<Value>) throws -> Value {
        try aggregate("sum", column, as: Value.self) ?? 0
    }

    /// The smallest value of a column over the matching rows, or `nil` when none match.
    ///
    /// - Parameter column: `{ $0.score }`.
    /// - Returns: The minimum.
    /// - Throws: ``LiteRecord/DatabaseError``, ``LiteRecord/RowDecodingError``.
    public func min<Value: Comparable & Decodable>(_ column: (Columns<M>) -> Column<Value>) throws -> Value? {
        try aggregate("min", column, as: Value.self)
    }

    /// The largest value of a column over the matching rows, or `nil` when none match.
    ///
    /// - Parameter column: `{ $0.score }`.
    /// - Returns: The maximum.
    /// - Throws: ``LiteRecord/DatabaseError``, ``LiteRecord/RowDecodingError``.
    public func max<Value: Comparable & Decodable>(_ column: (Columns<M>) -> Column<Value>) throws -> Value? {
        try aggregate("max", column, as: Value.self)
    }

    /// The average of a numeric column over the matching rows, or `nil` when none match.
    ///
    /// - Parameter column: `{ $0.score }`.
    /// - Returns: The average as a `Double`.
    /// - Throws: ``LiteRecord/DatabaseError``.
    public func average<Value: Numeric>(_ column: (Columns<M>) -> Column<Value>) throws -> Double? {
        try aggregate("avg", column, as: Double.self)
    }

}

// The same aggregates over optional columns: `nil`s are left out, as SQL does.
extension PostgresQuery {
    /// The smallest non-`nil` value of an optional column, or `nil` when there is none.
    ///
    /// - Parameter column: `{ $0.freight }`.
    /// - Returns: The minimum.
    /// - Throws: As `min(_:)`.
    public func min<Value: Comparable & Decodable>(_ column: (Columns<M>) -> Column<Value?>) throws -> Value?
    {
        try aggregate("min", column, as: Value.self)
    }

    /// The largest non-`nil` value of an optional column, or `nil` when there is none.
    ///
    /// - Parameter column: `{ $0.freight }`.
    /// - Returns: The maximum.
    /// - Throws: As `max(_:)`.
    public func max<Value: Comparable & Decodable>(_ column: (Columns<M>) -> Column<Value?>) throws -> Value?
    {
        try aggregate("max", column, as: Value.self)
    }

    /// The sum of an optional numeric column over the matching rows, `nil`s left out; 0 when
    /// no value is there.
    ///
    /// - Parameter column: `{ $0.freight }`.
    /// - Returns: The sum, of the wrapped type.
    /// - Throws: As `sum(_:)`.
    public func sum<Value: Numeric & Decodable>(_ column: (Columns<M>) -> Column<Value?>) throws -> Value {
        try aggregate("sum", column, as: Value.self) ?? 0
    }

    /// The average of the non-`nil` values of an optional numeric column, or `nil` when there
    /// is none.
    ///
    /// - Parameter column: `{ $0.freight }`.
    /// - Returns: The average as a `Double`.
    /// - Throws: As `average(_:)`.
    public func average<Value: Numeric>(_ column: (Columns<M>) -> Column<Value?>) throws -> Double? {
        try aggregate("avg", column, as: Double.self)
    }
}
