// Arithmetic on numeric columns: `+`, `-`, `*`, `/`, `%` with a value or another column, and
// unary `-`. Integer arithmetic is Swift's: `/` and `%` truncate toward zero, and where Swift
// traps (overflow, division by zero) the statement fails with a `DatabaseError` and changes
// nothing. Floating-point arithmetic is IEEE, as Swift's (`1.0 / 0` is infinity; a NaN result
// reads as NULL, which matches nothing). With an optional operand the result is optional:
// `nil` in, `nil` out.

extension Column {
    /// A bound value as an operand.
    fileprivate func operand(_ value: Value) -> Column<Value> where Value: Encodable {
        let (stored, conversionError) = storedValue(value)
        return Column(
            sql: "\(stored)", columnName: nil, isNullable: stored.isNull, isJSON: false, collation: nil,
            dateStorage: dateStorage, jsonPath: nil, error: error ?? conversionError,
            dialectType: dialectType)
    }
}

/// Builds an arithmetic expression over operands of a Swift numeric type, in the left
/// operand's dialect (both operands come from one query's closure, so they share it).
enum ArithmeticExpression {
    static func combine<Left, Right, Result>(
        _ function: QueryFunctions.Arithmetic, _ left: Column<Left>, _ right: Column<Right>, number: Any.Type
    ) -> Column<Result> {
        let sql: SQL
        do {
            sql = try left.dialect.arithmetic(function, left.sql, right.sql, number: number)
        } catch {
            return left.failed(left.error ?? right.error ?? error)
        }
        return Column<Result>(
            sql: sql, columnName: nil, isNullable: left.isNullable || right.isNullable, isJSON: false,
            collation: nil, dateStorage: left.dateStorage, jsonPath: nil, error: left.error ?? right.error,
            dialectType: left.dialectType)
    }

    static func negate<Operand, Result>(_ operand: Column<Operand>, number: Any.Type) -> Column<Result> {
        let sql: SQL
        do {
            sql = try operand.dialect.arithmetic(.negate, operand.sql, nil, number: number)
        } catch {
            return operand.failed(operand.error ?? error)
        }
        return Column<Result>(
            sql: sql, columnName: nil, isNullable: operand.isNullable, isJSON: false, collation: nil,
            dateStorage: operand.dateStorage, jsonPath: nil, error: operand.error,
            dialectType: operand.dialectType)
    }

    /// The error of arithmetic on a type that is neither integer nor floating point.
    static func unsupported(_ number: Any.Type) -> SchemaError {
        SchemaError(
            "arithmetic on \(number) cannot be computed in SQL: only integers and floating-point numbers")
    }
}

// MARK: - Non-optional operands

extension Column where Value: Numeric & Encodable {
    /// The sum: `$0.score + 1`, per row.
    public static func + (lhs: Column, rhs: Value) -> Column { .combine(.add, lhs, lhs.operand(rhs)) }
    /// The difference.
    public static func - (lhs: Column, rhs: Value) -> Column { .combine(.subtract, lhs, lhs.operand(rhs)) }
    /// The product.
    public static func * (lhs: Column, rhs: Value) -> Column { .combine(.multiply, lhs, lhs.operand(rhs)) }
    /// The quotient; an integer quotient truncates toward zero, and an integer division by zero
    /// fails the statement.
    public static func / (lhs: Column, rhs: Value) -> Column { .combine(.divide, lhs, lhs.operand(rhs)) }

    /// The sum of two columns: `$0.level + $0.bonus`.
    public static func + (lhs: Column, rhs: Column) -> Column { .combine(.add, lhs, rhs) }
    /// The difference of two columns.
    public static func - (lhs: Column, rhs: Column) -> Column { .combine(.subtract, lhs, rhs) }
    /// The product of two columns.
    public static func * (lhs: Column, rhs: Column) -> Column { .combine(.multiply, lhs, rhs) }
    /// The quotient of two columns.
    public static func / (lhs: Column, rhs: Column) -> Column { .combine(.divide, lhs, rhs) }

    fileprivate static func combine<L, R>(
        _ function: QueryFunctions.Arithmetic, _ lhs: Column<L>, _ rhs: Column<R>
    ) -> Column {
        ArithmeticExpression.combine(function, lhs, rhs, number: Value.self)
    }
}

extension Column where Value: SignedNumeric & Encodable {
    /// The negation: `-$0.score` (`-Int.min` fails the statement, as Swift traps).
    public static prefix func - (operand: Column) -> Column {
        ArithmeticExpression.negate(operand, number: Value.self)
    }
}

extension Column where Value: BinaryInteger & Encodable {
    /// The remainder, with the sign of the dividend, as Swift's `%`.
    public static func % (lhs: Column, rhs: Value) -> Column {
        ArithmeticExpression.combine(.remainder, lhs, lhs.operand(rhs), number: Value.self)
    }
    /// The remainder of two columns.
    public static func % (lhs: Column, rhs: Column) -> Column {
        ArithmeticExpression.combine(.remainder, lhs, rhs, number: Value.self)
    }
}

// MARK: - Optional operands

extension Column where Value: OptionalProtocol & Encodable, Value.Wrapped: Numeric {
    /// The sum, or `nil` when the column is `nil`: `$0.bonus + 1`.
    public static func + (lhs: Column, rhs: Value.Wrapped) -> Column {
        .combine(.add, lhs, lhs.operand(.some(rhs)))
    }
    /// The difference, or `nil`.
    public static func - (lhs: Column, rhs: Value.Wrapped) -> Column {
        .combine(.subtract, lhs, lhs.operand(.some(rhs)))
    }
    /// The product, or `nil`.
    public static func * (lhs: Column, rhs: Value.Wrapped) -> Column {
        .combine(.multiply, lhs, lhs.operand(.some(rhs)))
    }
    /// The quotient, or `nil`.
    public static func / (lhs: Column, rhs: Value.Wrapped) -> Column {
        .combine(.divide, lhs, lhs.operand(.some(rhs)))
    }

    /// The sum of two optional columns, or `nil` when either is.
    public static func + (lhs: Column, rhs: Column) -> Column { .combine(.add, lhs, rhs) }
    /// The difference of two optional columns, or `nil`.
    public static func - (lhs: Column, rhs: Column) -> Column { .combine(.subtract, lhs, rhs) }
    /// The product of two optional columns, or `nil`.
    public static func * (lhs: Column, rhs: Column) -> Column { .combine(.multiply, lhs, rhs) }
    /// The quotient of two optional columns, or `nil`.
    public static func / (lhs: Column, rhs: Column) -> Column { .combine(.divide, lhs, rhs) }

    /// The sum of a column and an optional column, or `nil`: `$0.level + $0.bonus`.
    public static func + (lhs: Column<Value.Wrapped>, rhs: Column) -> Column { .combine(.add, lhs, rhs) }
    /// The difference of a column and an optional column, or `nil`.
    public static func - (lhs: Column<Value.Wrapped>, rhs: Column) -> Column { .combine(.subtract, lhs, rhs) }
    /// The product of a column and an optional column, or `nil`.
    public static func * (lhs: Column<Value.Wrapped>, rhs: Column) -> Column { .combine(.multiply, lhs, rhs) }
    /// The quotient of a column by an optional column, or `nil`.
    public static func / (lhs: Column<Value.Wrapped>, rhs: Column) -> Column { .combine(.divide, lhs, rhs) }

    /// The sum of an optional column and a column, or `nil`.
    public static func + (lhs: Column, rhs: Column<Value.Wrapped>) -> Column { .combine(.add, lhs, rhs) }
    /// The difference of an optional column and a column, or `nil`.
    public static func - (lhs: Column, rhs: Column<Value.Wrapped>) -> Column { .combine(.subtract, lhs, rhs) }
    /// The product of an optional column and a column, or `nil`.
    public static func * (lhs: Column, rhs: Column<Value.Wrapped>) -> Column { .combine(.multiply, lhs, rhs) }
    /// The quotient of an optional column by a column, or `nil`.
    public static func / (lhs: Column, rhs: Column<Value.Wrapped>) -> Column { .combine(.divide, lhs, rhs) }

    fileprivate static func combine<L, R>(
        _ function: QueryFunctions.Arithmetic, _ lhs: Column<L>, _ rhs: Column<R>
    ) -> Column {
        ArithmeticExpression.combine(function, lhs, rhs, number: Value.Wrapped.self)
    }
}

extension Column where Value: OptionalProtocol & Encodable, Value.Wrapped: SignedNumeric {
    /// The negation, or `nil`.
    public static prefix func - (operand: Column) -> Column {
        ArithmeticExpression.negate(operand, number: Value.Wrapped.self)
    }
}

extension Column where Value: OptionalProtocol & Encodable, Value.Wrapped: BinaryInteger {
    /// The remainder, or `nil`.
    public static func % (lhs: Column, rhs: Value.Wrapped) -> Column {
        ArithmeticExpression.combine(.remainder, lhs, lhs.operand(.some(rhs)), number: Value.Wrapped.self)
    }
    /// The remainder of two optional columns, or `nil`.
    public static func % (lhs: Column, rhs: Column) -> Column {
        ArithmeticExpression.combine(.remainder, lhs, rhs, number: Value.Wrapped.self)
    }
}
