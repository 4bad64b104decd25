import Foundation

// The JSON collection functions of `Column+JSON.swift` in PostgreSQL's dialect (`jsonb`
// columns), with SQLite's semantics: a value that is not an array (or, for a dictionary, not an
// object) has no elements, NULL counts 0, and every condition is true or false, never NULL.

extension Column {
    /// The `jsonb` value this column holds: the column itself, or the member at its JSON path
    /// (`#>`, which keeps it `jsonb` where `#>>` reads it as text).
    var postgresJSONValue: SQL {
        if let jsonPath {
            let keys = jsonKeys(base: jsonPath.path, adding: [])
            return SQLDialect.postgresJSONValue(column: jsonPath.column, keys: keys)
        }
        if isJSON, let columnName { return SQL(SQL.quoteIdentifier(columnName)) }
        return sql
    }
}

/// PostgreSQL SQL for LiteRecord's JSON collection functions.
enum PostgresJSON {
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
            return (SQL(SQLDialect.postgres.falseCondition), error)
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
