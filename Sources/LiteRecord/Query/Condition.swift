/// A condition on a model's rows, built from ``Column`` comparisons with Swift's operators.
///
/// A condition means what the same closure means in Swift on the decoded models: `!=` on an
/// optional column matches NULL rows, `== nil` is `IS NULL`, string comparisons are
/// case-sensitive (by exact UTF-8 bytes, even on a `COLLATE NOCASE` column).
public struct Condition: Sendable {
    let sql: SQL
    let error: (any Error)?

    init(_ sql: SQL, error: (any Error)? = nil) {
        self.sql = sql
        self.error = error
    }

    /// A condition written in SQL, with bound interpolation: `Condition(sql: "score > \(x)")`.
    ///
    /// - Parameter sql: A boolean SQL expression.
    public init(sql: SQL) {
        self.init(SQL("(") + sql + SQL(")"))
    }

    /// Both conditions hold.
    public static func && (lhs: Condition, rhs: Condition) -> Condition {
        Condition("(\(lhs.sql) AND \(rhs.sql))", error: lhs.error ?? rhs.error)
    }

    /// Either condition holds.
    public static func || (lhs: Condition, rhs: Condition) -> Condition {
        Condition("(\(lhs.sql) OR \(rhs.sql))", error: lhs.error ?? rhs.error)
    }

    /// The condition does not hold.
    public static prefix func ! (condition: Condition) -> Condition {
        Condition("(NOT \(condition.sql))", error: condition.error)
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

    func compare(_ op: String, _ value: Value) -> Condition {
        if let condition = storedValueCondition(op, value) { return condition }
        let (stored, conversionError) = storedValue(value)
        return Condition("(\(comparableSQL) \(SQL(op)) \(stored))", error: error ?? conversionError)
    }

    /// Equal, NULL-safe: matches NULL when `value` is `nil`.
    public static func == (lhs: Column, rhs: Value) -> Condition {
        lhs.compare(lhs.isNullable ? "IS" : "=", rhs)
    }

    /// Not equal, NULL-safe: an optional column holding NULL is not equal to a value.
    public static func != (lhs: Column, rhs: Value) -> Condition {
        lhs.compare(lhs.isNullable ? "IS NOT" : "<>", rhs)
    }

    /// Whether the value is one of `values`: `$0.score.in([1, 2, 3])`.
    ///
    /// - Parameter values: The candidates; none matches nothing.
    public func `in`<S: Sequence>(_ values: S) -> Condition where S.Element == Value {
        if let condition = storedValueMembership(values) { return condition }
        var conversionError: (any Error)?
        var candidates: [DatabaseValue] = []
        for value in values {
            let (stored, problem) = storedValue(value)
            conversionError = conversionError ?? problem
            candidates.append(stored)
        }
        guard !candidates.isEmpty else { return Condition("0", error: error) }
        let hasNull = candidates.contains(.null)
        let nonNull = candidates.filter { !$0.isNull }
        var parts: [SQL] = []
        if !nonNull.isEmpty { parts.append("\(comparableSQL) IN \(list: nonNull)") }
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
    public static func < (lhs: Column, rhs: Value) -> Condition { lhs.compare("<", rhs) }
    public static func <= (lhs: Column, rhs: Value) -> Condition { lhs.compare("<=", rhs) }
    public static func > (lhs: Column, rhs: Value) -> Condition { lhs.compare(">", rhs) }
    public static func >= (lhs: Column, rhs: Value) -> Condition { lhs.compare(">=", rhs) }
}

extension Column {
    /// Compares two columns of the same type: `$0.wins > $0.losses`; by exact bytes, even when
    /// a column has another collation.
    func compare(_ op: String, _ other: Column) -> Condition {
        if let condition = storedValueCondition(op, other) { return condition }
        let collated = [collation, other.collation].contains { $0 != nil && $0 != .binary }
        let left: SQL = collated ? "\(sql) COLLATE BINARY" : sql
        return Condition("(\(left) \(SQL(op)) \(other.sql))", error: error ?? other.error)
    }
}

extension Column where Value: Comparable {
    public static func < (lhs: Column, rhs: Column) -> Condition { lhs.compare("<", rhs) }
    public static func <= (lhs: Column, rhs: Column) -> Condition { lhs.compare("<=", rhs) }
    public static func > (lhs: Column, rhs: Column) -> Condition { lhs.compare(">", rhs) }
    public static func >= (lhs: Column, rhs: Column) -> Condition { lhs.compare(">=", rhs) }
}

extension Column where Value: Equatable {
    public static func == (lhs: Column, rhs: Column) -> Condition { lhs.compare("IS", rhs) }
    public static func != (lhs: Column, rhs: Column) -> Condition { lhs.compare("IS NOT", rhs) }
}

extension Sequence where Element: Encodable {
    /// Whether a column's value is one of these: `[1, 2, 3].contains($0.score)`.
    ///
    /// - Parameter column: The column.
    public func contains(_ column: Column<Element>) -> Condition {
        column.in(self)
    }
}

extension ClosedRange where Bound: Encodable {
    /// Whether a column's value lies in the range: `(10...20).contains($0.score)`.
    ///
    /// - Parameter column: The column.
    public func contains(_ column: Column<Bound>) -> Condition {
        column >= lowerBound && column <= upperBound
    }
}

extension Range where Bound: Encodable {
    /// Whether a column's value lies in the half-open range: `(10..<20).contains($0.score)`.
    ///
    /// - Parameter column: The column.
    public func contains(_ column: Column<Bound>) -> Condition {
        column >= lowerBound && column < upperBound
    }
}

// MARK: - Booleans

extension Column where Value == Bool {
    /// The column is true: `.where { $0.flag.isTrue }`.
    public var isTrue: Condition { self == true }
}

// MARK: - Strings

extension Column where Value: StringProtocol & Encodable {
    private func textCondition(_ body: (SQL, DatabaseValue) -> SQL, _ text: String) -> Condition {
        Condition("(\(body(sql, .text(text))))", error: error)
    }

    /// Whether the text starts with `prefix`, case-sensitively; `%`, `_` and `\` are plain
    /// characters. Compares exact UTF-8 bytes, NUL characters included.
    ///
    /// - Parameter prefix: The prefix.
    public func hasPrefix(_ prefix: String) -> Condition {
        textCondition(
            { column, value in
                // substr() of an empty blob is NULL, not an empty blob.
                "coalesce(substr(CAST(\(column) AS BLOB), 1, length(CAST(\(value) AS BLOB))), x'') = CAST(\(value) AS BLOB)"
            }, prefix)
    }

    /// Whether the text ends with `suffix`, case-sensitively, by exact UTF-8 bytes.
    ///
    /// - Parameter suffix: The suffix.
    public func hasSuffix(_ suffix: String) -> Condition {
        guard !suffix.isEmpty else { return Condition("(\(sql) IS NOT NULL)", error: error) }
        return textCondition(
            { column, value in
                "coalesce(substr(CAST(\(column) AS BLOB), -length(CAST(\(value) AS BLOB))), x'') = CAST(\(value) AS BLOB)"
            }, suffix)
    }

    /// Whether the text contains `other`, case-sensitively, by exact UTF-8 bytes.
    ///
    /// - Parameter other: The text to look for.
    public func contains(_ other: String) -> Condition {
        textCondition(
            { column, value in "instr(CAST(\(column) AS BLOB), CAST(\(value) AS BLOB)) > 0" }, other)
    }

    /// Whether the text starts with `prefix`, ignoring the case of ASCII letters.
    ///
    /// - Parameter prefix: The prefix.
    public func caseInsensitiveHasPrefix(_ prefix: String) -> Condition {
        // Bytes, not characters: text functions stop at a NUL character; lower() keeps lengths.
        textCondition(
            { column, value in
                "coalesce(substr(CAST(lower(\(column)) AS BLOB), 1, length(CAST(\(value) AS BLOB))), x'') = CAST(lower(\(value)) AS BLOB)"
            }, prefix)
    }

    /// Whether the text ends with `suffix`, ignoring the case of ASCII letters.
    ///
    /// - Parameter suffix: The suffix.
    public func caseInsensitiveHasSuffix(_ suffix: String) -> Condition {
        guard !suffix.isEmpty else { return Condition("(\(sql) IS NOT NULL)", error: error) }
        return textCondition(
            { column, value in
                "coalesce(substr(CAST(lower(\(column)) AS BLOB), -length(CAST(\(value) AS BLOB))), x'') = CAST(lower(\(value)) AS BLOB)"
            }, suffix)
    }

    /// Whether the text contains `other`, ignoring the case of ASCII letters.
    ///
    /// - Parameter other: The text to look for.
    public func caseInsensitiveContains(_ other: String) -> Condition {
        textCondition({ column, value in "instr(lower(\(column)), lower(\(value))) > 0" }, other)
    }
}

// MARK: - JSON collections

extension Column where Value: Collection {
    /// The number of elements of an array or dictionary stored as JSON: `$0.tags.count > 2`.
    public var count: Column<Int> {
        guard (isJSON || jsonPath != nil) && !(Value.self is any StringProtocol.Type) else {
            return Column<Int>(
                failure: error
                    ?? SchemaError(
                        "count of \(sql.text) (\(Value.self)) cannot be computed in SQL: only arrays and "
                            + "dictionaries stored as JSON have a count"))
        }
        let source: SQL = jsonPath.map { "\(SQL(SQL.quoteIdentifier($0.column))), \($0.path)" } ?? sql
        // A dictionary is a JSON object, whose json_array_length() is 0: count its keys.
        if Value.self is any JSONObjectCollection.Type {
            return derived("(SELECT count(*) FROM json_each(\(source)))", isNullable: false)
        }
        return derived("coalesce(json_array_length(\(source)), 0)", isNullable: false)
    }

    /// Whether the array is empty.
    public var isEmpty: Condition { count == 0 }
}

extension Column where Value: Collection, Value.Element: Encodable {
    /// Whether an array stored as JSON holds `element`: `$0.tags.contains("pro")`.
    ///
    /// - Parameter element: The element to look for.
    public func contains(_ element: Value.Element) -> Condition {
        let (stored, conversionError) = JSONMemberForm.sql(element)
        let source: SQL =
            if let jsonPath {
                "json_each(\(SQL(SQL.quoteIdentifier(jsonPath.column))), \(jsonPath.path))"
            } else {
                "json_each(\(sql))"
            }
        // `IS`, so that an array of optionals contains `nil` (a JSON null reads as NULL).
        return Condition(
            "EXISTS (SELECT 1 FROM \(source) WHERE value IS \(stored))", error: error ?? conversionError)
    }
}

/// Dictionaries, which JSON stores as objects.
protocol JSONObjectCollection {}
extension Dictionary: JSONObjectCollection {}

extension Column {
    /// The value stored under a key of a dictionary stored as JSON: `$0.scores["math"] > 3`.
    public subscript<Element>(key: String) -> Column<Element?> where Value == [String: Element] {
        do {
            let member: Column<Element?> = try jsonMember([key], keyPathText: "[\(key.debugDescription)]")
            // A JSON path cannot name a key holding `"` (nor, before SQLite 3.45, a control character).
            guard key.unicodeScalars.contains(where: { $0 == "\"" || $0.value < 0x20 }),
                let (column, path) = jsonPath ?? columnName.map({ ($0, "$") })
            else { return member }
            return derived(
                "(SELECT value FROM json_each(\(SQL(SQL.quoteIdentifier(column))), \(path)) WHERE key = \(key))",
                isNullable: true)
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
