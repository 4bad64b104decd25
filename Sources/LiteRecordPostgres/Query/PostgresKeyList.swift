import Foundation
import LiteRecord

// The roots' keys of an eager load in PostgreSQL's dialect (the backend in LiteRecordPostgres):
// still one bound parameter whatever the number of roots, read so that the key's index serves.

/// The keys of an eager load in PostgreSQL: what ``PostgresDialect`` binds and matches.
enum PostgresKeyList {
    /// `column = ANY(CAST(? AS bigint[]))` for a key of one column, against an array literal
    /// bound to the one parameter: PostgreSQL looks each element up in the column's index (an
    /// index scan with the array as its condition). A composite key reads a bound JSON array of
    /// arrays: `(c1, c2) IN (SELECT CAST(value ->> 0 AS bigint), ... FROM jsonb_array_elements(...))`.
    ///
    /// - Parameters:
    ///   - columns: The key columns, quoted.
    ///   - keys: The keys, as ``keys(_:)`` writes them.
    ///   - types: Each column's PostgreSQL type, from ``types(of:in:)``.
    /// - Returns: The condition.
    static func membership(_ columns: [SQL], keys: String, types: [String]) -> SQL {
        func type(_ index: Int) -> SQL { SQL(index < types.count ? types[index] : "text") }
        if columns.count == 1 {
            return "\(columns[0]) = ANY(CAST(\(keys) AS \(type(0))[]))"
        }
        let list = columns.dropFirst().reduce(columns[0]) { "\($0), \($1)" }
        var members: SQL = "CAST(value ->> 0 AS \(type(0)))"
        for index in 1..<columns.count {
            members.append(SQL(", CAST(value ->> \(index) AS " as String))
            members.append(type(index))
            members.append(")")
        }
        return "(\(list)) IN (SELECT \(members) FROM jsonb_array_elements(CAST(\(keys) AS jsonb)))"
    }

    /// The PostgreSQL types of a table's key columns, to cast the bound keys to.
    static func types(of columns: [String], in table: TableSchema) -> [String] {
        columns.map { name in
            guard let column = table.column(named: name) else { return "text" }
            let type = PostgresDialect().columnType(
                column.declaredType, isJSON: column.isJSON, isBoolean: column.isBoolean)
            // A cast names a type without its collation; the comparison takes the column's.
            return type.hasPrefix("text") ? "text" : type
        }
    }

    /// The distinct keys of the roots as PostgreSQL reads them in ``membership(_:keys:types:)``:
    /// an array literal (`{"1","2"}`) for keys of one column, a JSON array of arrays for
    /// composite keys.
    ///
    /// - Parameter keys: The keys, each a value per key column, none NULL.
    /// - Returns: The text to bind.
    /// - Throws: ``SchemaError`` for a key that cannot be passed exactly (a BLOB, a number that
    ///   is not finite).
    static func keys(_ keys: [[DatabaseValue]]) throws -> String {
        guard keys.first?.count ?? 1 == 1 else {
            return try KeyList.json(keys.map { .composite($0) })
        }
        var text = "{"
        for (index, key) in keys.enumerated() {
            if index > 0 { text += "," }
            guard let value = key.first else { continue }
            // Each element quoted, with `"` and `\` escaped: the array literal's own syntax.
            let element: String
            switch value {
            case .integer(let integer): element = String(integer)
            case .text(let string): element = string
            case .real(let real):
                guard real.isFinite else {
                    throw SchemaError("a key value \(real) cannot be matched: it is not finite")
                }
                element = "\(real)"
            case .null, .blob:
                throw SchemaError(
                    "a key stored as a BLOB cannot be matched by including (keys are passed as text); "
                        + "fetch the related rows with a query of your own")
            }
            text +=
                "\""
                + element.replacingOccurrences(of: "\\", with: "\\\\")
                .replacingOccurrences(of: "\"", with: "\\\"") + "\""
        }
        return text + "}"
    }
}
