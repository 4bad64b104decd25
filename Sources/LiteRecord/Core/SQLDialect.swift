import Foundation

/// The SQL a backend speaks where it differs from SQLite's: the one seam between LiteRecord's
/// SQL generation (models, schema, the query language) and another database.
///
/// LiteRecord itself speaks ``sqlite`` and its output does not change. The PostgreSQL backend
/// (product `LiteRecordPostgres`) builds its queries with the same `Query` and `Column` code
/// while ``current`` is ``postgres``; the few places where the text differs ask ``current``.
/// Package access only: it is not part of LiteRecord's public API.
package enum SQLDialect: Sendable, Equatable {
    case sqlite
    case postgres

    /// The dialect that query closures and SQL builders are writing for right now.
    ///
    /// A task-local value rather than a parameter threaded through every `Column` operator:
    /// query closures run synchronously inside `where`/`order` and SQL is built synchronously,
    /// so a backend sets it around those calls (`SQLDialect.$current.withValue(.postgres) {...}`)
    /// and SQLite's path, which never sets it, reads `.sqlite` and stays byte for byte the same.
    @TaskLocal package static var current: SQLDialect = .sqlite

    /// NULL-safe equality: `IS` in SQLite, `IS NOT DISTINCT FROM` in PostgreSQL.
    package var nullSafeEqual: String { self == .sqlite ? "IS" : "IS NOT DISTINCT FROM" }

    /// NULL-safe inequality: `IS NOT` in SQLite, `IS DISTINCT FROM` in PostgreSQL.
    package var nullSafeNotEqual: String { self == .sqlite ? "IS NOT" : "IS DISTINCT FROM" }

    /// A condition that is always false (`0` in SQLite, which has no boolean type).
    package var falseCondition: String { self == .sqlite ? "0" : "FALSE" }

    /// `LIMIT` without a bound, for an `OFFSET` alone.
    package var unboundedLimit: String { self == .sqlite ? "-1" : "ALL" }

    /// The column type for a model column.
    ///
    /// PostgreSQL: integers `bigint`, `Bool` `boolean`, floating point `double precision`,
    /// `Decimal` `numeric`, bytes `bytea`, JSON values `jsonb`, text (dates stored as text
    /// included, which keeps their full precision) `text COLLATE "C"`, so that text compares by
    /// bytes as on SQLite, whatever the database's locale.
    ///
    /// - Parameters:
    ///   - declared: The type LiteRecord declares for SQLite.
    ///   - isJSON: Whether the column holds JSON.
    ///   - isBoolean: Whether the Swift value is a `Bool`.
    /// - Returns: The type's SQL text.
    package func columnType(_ declared: DatabaseColumnType, isJSON: Bool, isBoolean: Bool) -> String {
        guard self == .postgres else { return declared.rawValue }
        if isJSON || declared == .json { return "jsonb" }
        if isBoolean { return "boolean" }
        switch declared {
        case .integer: return "bigint"
        case .real: return "double precision"
        case .blob: return "bytea"
        case .numeric: return "numeric"
        default: return "text COLLATE \"C\""
        }
    }

    /// A value inside a JSON column, read as the member's Swift type compares: numbers as
    /// numbers, booleans as booleans, everything else as text compared by bytes. SQLite reads it
    /// with `->> '$.path'`; PostgreSQL with `#>>` and a bound path of keys, cast by the member
    /// type, text under `COLLATE "C"`.
    ///
    /// - Parameters:
    ///   - column: The JSON column's name.
    ///   - path: SQLite's JSON path text, bound as is.
    ///   - keys: The member names along the path.
    ///   - memberType: The Swift type of the member.
    /// - Returns: The expression.
    package func jsonMember(column: String, path: String, keys: [String], memberType: Any.Type) -> SQL {
        let quoted = SQL(SQL.quoteIdentifier(column))
        guard self == .postgres else { return "(\(quoted) ->> \(path))" }
        let base: SQL = "(\(quoted) #>> \(SQLDialect.postgresKeyArray(keys))::text[])"
        switch SQLDialect.comparisonKind(of: memberType) {
        case .number: return "(\(base)::numeric)"
        case .boolean: return "(\(base)::boolean)"
        // `#>>` gives text of the database's default collation: state byte order, as SQLite's
        // `->>` text compares.
        case .text: return PostgresText.byBytes(base)
        }
    }

    /// The `jsonb` value at a path of keys inside a PostgreSQL JSON column (`#>`: still JSON,
    /// where `#>>` reads it as text).
    ///
    /// - Parameters:
    ///   - column: The JSON column's name.
    ///   - keys: The member names along the path; none for the whole value.
    /// - Returns: The expression.
    package static func postgresJSONValue(column: String, keys: [String]) -> SQL {
        let quoted = SQL(SQL.quoteIdentifier(column))
        guard !keys.isEmpty else { return quoted }
        return "(\(quoted) #> \(postgresKeyArray(keys))::text[])"
    }

    /// A PostgreSQL `text[]` literal of keys, bound as one value: `{"a","b \"c\""}`.
    private static func postgresKeyArray(_ keys: [String]) -> DatabaseValue {
        let quoted = keys.map {
            "\""
                + $0.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
                + "\""
        }
        return .text("{" + quoted.joined(separator: ",") + "}")
    }

    private enum ComparisonKind { case number, boolean, text }

    private static func comparisonKind(of type: Any.Type) -> ComparisonKind {
        let type = (type as? any OptionalWrapper.Type)?.wrappedType ?? type
        if type == Bool.self { return .boolean }
        if type is any BinaryInteger.Type || type is any BinaryFloatingPoint.Type || type == Decimal.self {
            return .number
        }
        return .text
    }
}
