/// A condition on a model's rows, built from ``Column`` comparisons with Swift's operators.
///
/// A predicate means what the same closure means in Swift on the decoded models: `!=` on an
/// optional column matches NULL rows, `== nil` is `IS NULL`, string comparisons are
/// case-sensitive (by exact UTF-8 bytes, even on a `COLLATE NOCASE` column).
public struct Predicate {
    let sql: SQL
    let error: (any Error)?

    init(_ sql: SQL, error: (any Error)? = nil) {
        self.sql = sql
        self.error = error
    }

    /// A condition written in SQL, with bound interpolation: `Predicate(sql: "score > \(x)")`.
    ///
    /// - Parameter sql: A boolean SQL expression.
    public init(sql: SQL) {
        self.init(SQL("(") + sql + SQL(")"))
    }

    /// Both conditions hold.
    public static func && (lhs: Predicate, rhs: Predicate) -> Predicate {
        Predicate("(\(lhs.sql) AND \(rhs.sql))", error: lhs.error ?? rhs.error)
    }

    /// Either condition holds.
    public static func || (lhs: Predicate, rhs: Predicate) -> Predicate {
        Predicate("(\(lhs.sql) OR \(rhs.sql))", error: lhs.error ?? rhs.error)
    }

    /// The condition does not hold.
    public static prefix func ! (predicate: Predicate) -> Predicate {
        Predicate("(NOT \(predicate.sql))", error: predicate.error)
    }
}

extension SQL {
    static func + (lhs: SQL, rhs: SQL) -> SQL {
        var result = lhs
        result.append(rhs)
        return result
    }
}

// MARK: - Comparisons

extension Column where Value: Encodable {
    /// The column text, forced to compare exact bytes when the column has another collation.
    var comparableSQL: SQL {
        guard let collation, collation != .binary else { return sql }
        return "\(sql) COLLATE BINARY"
    }

    func compare(_ op: String, _ value: Value) -> Predicate {
        let (stored, conversionError) = storedValue(value)
        return Predicate("(\(comparableSQL) \(SQL(op)) \(stored))", error: error ?? conversionError)
    }

    /// Equal, NULL-safe: matches NULL when `value` is `nil`.
    public static func == (lhs: Column, rhs: Value) -> Predicate {
        lhs.compare(lhs.isNullable ? "IS" : "=", rhs)
    }

    /// Not equal, NULL-safe: an optional column holding NULL is not equal to a value.
    public static func != (lhs: Column, rhs: Value) -> Predicate {
        lhs.compare(lhs.isNullable ? "IS NOT" : "<>", rhs)
    }

    /// Whether the value is one of `values`: `$0.score.in([1, 2, 3])`.
    ///
    /// - Parameter values: The candidates; none matches nothing.
    public func `in`<S: Sequence>(_ values: S) -> Predicate where S.Element == Value {
        var conversionError: (any Error)?
        var candidates: [DatabaseValue] = []
        for value in values {
            let (stored, problem) = storedValue(value)
            conversionError = conversionError ?? problem
            candidates.append(stored)
        }
        guard !candidates.isEmpty else { return Predicate("0", error: error) }
        let hasNull = candidates.contains(.null)
        let nonNull = candidates.filter { !$0.isNull }
        var parts: [SQL] = []
        if !nonNull.isEmpty { parts.append("\(comparableSQL) IN \(list: nonNull)") }
        if hasNull { parts.append("\(sql) IS NULL") }
        let joined = parts.dropFirst().reduce(parts[0]) { "\($0) OR \($1)" }
        return Predicate("(\(joined))", error: error ?? conversionError)
    }
}

extension Column where Value: Encodable & Comparable {
    public static func < (lhs: Column, rhs: Value) -> Predicate { lhs.compare("<", rhs) }
    public static func <= (lhs: Column, rhs: Value) -> Predicate { lhs.compare("<=", rhs) }
    public static func > (lhs: Column, rhs: Value) -> Predicate { lhs.compare(">", rhs) }
    public static func >= (lhs: Column, rhs: Value) -> Predicate { lhs.compare(">=", rhs) }
}

extension Column {
    /// Compares two columns of the same type: `$0.wins > $0.losses`.
    func compare(_ op: String, _ other: Column) -> Predicate {
        Predicate("(\(sql) \(SQL(op)) \(other.sql))", error: error ?? other.error)
    }
}

extension Column where Value: Comparable {
    public static func < (lhs: Column, rhs: Column) -> Predicate { lhs.compare("<", rhs) }
    public static func <= (lhs: Column, rhs: Column) -> Predicate { lhs.compare("<=", rhs) }
    public static func > (lhs: Column, rhs: Column) -> Predicate { lhs.compare(">", rhs) }
    public static func >= (lhs: Column, rhs: Column) -> Predicate { lhs.compare(">=", rhs) }
}

extension Column where Value: Equatable {
    public static func == (lhs: Column, rhs: Column) -> Predicate { lhs.compare("IS", rhs) }
    public static func != (lhs: Column, rhs: Column) -> Predicate { lhs.compare("IS NOT", rhs) }
}

extension Sequence where Element: Encodable {
    /// Whether a column's value is one of these: `[1, 2, 3].contains($0.score)`.
    ///
    /// - Parameter column: The column.
    public func contains(_ column: Column<Element>) -> Predicate {
        column.in(self)
    }
}

extension ClosedRange where Bound: Encodable {
    /// Whether a column's value lies in the range: `(10...20).contains($0.score)`.
    ///
    /// - Parameter column: The column.
    public func contains(_ column: Column<Bound>) -> Predicate {
        column >= lowerBound && column <= upperBound
    }
}

extension Range where Bound: Encodable {
    /// Whether a column's value lies in the half-open range: `(10..<20).contains($0.score)`.
    ///
    /// - Parameter column: The column.
    public func contains(_ column: Column<Bound>) -> Predicate {
        column >= lowerBound && column < upperBound
    }
}

// MARK: - Booleans

extension Column where Value == Bool {
    /// The column is true: `.where { $0.flag.isTrue }`.
    public var isTrue: Predicate { self == true }
}

// MARK: - Strings

extension Column where Value: StringProtocol & Encodable {
    private func textPredicate(_ body: (SQL, DatabaseValue) -> SQL, _ text: String) -> Predicate {
        Predicate("(\(body(sql, .text(text))))", error: error)
    }

    /// Whether the text starts with `prefix`, case-sensitively; `%`, `_` and `\` are plain
    /// characters. Compares exact UTF-8 bytes, NUL characters included.
    ///
    /// - Parameter prefix: The prefix.
    public func hasPrefix(_ prefix: String) -> Predicate {
        textPredicate(
            { column, value in
                "substr(CAST(\(column) AS BLOB), 1, length(CAST(\(value) AS BLOB))) = CAST(\(value) AS BLOB)"
            }, prefix)
    }

    /// Whether the text ends with `suffix`, case-sensitively, by exact UTF-8 bytes.
    ///
    /// - Parameter suffix: The suffix.
    public func hasSuffix(_ suffix: String) -> Predicate {
        guard !suffix.isEmpty else { return Predicate("(\(sql) IS NOT NULL)", error: error) }
        return textPredicate(
            { column, value in
                "substr(CAST(\(column) AS BLOB), -length(CAST(\(value) AS BLOB))) = CAST(\(value) AS BLOB)"
            }, suffix)
    }

    /// Whether the text contains `other`, case-sensitively, by exact UTF-8 bytes.
    ///
    /// - Parameter other: The text to look for.
    public func contains(_ other: String) -> Predicate {
        textPredicate(
            { column, value in "instr(CAST(\(column) AS BLOB), CAST(\(value) AS BLOB)) > 0" }, other)
    }

    /// Whether the text starts with `prefix`, ignoring the case of ASCII letters.
    ///
    /// - Parameter prefix: The prefix.
    public func caseInsensitiveHasPrefix(_ prefix: String) -> Predicate {
        textPredicate(
            { column, value in
                "substr(lower(\(column)), 1, length(\(value))) = lower(\(value)) COLLATE BINARY"
            }, prefix)
    }

    /// Whether the text ends with `suffix`, ignoring the case of ASCII letters.
    ///
    /// - Parameter suffix: The suffix.
    public func caseInsensitiveHasSuffix(_ suffix: String) -> Predicate {
        textPredicate(
            { column, value in
                "length(\(column)) >= length(\(value)) AND substr(lower(\(column)), length(\(column)) - length(\(value)) + 1) = lower(\(value)) COLLATE BINARY"
            }, suffix)
    }

    /// Whether the text contains `other`, ignoring the case of ASCII letters.
    ///
    /// - Parameter other: The text to look for.
    public func caseInsensitiveContains(_ other: String) -> Predicate {
        textPredicate({ column, value in "instr(lower(\(column)), lower(\(value))) > 0" }, other)
    }
}

// MARK: - JSON collections

extension Column where Value: Collection {
    /// The number of elements of an array stored as JSON: `$0.tags.count > 2`.
    public var count: Column<Int> {
        if let jsonPath {
            return derived(
                "coalesce(json_array_length(\(SQL(SQL.quoteIdentifier(jsonPath.column))), \(jsonPath.path)), 0)",
                isNullable: false)
        }
        return derived("coalesce(json_array_length(\(sql)), 0)", isNullable: false)
    }

    /// Whether the array is empty.
    public var isEmpty: Predicate { count == 0 }
}

extension Column where Value: Collection, Value.Element: Encodable {
    /// Whether an array stored as JSON holds `element`: `$0.tags.contains("pro")`.
    ///
    /// - Parameter element: The element to look for.
    public func contains(_ element: Value.Element) -> Predicate {
        let (stored, conversionError) = Column<Value.Element>(
            sql: sql, columnName: nil, isNullable: true, isJSON: false, collation: nil, dateStorage: .text,
            jsonPath: nil, error: nil
        ).storedValue(element)
        let source: SQL =
            if let jsonPath {
                "json_each(\(SQL(SQL.quoteIdentifier(jsonPath.column))), \(jsonPath.path))"
            } else {
                "json_each(\(sql))"
            }
        return Predicate(
            "EXISTS (SELECT 1 FROM \(source) WHERE value = \(stored))", error: error ?? conversionError)
    }
}

extension Column {
    /// The value stored under a key of a dictionary stored as JSON: `$0.scores["math"] > 3`.
    public subscript<Element>(key: String) -> Column<Element?> where Value == [String: Element] {
        do {
            return try jsonMember([key], keyPathText: "[\(key.debugDescription)]")
        } catch {
            return Column<Element?>(failure: error)
        }
    }
}

// MARK: - Arithmetic

extension Column where Value: Numeric & Encodable {
    public static func + (lhs: Column, rhs: Value) -> Column { lhs.arithmetic("+", rhs) }
    public static func - (lhs: Column, rhs: Value) -> Column { lhs.arithmetic("-", rhs) }
    public static func * (lhs: Column, rhs: Value) -> Column { lhs.arithmetic("*", rhs) }

    private func arithmetic(_ op: String, _ value: Value) -> Column {
        let (stored, conversionError) = storedValue(value)
        let result: Column = derived("(\(sql) \(SQL(op)) \(stored))")
        return conversionError.map { Column(failure: $0) } ?? result
    }
}
