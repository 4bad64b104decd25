import Foundation

// Comparisons of a column with a value or another column: `==`, `!=`, `<`, `<=`, `>`, `>=`,
// `in`, ranges. On an optional column `nil` never satisfies an ordering comparison (Swift has
// no `<` on optionals), and every condition is two-valued: `!($0.bonus > 3)` matches the rows
// whose bonus is `nil`, as `!(bonus.map { $0 > 3 } ?? false)` does in Swift.

extension Column where Value: Encodable {
    /// The column text, forced to compare exact bytes when the column has another collation.
    var comparableSQL: SQL {
        guard let collation, collation != .binary else { return sql }
        return "\(sql) COLLATE BINARY"
    }

    /// Compares the column with a Swift value: every column-versus-value comparison goes
    /// through here, so that a value is converted to its stored form in one place.
    ///
    /// - Parameters:
    ///   - op: The SQL operator.
    ///   - value: The value, converted as the row encoder stores it.
    ///   - excludingNull: Whether a NULL column must make the condition false rather than NULL
    ///     (ordering comparisons on optional columns, so that `!` of them holds for `nil`).
    func compare(_ op: String, _ value: Value, excludingNull: Bool = false) -> Condition {
        // Dates, UUIDs and decimals compare as values, whatever form they are stored in.
        if let condition = storedValueCondition(op, value) {
            return excludingNull && isNullable ? condition.requiringNonNull(sql) : condition
        }
        let (stored, conversionError) = storedValue(value)
        let problem = error ?? conversionError
        if let collation, collation != .binary, op == "=" || op == "IS", !stored.isNull {
            // The column's own collation lets its index narrow the rows; the BINARY comparison
            // then keeps Swift's case-sensitive equality.
            return Condition(
                "(\(sql) \(SQL(op)) \(stored) AND \(sql) COLLATE BINARY \(SQL(op)) \(stored))", error: problem
            )
        }
        if excludingNull && isNullable {
            return Condition("(\(comparableSQL) \(SQL(op)) \(stored) AND \(sql) IS NOT NULL)", error: problem)
        }
        return Condition("(\(comparableSQL) \(SQL(op)) \(stored))", error: problem)
    }

    /// Equal, NULL-safe: matches NULL when `value` is `nil`.
    public static func == (lhs: Column, rhs: Value) -> Condition {
        lhs.compare(lhs.isNullable ? lhs.dialect.nullSafeEqual : "=", rhs)
    }

    /// Not equal, NULL-safe: an optional column holding NULL is not equal to a value.
    public static func != (lhs: Column, rhs: Value) -> Condition {
        lhs.compare(lhs.isNullable ? lhs.dialect.nullSafeNotEqual : "<>", rhs)
    }

    /// Whether the value is one of `values`: `$0.score.in([1, 2, 3])`.
    ///
    /// - Parameter values: The candidates; none matches nothing.
    /// - Returns: The condition.
    public func `in`<S: Sequence>(_ values: S) -> Condition where S.Element == Value {
        if let condition = storedValueMembership(values) { return condition }
        var conversionError: (any Error)?
        var candidates: [DatabaseValue] = []
        for value in values {
            let (stored, problem) = storedValue(value)
            conversionError = conversionError ?? problem
            candidates.append(stored)
        }
        guard !candidates.isEmpty else {
            return Condition(SQL(dialect.falseCondition), error: error)
        }
        let hasNull = candidates.contains(.null)
        let nonNull = candidates.filter { !$0.isNull }
        var parts: [SQL] = []
        if !nonNull.isEmpty {
            if let collation, collation != .binary {
                // As `==`: the column's collation lets its index narrow, BINARY decides.
                parts.append("(\(sql) IN \(list: nonNull) AND \(sql) COLLATE BINARY IN \(list: nonNull))")
            } else {
                parts.append("\(sql) IN \(list: nonNull)")
            }
        }
        if hasNull {
            parts.append("\(sql) IS NULL")
        } else if isNullable {
            // `NULL IN (...)` is NULL, which `NOT` keeps NULL: make it false, as in Swift.
            parts.append("\(sql) IS NOT NULL")
            return Condition("(\(parts[0]) AND \(parts[1]))", error: error ?? conversionError)
        }
        let joined = parts.dropFirst().reduce(parts[0]) { "\($0) OR \($1)" }
        return Condition("(\(joined))", error: error ?? conversionError)
    }
}

extension Column where Value: Encodable & Comparable {
    /// Less than.
    public static func < (lhs: Column, rhs: Value) -> Condition { lhs.compare("<", rhs) }
    /// Less than or equal.
    public static func <= (lhs: Column, rhs: Value) -> Condition { lhs.compare("<=", rhs) }
    /// Greater than.
    public static func > (lhs: Column, rhs: Value) -> Condition { lhs.compare(">", rhs) }
    /// Greater than or equal.
    public static func >= (lhs: Column, rhs: Value) -> Condition { lhs.compare(">=", rhs) }
}

// MARK: - Optional columns compared with values

extension Column where Value: OptionalProtocol & Encodable, Value.Wrapped: Comparable {
    /// Less than; `nil` is never less than a value: `$0.id < lastID` on an `Int64?`.
    public static func < (lhs: Column, rhs: Value.Wrapped) -> Condition {
        lhs.compare("<", .some(rhs), excludingNull: true)
    }
    /// Less than or equal; `nil` never matches.
    public static func <= (lhs: Column, rhs: Value.Wrapped) -> Condition {
        lhs.compare("<=", .some(rhs), excludingNull: true)
    }
    /// Greater than; `nil` never matches.
    public static func > (lhs: Column, rhs: Value.Wrapped) -> Condition {
        lhs.compare(">", .some(rhs), excludingNull: true)
    }
    /// Greater than or equal; `nil` never matches.
    public static func >= (lhs: Column, rhs: Value.Wrapped) -> Condition {
        lhs.compare(">=", .some(rhs), excludingNull: true)
    }
}

extension Column where Value: OptionalProtocol & Encodable {
    /// Whether the value is one of `values`; `nil` never is: `$0.bonus.in(ids)` with `ids: [Int]`.
    ///
    /// - Parameter values: The candidates; none matches nothing.
    /// - Returns: The condition.
    public func `in`<S: Sequence>(_ values: S) -> Condition where S.Element == Value.Wrapped {
        self.in(values.map { Value.some($0) })
    }
}

// MARK: - Column with column

extension Column {
    /// Compares two columns by exact bytes, even when a column has another collation.
    ///
    /// - Parameter excludingNull: Whether a NULL on either side makes the condition false rather
    ///   than NULL (ordering comparisons involving an optional column).
    func compare<Other>(_ op: String, _ other: Column<Other>, excludingNull: Bool = false) -> Condition {
        if var condition = storedValueCondition(op, other) {
            if excludingNull && isNullable { condition = condition.requiringNonNull(sql) }
            if excludingNull && other.isNullable { condition = condition.requiringNonNull(other.sql) }
            return condition
        }
        let collated = [collation, other.collation].contains { $0 != nil && $0 != .binary }
        let left: SQL = collated ? "\(sql) COLLATE BINARY" : sql
        var condition: SQL = "\(left) \(SQL(op)) \(other.sql)"
        if excludingNull && isNullable { condition.append(" AND \(sql) IS NOT NULL") }
        if excludingNull && other.isNullable { condition.append(" AND \(other.sql) IS NOT NULL") }
        return Condition("(\(condition))", error: error ?? other.error)
    }
}

extension Column where Value: Comparable {
    /// Compares two columns of the same type: `$0.wins > $0.losses`.
    public static func < (lhs: Column, rhs: Column) -> Condition { lhs.compare("<", rhs) }
    /// Compares two columns of the same type.
    public static func <= (lhs: Column, rhs: Column) -> Condition { lhs.compare("<=", rhs) }
    /// Compares two columns of the same type.
    public static func > (lhs: Column, rhs: Column) -> Condition { lhs.compare(">", rhs) }
    /// Compares two columns of the same type.
    public static func >= (lhs: Column, rhs: Column) -> Condition { lhs.compare(">=", rhs) }
}

extension Column where Value: Equatable {
    /// Equal, NULL-safe, by exact bytes: `$0.home == $0.away`.
    public static func == (lhs: Column, rhs: Column) -> Condition {
        lhs.compare(lhs.dialect.nullSafeEqual, rhs)
    }
    /// Not equal, NULL-safe.
    public static func != (lhs: Column, rhs: Column) -> Condition {
        lhs.compare(lhs.dialect.nullSafeNotEqual, rhs)
    }
}

extension Column where Value: OptionalProtocol, Value.Wrapped: Comparable {
    /// Compares optional columns; `nil` on either side never matches.
    public static func < (lhs: Column, rhs: Column) -> Condition {
        lhs.compare("<", rhs, excludingNull: true)
    }
    /// Compares optional columns; `nil` on either side never matches.
    public static func <= (lhs: Column, rhs: Column) -> Condition {
        lhs.compare("<=", rhs, excludingNull: true)
    }
    /// Compares optional columns; `nil` on either side never matches.
    public static func > (lhs: Column, rhs: Column) -> Condition {
        lhs.compare(">", rhs, excludingNull: true)
    }
    /// Compares optional columns; `nil` on either side never matches.
    public static func >= (lhs: Column, rhs: Column) -> Condition {
        lhs.compare(">=", rhs, excludingNull: true)
    }

    /// Compares an optional column with a column of the wrapped type: `$0.bonus > $0.level`.
    public static func < (lhs: Column, rhs: Column<Value.Wrapped>) -> Condition {
        lhs.compare("<", rhs, excludingNull: true)
    }
    /// Compares an optional column with a column of the wrapped type.
    public static func <= (lhs: Column, rhs: Column<Value.Wrapped>) -> Condition {
        lhs.compare("<=", rhs, excludingNull: true)
    }
    /// Compares an optional column with a column of the wrapped type.
    public static func > (lhs: Column, rhs: Column<Value.Wrapped>) -> Condition {
        lhs.compare(">", rhs, excludingNull: true)
    }
    /// Compares an optional column with a column of the wrapped type.
    public static func >= (lhs: Column, rhs: Column<Value.Wrapped>) -> Condition {
        lhs.compare(">=", rhs, excludingNull: true)
    }

    /// Compares a column with an optional column of its type: `$0.level < $0.bonus`.
    public static func < (lhs: Column<Value.Wrapped>, rhs: Column) -> Condition {
        lhs.compare("<", rhs, excludingNull: true)
    }
    /// Compares a column with an optional column of its type.
    public static func <= (lhs: Column<Value.Wrapped>, rhs: Column) -> Condition {
        lhs.compare("<=", rhs, excludingNull: true)
    }
    /// Compares a column with an optional column of its type.
    public static func > (lhs: Column<Value.Wrapped>, rhs: Column) -> Condition {
        lhs.compare(">", rhs, excludingNull: true)
    }
    /// Compares a column with an optional column of its type.
    public static func >= (lhs: Column<Value.Wrapped>, rhs: Column) -> Condition {
        lhs.compare(">=", rhs, excludingNull: true)
    }
}

extension Column where Value: OptionalProtocol, Value.Wrapped: Equatable {
    /// Equal, NULL-safe, as Swift compares `level == bonus` with `bonus` optional.
    public static func == (lhs: Column, rhs: Column<Value.Wrapped>) -> Condition {
        lhs.compare(lhs.dialect.nullSafeEqual, rhs)
    }
    /// Not equal, NULL-safe.
    public static func != (lhs: Column, rhs: Column<Value.Wrapped>) -> Condition {
        lhs.compare(lhs.dialect.nullSafeNotEqual, rhs)
    }
    /// Equal, NULL-safe.
    public static func == (lhs: Column<Value.Wrapped>, rhs: Column) -> Condition {
        lhs.compare(lhs.dialect.nullSafeEqual, rhs)
    }
    /// Not equal, NULL-safe.
    public static func != (lhs: Column<Value.Wrapped>, rhs: Column) -> Condition {
        lhs.compare(lhs.dialect.nullSafeNotEqual, rhs)
    }
}

// MARK: - Sequences and ranges

extension Sequence where Element: Encodable {
    /// Whether a column's value is one of these: `[1, 2, 3].contains($0.score)`.
    ///
    /// - Parameter column: The column.
    /// - Returns: The condition.
    public func contains(_ column: Column<Element>) -> Condition {
        column.in(self)
    }

    /// Whether an optional column holds one of these; `nil` never does: `ids.contains($0.bonus)`.
    ///
    /// - Parameter column: The optional column.
    /// - Returns: The condition.
    public func contains(_ column: Column<Element?>) -> Condition {
        column.in(self)
    }
}

extension ClosedRange where Bound: Encodable {
    /// Whether a column's value lies in the range: `(10...20).contains($0.score)`.
    ///
    /// - Parameter column: The column.
    /// - Returns: The condition.
    public func contains(_ column: Column<Bound>) -> Condition {
        column >= lowerBound && column <= upperBound
    }

    /// Whether an optional column's value lies in the range; `nil` never does.
    ///
    /// - Parameter column: The optional column.
    /// - Returns: The condition.
    public func contains(_ column: Column<Bound?>) -> Condition {
        column >= lowerBound && column <= upperBound
    }
}

extension Range where Bound: Encodable {
    /// Whether a column's value lies in the half-open range: `(10..<20).contains($0.score)`.
    ///
    /// - Parameter column: The column.
    /// - Returns: The condition.
    public func contains(_ column: Column<Bound>) -> Condition {
        column >= lowerBound && column < upperBound
    }

    /// Whether an optional column's value lies in the half-open range; `nil` never does.
    ///
    /// - Parameter column: The optional column.
    /// - Returns: The condition.
    public func contains(_ column: Column<Bound?>) -> Condition {
        column >= lowerBound && column < upperBound
    }
}

// MARK: - Booleans

extension Column where Value == Bool {
    /// The column is true: `.where { $0.flag.isTrue }`.
    public var isTrue: Condition { self == true }
}
