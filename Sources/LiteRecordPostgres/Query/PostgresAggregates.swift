import LiteRecord

// The aggregates of `Query+Projection.swift` (`$0.score.sum`, `.min`, `.max`, `.average`) and
// of the scalar aggregates (`sum(_:)`, ...) in PostgreSQL's dialect. PostgreSQL sums `bigint`
// and averages anything as `numeric`, and reads a JSON member as `numeric`: those arrive as
// text, which a Swift `Int` or `Double` does not decode from. So the result is cast to the
// Swift type it decodes to, as SQLite's own values already are. `min` and `max` of a `boolean`
// do not exist in PostgreSQL; `bool_and` and `bool_or` are the same thing.

enum PostgresAggregates {
    /// The aggregate cast to `resultType`: `bigint` for integers (an overflow fails the
    /// statement, SQLSTATE 22003, where Swift traps), the sum of a narrower integer type also
    /// checked against its range; `double precision` for floating point and for `avg`; any other
    /// type as PostgreSQL returns it.
    ///
    /// - Parameters:
    ///   - aggregate: The aggregate's SQL.
    ///   - function: `sum`, `min`, `max` or `avg`.
    ///   - resultType: The Swift type of the result (optional or not).
    /// - Returns: The SQL.
    static func result(_ aggregate: SQL, function: String, resultType: Any.Type) -> SQL {
        let type = OptionalType.unwrapped(resultType)
        if function == "avg" || type is any BinaryFloatingPoint.Type {
            return "CAST(\(aggregate) AS double precision)"
        }
        if function == "sum", let integer = type as? any FixedWidthInteger.Type {
            return checkedSum("CAST(\(aggregate) AS bigint)", of: integer)
        }
        if type is any BinaryInteger.Type {
            return "CAST(\(aggregate) AS bigint)"
        }
        return aggregate
    }

    /// A `bigint` sum checked against the range of a narrower Swift integer type, so that a
    /// total that does not fit fails the statement, as SQLite's range check does, rather than
    /// later as a decoding error: an `Int32` or `Int16` total is cast to `integer` or `smallint`
    /// (SQLSTATE 22003, as the arithmetic's check); the types PostgreSQL has no type for (`Int8`,
    /// the unsigned ones) fail with a message naming the total and the type.
    private static func checkedSum<T: FixedWidthInteger>(_ sum: SQL, of type: T.Type) -> SQL {
        let (low, high) = (Int64(clamping: T.min), Int64(clamping: T.max))
        guard low != .min || high != .max else { return sum }
        switch (T.isSigned, T.bitWidth) {
        case (true, 32): return "CAST(\(sum) AS integer)"
        case (true, 16): return "CAST(\(sum) AS smallint)"
        default: break
        }
        // The failing cast runs only for a total out of range: CASE evaluates lazily.
        let typeName = DatabaseValue.text(String(describing: type))
        let message: SQL =
            "'integer overflow: the sum ' || CAST(\(sum) AS text) || ' does not fit ' || CAST(\(typeName) AS text)"
        let (lowValue, highValue) = (DatabaseValue.integer(low), DatabaseValue.integer(high))
        return
            "(CASE WHEN \(sum) < \(lowValue) OR \(sum) > \(highValue) THEN CAST(\(message) AS bigint) ELSE \(sum) END)"
    }

    /// PostgreSQL's name for `min` or `max` of values of `type`: `bool_and` and `bool_or` for a
    /// `Bool` (false sorts before true, as SQLite's 0 and 1 do), else the function itself.
    static func extremumFunction(_ function: String, of type: Any.Type) -> String {
        let type = OptionalType.unwrapped(type)
        guard type == Bool.self else { return function }
        return function == "min" ? "bool_and" : "bool_or"
    }
}
