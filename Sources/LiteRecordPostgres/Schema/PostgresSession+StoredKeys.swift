import Foundation
import LiteRecord

// Date and decimal keys another tool wrote in another form (`2024-01-02T03:04:05Z` for
// `2024-01-02 03:04:05.000`, `1.50` for `1.5`), as on SQLite (`Connection+StoredKeys.swift`):
// the key as LiteRecord writes it is looked up first, through the key's index; only when that
// finds no row is it looked up by value, which scans the table once. The server narrows the
// rows (a date as `timestamptz`, to the microsecond; a decimal as `numeric`), and LiteRecord's
// own reading of each candidate decides, so that a key matches exactly when SQLite's does.

extension PostgresSession {
    /// The primary key as the table stores it, when a row holds `key` as a value in another
    /// form; `nil` when no row does, or when no key column is a date or a decimal.
    ///
    /// - Parameters:
    ///   - key: The key values in key order, as LiteRecord encodes them.
    ///   - table: The model's table.
    /// - Throws: ``LiteRecord/DatabaseError``.
    func storedKey(matching key: [DatabaseValue], table: BackendTable) throws -> [DatabaseValue]? {
        guard table.hasValueFormKey, key.count == table.primaryKey.count else { return nil }
        let forms = table.keyForms(dateStorage: dateStorage)
        var columns: SQL = ""
        var condition: SQL = ""
        for (index, column) in table.primaryKey.enumerated() {
            if index > 0 {
                columns.append(", ")
                condition.append(" AND ")
            }
            columns.append("\(identifier: column)")
            guard let term = Self.valueTerm(column, forms[index], key[index]) else { return nil }
            condition.append(term)
        }
        let sql: SQL = "SELECT \(columns) FROM \(identifier: table.name) WHERE \(condition) LIMIT 16"
        let wanted = zip(forms, key).map { $0.canonical($1) }
        for stored in try execute(sql).rows where stored.count == key.count {
            let values = zip(forms, stored).map { $0.canonical($1) }
            if values == wanted { return stored == key ? nil : stored }
        }
        return nil
    }

    /// SQL true when `column` holds `value` as a value of `form`; `nil` when `value` is NULL.
    private static func valueTerm(_ column: String, _ form: RelationKeyForm, _ value: DatabaseValue) -> SQL? {
        guard value != .null else { return nil }
        switch form {
        case .decimal:
            // Only text that reads as a number is cast: another row's other text is no match,
            // not an error.
            return
                "CASE WHEN \(identifier: column) ~ \(SQL(verbatim: Self.decimalPattern)) THEN CAST(\(identifier: column) AS numeric) END = CAST(\(value) AS numeric)"
        case .date(.text):
            // Text that starts as a date; `timestamptz` keeps microseconds, and the session's
            // time zone is UTC, in which LiteRecord's text is written.
            return
                "CASE WHEN \(identifier: column) ~ \(SQL(verbatim: Self.datePattern)) THEN CAST(\(identifier: column) AS timestamptz) END = CAST(\(value) AS timestamptz)"
        case .uuid:
            return "\(identifier: column) IN \(list: UUIDSpellings.text(of: value))"
        case .plain, .date:
            // A date under a numeric storage is a number column, compared as a number.
            return "\(identifier: column) = \(value)"
        }
    }

    /// A decimal number's text, as `Decimal` reads it.
    private static let decimalPattern = #"'^\s*[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?\s*$'"#
    /// Text that begins with a valid-looking `YYYY-MM-DD`.
    private static let datePattern = #"'^[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])([ Tt]|$)'"#
}
