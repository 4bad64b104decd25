import Foundation

/// How a column's values compare, sort and aggregate in SQL, so that a query means what the
/// same closure means in Swift on the decoded models, whatever form the value is stored in.
///
/// A stored value may not be in the form LiteRecord writes: another tool stored a UUID in lower
/// case or as 16 bytes, a date as `1996-07-04 00:00:00.000`, ISO-8601 text or a number, or the
/// file was written under another ``DateStorage``. Comparing the raw column with the bound value
/// would compare spellings; these rules compare values:
/// - `Date`: through `literecord_instant(column, storage)`, the exact `Double` the decoder
///   produces (see ``StoredValueFunctions``);
/// - `UUID`: equality and `in` against every spelling of the UUID (`IN (upper, lower, blob)`,
///   which an index serves); ordering through `literecord_uuid`, its bytes;
/// - `Decimal`: by value, exactly, with the `literecord_decimal` collation;
/// - a member of a JSON column: the Swift value is bound in the form the JSON holds it (how the
///   JSON column's encoder writes it: `Decimal` a number, `Data` base64 text, ...), read back
///   through `->>` exactly as the member is.
enum StoredComparison {
    case plain
    case date(DateStorage)
    case uuid
    case decimal
    case jsonMember
}

/// An optional type, seen through `Any.Type` (`wrappedType` is declared with the schema probe).
protocol OptionalWrapper {
    static var wrappedType: Any.Type { get }
}

extension Optional: OptionalWrapper {}

extension Column {
    /// The comparison rule of this column (see ``StoredComparison``).
    var storedComparison: StoredComparison {
        if jsonPath != nil { return dialect.comparesStoredFormsPlainly ? .plain : .jsonMember }
        // Expressions (aggregates, arithmetic) keep SQLite's own rules.
        guard columnName != nil else { return .plain }
        let type = (Value.self as? any OptionalWrapper.Type)?.wrappedType ?? Value.self
        // A dialect whose columns hold what LiteRecord wrote in one form compares values as
        // stored, but for a UUID: its text column also holds the lower case another tool writes.
        if dialect.comparesStoredFormsPlainly { return type == UUID.self ? .uuid : .plain }
        if type == Date.self { return .date(dateStorage) }
        if type == UUID.self { return .uuid }
        if type == Decimal.self { return .decimal }
        return .plain
    }

    /// The expression to sort by: the value, not its spelling.
    var orderingSQL: SQL {
        switch storedComparison {
        case .plain, .jsonMember: sql
        case .date(let storage): "\(SQL(StoredValueFunctions.instant))(\(sql), \(storage.functionCode))"
        case .uuid: uuidOrderingSQL
        case .decimal: decimalSQL
        }
    }

    /// A UUID's 16 bytes (SQLite), or its upper case text (a dialect storing UUIDs as text
    /// only), which sort alike: hexadecimal digits, then letters, sort as the nibbles they spell.
    private var uuidOrderingSQL: SQL {
        dialect.comparesStoredFormsPlainly ? "upper(\(sql))" : "\(SQL(StoredValueFunctions.uuid))(\(sql))"
    }

    /// `min(...)` or `max(...)` of the column, as a value of the column's own type.
    func extremumSQL(_ function: String) -> SQL {
        switch storedComparison {
        case .date(let storage):
            // The extreme instant, back as text the decoder reads exactly.
            let extreme: SQL = "\(SQL(function))(\(orderingSQL))"
            return "\(SQL(StoredValueFunctions.dateText))(\(extreme), \(storage.functionCode))"
        case .decimal:
            // min() and max() follow their argument's collation and return the stored text.
            return "\(SQL(function))(\(decimalSQL))"
        case .uuid:
            // The extreme UUID's 16 bytes or upper case text, which read back as a UUID.
            return "\(SQL(function))(\(orderingSQL))"
        case .plain, .jsonMember:
            return "\(SQL(dialect.extremumFunction(function, of: Value.self)))(\(sql))"
        }
    }

    /// `sum(...)` of the column: a `Decimal` exactly (SQLite's `sum` adds its text as REALs),
    /// integers exactly whatever the row order (see ``SQLDialect/sum(_:of:)``).
    var sumSQL: SQL {
        if case .decimal = storedComparison { return "\(SQL(DecimalSum.name))(\(sql))" }
        return dialect.sum(sql, of: Value.self)
    }

    private var decimalSQL: SQL {
        "\(SQL(StoredValueFunctions.decimal))(\(sql)) COLLATE \(SQL(StoredValueFunctions.decimal))"
    }
}

// MARK: - Comparisons

extension Column {
    /// `column op other` compared as values (dates as instants, UUIDs as bytes, decimals by
    /// value), or `nil` when the plain comparison is right.
    func storedValueCondition<Other>(_ op: String, _ other: Column<Other>) -> Condition? {
        switch (storedComparison, other.storedComparison) {
        case (.date, .date), (.uuid, .uuid), (.decimal, .decimal):
            return Condition("(\(orderingSQL) \(SQL(op)) \(other.orderingSQL))", error: error ?? other.error)
        default:
            return nil
        }
    }
}

extension Condition {
    /// The condition, false (not NULL) where `expression` is NULL, so that `!` of it holds there.
    func requiringNonNull(_ expression: SQL) -> Condition {
        Condition(
            "(\(sql) AND \(expression) IS NOT NULL)", error: error,
            exact: exactSQL.map { "(\($0) AND \(expression) IS NOT NULL)" }, narrowing: narrowing)
    }
}

extension Column where Value: Encodable {
    /// `column op value` compared as values, or `nil` when the plain comparison is right.
    ///
    /// - Parameter op: `=`, `<>`, `IS`, `IS NOT`, `<`, `<=`, `>` or `>=`.
    func storedValueCondition(_ op: String, _ value: Value) -> Condition? {
        let kind = storedComparison
        if case .plain = kind { return nil }
        let candidate: Candidate
        switch Candidate.make(value, kind: kind, textOnly: dialect.comparesStoredFormsPlainly) {
        case .success(let made?): candidate = made
        case .success(nil): return nil  // nil: `IS NULL`, as plain
        case .failure(let problem): return Condition(SQL(dialect.falseCondition), error: error ?? problem)
        }
        let isEquality = op == "=" || op == "IS"
        if case .uuid = kind, isEquality || op == "<>" || op == "IS NOT" {
            // Every spelling of the UUID: an index on the column serves the IN list.
            let spellings: SQL = "\(comparableSQL) IN \(list: candidate.spellings)"
            if isEquality { return Condition("(\(spellings))", error: error) }
            let notIn: SQL = "\(comparableSQL) NOT IN \(list: candidate.spellings)"
            return Condition(isNullable ? "(\(sql) IS NULL OR \(notIn))" : "(\(notIn))", error: error)
        }
        let exact: SQL = "(\(comparedSQL(kind)) \(SQL(op)) \(candidate.sql))"
        if case .date(.text) = kind, let date = value as Any as? Date,
            let bands = DatePrefilter.bands(op, [date.timeIntervalSinceReferenceDate]), let band = bands.first
        {
            // Lets the column's index (and its partial index of other forms) narrow the rows.
            let prefilter = DatePrefilter.condition(sql, bands: bands)
            return Condition(
                "(\(prefilter) AND \(exact))", error: error, exact: exact,
                narrowing: DatePrefilter.Narrowing(column: sql, band: band))
        }
        return Condition(exact, error: error)
    }

    /// Whether the value is one of `values`, compared as values; `nil` when the plain
    /// membership test is right.
    func storedValueMembership(_ values: some Sequence<Value>) -> Condition? {
        let kind = storedComparison
        if case .plain = kind { return nil }
        var candidates: [SQL] = []
        var instants: [Double] = []
        var hasNull = false
        for value in values {
            if case .date = kind, let date = value as Any as? Date {
                instants.append(date.timeIntervalSinceReferenceDate)
            }
            switch Candidate.make(value, kind: kind, textOnly: dialect.comparesStoredFormsPlainly) {
            case .success(let made?):
                if case .uuid = kind {
                    candidates += made.spellings.map { (spelling) -> SQL in "\(spelling)" }
                } else {
                    candidates.append(made.sql)
                }
            case .success(nil): hasNull = true
            case .failure(let problem): return Condition(SQL(dialect.falseCondition), error: error ?? problem)
            }
        }
        guard !candidates.isEmpty || hasNull else {
            return Condition(SQL(dialect.falseCondition), error: error)
        }
        let lhs: SQL
        if case .uuid = kind { lhs = comparableSQL } else { lhs = comparedSQL(kind) }
        let list = candidates.dropFirst().reduce(candidates.first ?? "") { "\($0), \($1)" }
        var parts: [SQL] = []
        if !candidates.isEmpty { parts.append("\(lhs) IN (\(list))") }
        if hasNull {
            parts.append("\(sql) IS NULL")
        } else {
            // `NULL IN (...)` is NULL, which `NOT` keeps NULL: make it false, as in Swift.
            let exact: SQL = isNullable ? "(\(parts[0]) AND \(sql) IS NOT NULL)" : "(\(parts[0]))"
            if case .date(.text) = kind, let prefilter = DatePrefilter.condition(sql, "IN", instants) {
                return Condition("(\(prefilter) AND \(exact))", error: error, exact: exact)
            }
            if isNullable { return Condition(exact, error: error) }
        }
        let joined = parts.dropFirst().reduce(parts[0]) { "\($0) OR \($1)" }
        return Condition("(\(joined))", error: error)
    }

    /// The left side of a value comparison.
    private func comparedSQL(_ kind: StoredComparison) -> SQL {
        switch kind {
        case .jsonMember, .plain: sql
        case .date, .uuid, .decimal: orderingSQL
        }
    }
}

/// A Swift value in the form its column's comparison binds.
private struct Candidate {
    /// The bound expression compared with the column's compared expression.
    var sql: SQL
    /// For a UUID: its spellings (canonical text, lower case text, and 16 bytes unless the
    /// column holds text only).
    var spellings: [DatabaseValue] = []

    /// - Parameter textOnly: Whether the column holds UUIDs as text only (no 16-byte form to
    ///   match, and ordered by its upper case text).
    /// - Returns: `nil` inside `.success` for a `nil` value.
    static func make<T: Encodable>(_ value: T, kind: StoredComparison, textOnly: Bool = false)
        -> Result<Candidate?, any Error>
    {
        Result {
            // `as?` sees through an optional: a `nil` value casts to nothing.
            let unwrapped = value as Any
            switch kind {
            case .plain:
                return Candidate(sql: "\(try StoredForm.databaseValue(value, dateStorage: .text))")
            case .date:
                guard let date = unwrapped as? Date else { return nil }
                try DateStorage.requireFinite(date)
                return Candidate(sql: "\(DatabaseValue.real(date.timeIntervalSinceReferenceDate))")
            case .uuid:
                guard let uuid = unwrapped as? UUID else { return nil }
                guard !textOnly else {
                    let spellings = UUIDSpellings.text(uuid)
                    return Candidate(sql: "\(spellings[0])", spellings: spellings)
                }
                let spellings = UUIDSpellings.all(uuid)
                return Candidate(sql: "\(spellings[2])", spellings: spellings)
            case .decimal:
                guard let decimal = unwrapped as? Decimal else { return nil }
                return Candidate(sql: "\(try decimal.databaseValue())")
            case .jsonMember:
                return try JSONMemberForm.candidate(value).map { Candidate(sql: $0) }
            }
        }
    }
}

/// A Swift value as a member of a JSON value holds it, read as SQLite reads members.
enum JSONMemberForm {
    /// `([value] ->> '$[0]')`: the value through the JSON columns' encoder (a `Decimal` is a
    /// number, `Data` base64 text, a `Date` the JSON columns' text), read back the way `->>`
    /// and `json_each` read a member; `nil` for a value JSON writes as `null`.
    static func candidate<T: Encodable>(_ value: T) throws -> SQL? {
        if storesAlike(T.self) {
            // The column's own form is what the JSON holds: bind it as it is.
            let stored = try StoredForm.databaseValue(value, dateStorage: .text)
            return stored.isNull ? nil : "\(stored)"
        }
        let data = try JSONColumn.encoder.encode([value])
        let text = String(decoding: data, as: UTF8.self)
        if text == "[null]" { return nil }
        return "(\(DatabaseValue.text(text)) ->> '$[0]')"
    }

    /// Whether a value of this type is stored in a column exactly as `->>` reads it from JSON:
    /// numbers, booleans, strings, dates (JSON holds their column text), UUIDs, URLs and
    /// raw-value enums. Others (`Decimal` is a JSON number, `Data` base64 text, a type with its
    /// own column storage is JSON by its `Codable` form) go through the JSON encoder.
    private static func storesAlike(_ type: Any.Type) -> Bool {
        let type = (type as? any OptionalWrapper.Type)?.wrappedType ?? type
        if type is any RawRepresentable.Type { return true }
        return alikeTypes.contains(ObjectIdentifier(type))
    }

    private static let alikeTypes: Set<ObjectIdentifier> = [
        ObjectIdentifier(Int.self), ObjectIdentifier(Int8.self), ObjectIdentifier(Int16.self),
        ObjectIdentifier(Int32.self), ObjectIdentifier(Int64.self), ObjectIdentifier(UInt.self),
        ObjectIdentifier(UInt8.self), ObjectIdentifier(UInt16.self), ObjectIdentifier(UInt32.self),
        ObjectIdentifier(UInt64.self), ObjectIdentifier(Bool.self), ObjectIdentifier(Double.self),
        ObjectIdentifier(Float.self), ObjectIdentifier(String.self), ObjectIdentifier(Date.self),
        ObjectIdentifier(UUID.self), ObjectIdentifier(URL.self),
    ]

    /// ``candidate(_:)``, `NULL` for `nil`, and the encoding error if there is one.
    static func sql<T: Encodable>(_ value: T) -> (SQL, (any Error)?) {
        do {
            return (try candidate(value) ?? "NULL", nil)
        } catch {
            return ("NULL", error)
        }
    }
}

/// The forms a UUID is found stored in.
package enum UUIDSpellings {
    /// Canonical upper-case text (what LiteRecord writes), lower-case text, 16 bytes.
    static func all(_ uuid: UUID) -> [DatabaseValue] {
        text(uuid) + [.blob(withUnsafeBytes(of: uuid.uuid) { Data($0) })]
    }

    /// Canonical upper-case text and lower-case text: the spellings a text-only column holds.
    package static func text(_ uuid: UUID) -> [DatabaseValue] {
        let canonical = uuid.uuidString
        return [.text(canonical), .text(canonical.lowercased())]
    }

    /// The text spellings of a key value that names a UUID; the value twice otherwise, so the
    /// statement's placeholders are always filled.
    package static func text(of value: DatabaseValue) -> [DatabaseValue] {
        spellings(of: value, text(_:)) ?? [value, value]
    }

    /// Every spelling of a key value that names a UUID (text in either case or 16 bytes); the
    /// value three times otherwise, so the statement's placeholders are always filled.
    static func all(of value: DatabaseValue) -> [DatabaseValue] {
        spellings(of: value, all(_:)) ?? [value, value, value]
    }

    /// `spell` of the UUID a key value names, `nil` when it names none.
    private static func spellings(
        of value: DatabaseValue, _ spell: (UUID) -> [DatabaseValue]
    ) -> [DatabaseValue]? {
        switch value {
        case .text, .blob: (try? UUID.fromDatabaseValue(value)).map(spell)
        default: nil
        }
    }
}

extension DateStorage {
    /// Throws the error storing `date` would throw when its interval is not finite.
    static func requireFinite(_ date: Date) throws {
        guard date.timeIntervalSinceReferenceDate.isFinite else {
            throw ValueConversionError(
                storing: Date.self,
                reason: "its time interval (\(date.timeIntervalSinceReferenceDate)) is not a finite number")
        }
    }
}
