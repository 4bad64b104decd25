import LiteRecord

// The arithmetic of `Column+Arithmetic.swift` in PostgreSQL's dialect. PostgreSQL's own
// `bigint` operators already are Swift's `Int64` arithmetic: `/` truncates toward zero, and an
// overflow or a division by zero fails the statement (SQLSTATE 22003, 22012), which changes
// nothing. Operands are cast to `bigint` (a JSON member reads as `numeric`, whose `/` would not
// truncate) or `double precision`. Narrower integer types are checked by casting the result to
// `integer` / `smallint`, which fail where Swift traps; the types PostgreSQL has no such type for
// (`Int8`, the unsigned ones) are refused with a clear error rather than computed unchecked.
// Floating point differs from Swift in one way, documented: where IEEE gives an infinity
// (`1.0 / 0`, an overflow) PostgreSQL fails the statement.

/// PostgreSQL SQL for LiteRecord's arithmetic expressions.
enum PostgresArithmetic {
    /// `left op right` (or `- left` for `.negate`) for a Swift numeric type.
    ///
    /// - Throws: ``SchemaError`` for an integer type PostgreSQL cannot check (`Int8`, `UInt8`,
    ///   `UInt16`, `UInt32`, `UInt64`, `UInt`), or a type that is neither integer nor floating
    ///   point.
    static func expression(
        _ function: QueryFunctions.Arithmetic, _ left: SQL, _ right: SQL?, number: Any.Type
    ) throws -> SQL {
        let type: String
        var checkedType: String?
        if let integer = number as? any FixedWidthInteger.Type {
            type = "bigint"
            switch (integer.isSigned, integer.bitWidth) {
            case (true, 64): checkedType = nil
            case (true, 32): checkedType = "integer"
            case (true, 16): checkedType = "smallint"
            default:
                throw SchemaError(
                    "arithmetic on \(number) is not available on PostgreSQL: it has no \(number) type to "
                        + "check the result against (use Int, Int64, Int32 or Int16)")
            }
        } else if number is any BinaryFloatingPoint.Type {
            type = "double precision"
        } else {
            throw SchemaError(
                "arithmetic on \(number) cannot be computed in SQL: only integers and floating-point numbers")
        }
        let lhs: SQL = "CAST(\(left) AS \(SQL(type)))"
        let result: SQL
        if let right {
            let rhs: SQL = "CAST(\(right) AS \(SQL(type)))"
            result = "(\(lhs) \(SQL(function.symbol)) \(rhs))"
        } else {
            result = "(- \(lhs))"
        }
        guard let checkedType else { return result }
        return "CAST(\(result) AS \(SQL(checkedType)))"
    }
}
