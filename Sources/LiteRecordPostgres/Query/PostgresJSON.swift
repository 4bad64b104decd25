import Foundation
import LiteRecord

// The JSON collection functions of `Column+JSON.swift` in PostgreSQL's dialect (`jsonb`
// columns), with SQLite's semantics: a value that is not an array (or, for a dictionary, not an
// object) has no elements, NULL counts 0, and every condition is true or false, never NULL.

/// PostgreSQL SQL for LiteRecord's JSON members and collection functions.
enum PostgresJSON {
    /// The `jsonb` value a column holds: the column itself, or the member at its JSON path
    /// (`#>`, which keeps it `jsonb` where `#>>` reads it as text).
    static func value<Value>(of column: Column<Value>) -> SQL {
        if let jsonPath = column.jsonPath {
            let keys = column.jsonKeys(base: jsonPath.path, adding: [])
            let quoted = SQL(SQL.quoteIdentifier(jsonPath.column))
            guard !keys.isEmpty else { return quoted }
            return "(\(quoted) #> \(keyArray(keys))::text[])"
        }
        if column.isJSON, let name = column.columnName { return SQL(SQL.quoteIdentifier(name)) }
        return column.sql
    }

    /// A PostgreSQL `text[]` literal of keys, bound as one value: `{"a","b \"c\""}`.
    static func keyArray(_ keys: [String]) -> DatabaseValue {
        let quoted = keys.map {
            "\""
                + $0.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
                + "\""
        }
        return .text("{" + quoted.joined(separator: ",") + "}")
    }

    /// How a member of a Swift type compares: numbers as numbers, booleans as booleans,
    /// everything else as text compared by bytes.
    enum ComparisonKind { case number, boolean, text }

    static func comparisonKind(of type: Any.Type) -> ComparisonKind {
        let type = OptionalType.unwrapped(type)
        if type == Bool.self { return .boolean }
        if type is any BinaryInteger.Type || type is any BinaryFloatingPoint.Type || type == Decimal.self {
            return .number
        }
        return .text
    }

    /// The number of elements of an array, or of keys of an object; 0 for anything else.
    static func count(_ value: SQL, isObject: Bool) -> SQL {
        isObject
            ? "(CASE WHEN jsonb_typeof(\(value)) = 'object' THEN (SELECT count(*) FROM jsonb_object_keys(\(value))) ELSE 0 END)"
            : "(CASE WHEN jsonb_typeof(\(value)) = 'array' THEN jsonb_array_length(\(value)) ELSE 0 END)"
    }

    /// The elements of an array as rows of a `value` column (none for anything else).
    static func elements(_ value: SQL) -> SQL {
        "jsonb_array_elements(CASE WHEN jsonb_typeof(\(value)) = 'array' THEN \(value) ELSE '[]'::jsonb END)"
    }

    /// Whether an array holds `element`, compared as JSON values.
    ///
    /// A number, string, boolean or null is found with `@>` (which a GIN index serves, and
    /// which compares such values exactly); an object or array with `=`, as `@>` would also
    /// accept an element that merely contains it.
    static func contains<Element: Encodable>(_ value: SQL, element: Element) -> (SQL, (any Error)?) {
        let encoded: String
        do {
            encoded = String(decoding: try JSONColumn.encoder.encode([element]), as: UTF8.self)
        } catch {
            return (SQL(PostgresDialect().falseCondition), error)
        }
        let single = DatabaseValue.text(encoded)
        if encoded.hasPrefix("[{") || encoded.hasPrefix("[[") {
            let wanted: SQL = "(CAST(\(single) AS jsonb) -> 0)"
            return (
                "EXISTS (SELECT 1 FROM \(elements(value)) AS literecord_elements(value) WHERE value = \(wanted))",
                nil
            )
        }
        return ("(\(value) IS NOT NULL AND \(value) @> CAST(\(single) AS jsonb))", nil)
    }
}

/// A Swift type seen through optionals, as PostgreSQL's casts read it.
enum OptionalType {
    /// `type`, or the type it wraps when it is an `Optional`.
    static func unwrapped(_ type: Any.Type) -> Any.Type {
        (type as? any PostgresOptional.Type)?.postgresWrappedType ?? type
    }
}

private protocol PostgresOptional {
    static var postgresWrappedType: Any.Type { get }
}

extension Optional: PostgresOptional {
    fileprivate static var postgresWrappedType: Any.Type { Wrapped.self }
}
