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
            dateStorage: dateStorage, jsonPath: nil, error: error ?? conversionError)
    }
}

/// Builds the SQL of an arithmetic expression over operands of a Swift numeric type.
enum ArithmeticExpression {
    static func combine<Left, Right, Result>(
        _ function: QueryFunctions.Arithmetic, _ left: Column<Left>, _ right: Column<Right>, number: Any.Type
    ) -> Column<Result> {
        let sql: SQL
        if SQLDialect.current == .postgres {
            do {
                sql = try PostgresArithmetic.expression(function, left.sql, right.sql, number: number)
            } catch {
                return Column<Result>(failure: left.error ?? right.error ?? error)
            }
        } else if number is any BinaryInteger.Type {
            // Checked: SQLite itself turns an overflowing integer into an inexact REAL.
            sql = fitting("\(SQL(function.name))(\(left.sql), \(right.sql))", number)
        } else if number is any BinaryFloatingPoint.Type {
            switch function {
            case .divide, .remainder:
                // As REAL: a whole number inside JSON may read as an integer, and SQLite's `/` of
                // two integers truncates.
                sql = "\(SQL(function.name))(CAST(\(left.sql) AS REAL), \(right.sql))"
            case .add, .subtract, .multiply, .negate:
                sql = "(\(left.sql) \(SQL(function.symbol)) \(right.sql))"
            }
        } else {
            return Column<Result>(failure: left.error ?? right.error ?? unsupported(number))
        }
        return Column<Result>(
            sql: sql, columnName: nil, isNullable: left.isNullable || right.isNullable, isJSON: false,
            collation: nil, dateStorage: left.dateStorage, jsonPath: nil, error: left.error ?? right.error)
    }

    static func negate<Operand, Result>(_ operand: Column<Operand>, number: Any.Type) -> Column<Result> {
        let sql: SQL
        if SQLDialect.current == .postgres {
            do {
                sql = try PostgresArithmetic.expression(.negate, operand.sql, nil, number: number)
            } catch {
                return Column<Result>(failure: operand.error ?? error)
            }
        } else if number is any BinaryInteger.Type {
            sql = fitting("\(SQL(QueryFunctions.Arithmetic.negate.name))(\(operand.sql))", number)
        } else if number is any BinaryFloatingPoint.Type {
            sql = "(- \(operand.sql))"
        } else {
            return Column<Result>(failure: operand.error ?? unsupported(number))
        }
        return Column<Result>(
            sql: sql, columnName: nil, isNullable: operand.isNullable, isJSON: false, collation: nil,
            dateStorage: operand.dateStorage, jsonPath: nil, error: operand.error)
    }

    /// An integer expression checked against the range of a narrower Swift type (`UInt8`,
    /// `Int32`, `UInt`'s lack of negatives), where Swift would trap and the column could no
    /// longer be read.
    private static func fitting(_ sql: SQL, _ number: Any.Type) -> SQL {
        guard let integer = number as? any FixedWidthInteger.Type, let (low, high) = bounds(of: integer)
        else {
            return sql
        }
        let (lowValue, highValue) = (DatabaseValue.integer(low), DatabaseValue.integer(high))
        return "\(SQL(QueryFunctions.integerInRange))(\(sql), \(lowValue), \(highValue))"
    }

    private static func bounds<T: FixedWidthInteger>(of type: T.Type) -> (Int64, Int64)? {
        let (low, high) = (Int64(clamping: T.min), Int64(clamping: T.max))
        return low == .min && high == .max ? nil : (low, high)
    }

    private static func unsupported(_ number: Any.Type) -> SchemaError {
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
