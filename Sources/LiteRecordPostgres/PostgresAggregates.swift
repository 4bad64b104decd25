import LiteRecord

// The aggregates of `Query+Projection.swift` (`$0.score.sum`, `.min`, `.max`, `.average`) and
// of the scalar aggregates (`sum(_:)`, ...) in PostgreSQL's dialect. PostgreSQL sums `bigint`
// and averages anything as `numeric`, and reads a JSON member as `numeric`: those arrive as
// text, which a Swift `Int` or `Double` does not decode from. So the result is cast to the
// Swift type it decodes to, as SQLite's own values already are. `min` and `max` of a `boolean`
// do not exist in PostgreSQL; `bool_and` and `bool_or` are the same thing.

enum PostgresAggregates {
    /// The aggregate cast to `resultType`: `bigint` for integers (an overflow fails the
    /// statement, SQLSTATE 22003, where Swift traps), `double precision` for floating point and
    /// for `avg`; any other type as PostgreSQL returns it.
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
        if type is any BinaryInteger.Type {
            return "CAST(\(aggregate) AS bigint)"
        }
        return aggregate
    }

    /// PostgreSQL's name for `min` or `max` of values of `type`: `bool_and` and `bool_or` for a
    /// `Bool` (false sorts before true, as SQLite's 0 and 1 do), else the function itself.
    static func extremumFunction(_ function: String, of type: Any.Type) -> String {
        let type = OptionalType.unwrapped(type)
        guard type == Bool.self else { return function }
        return function == "min" ? "bool_and" : "bool_or"
    }
}
