import Foundation

/// The keys of the rows an eager load fetched first, bound as one JSON array, and the SQL
/// that matches columns against it: `"authorID" IN (SELECT value FROM json_each(?))`.
///
/// One parameter for any number of keys, so the statement text (and the prepared statement)
/// stays the same whatever the number of roots, and no value is ever part of the SQL text.
/// SQLite reads the list once and looks each key up in the foreign key's index.
package enum KeyList {
    /// `column IN (...)`, or `(c1, c2) IN (SELECT value ->> 0, value ->> 1 ...)` for a
    /// composite key, against the JSON array bound to the one parameter.
    ///
    /// In SQLite, `forms` say how each column's values compare (``RelationKeyForm``): the keys
    /// are bound in their canonical form, and a UUID column matches each key in all its
    /// spellings (upper and lower case text, 16 bytes), a date column is compared through its
    /// instant and a decimal column by value, as `where` does.
    static func membership(_ columns: [SQL], keys: String, forms: [RelationKeyForm] = []) -> SQL {
        let uuid = SQL(StoredValueFunctions.uuid)
        if columns.count == 1 {
            guard forms.first == .uuid else {
                // Dates as instants, decimals by value: the keys are bound in that form.
                let column = forms.first?.comparable(columns[0]) ?? columns[0]
                return "\(column) IN (SELECT value FROM json_each(\(keys)))"
            }
            // Every spelling of each key: the column's index still serves each lookup.
            return "\(columns[0]) IN (SELECT value FROM json_each(\(keys)) UNION ALL "
                + "SELECT lower(value) FROM json_each(\(keys)) UNION ALL "
                + "SELECT \(uuid)(value) FROM json_each(\(keys)))"
        }
        // A composite key compares a UUID part through its 16 bytes, whatever its spelling.
        func isUUID(_ index: Int) -> Bool { index < forms.count && forms[index] == .uuid }
        var list: SQL = ""
        var members: SQL = ""
        for index in columns.indices {
            if index > 0 {
                list.append(", ")
                members.append(", ")
            }
            let member = SQL("value ->> \(index)" as String)
            let form = index < forms.count ? forms[index] : .plain
            list.append(isUUID(index) ? "\(uuid)(\(columns[index]))" : form.comparable(columns[index]))
            members.append(isUUID(index) ? "\(uuid)(\(member))" : member)
        }
        return "(\(list)) IN (SELECT \(members) FROM json_each(\(keys)))"
    }

    /// The JSON array of integer keys: `[1,2,3]`.
    package static func json(_ keys: [Int64]) -> String {
        var text = "["
        text.reserveCapacity(keys.count * 8 + 2)
        for (index, key) in keys.enumerated() {
            if index > 0 { text += "," }
            text += String(key)
        }
        return text + "]"
    }

    /// The JSON array of the keys: `[1,2,3]`, or `[[1,"a"],[2,"b"]]` for a composite key.
    ///
    /// - Throws: ``SchemaError`` for a key JSON cannot carry exactly: a BLOB, or a number
    ///   that is not finite.
    package static func json(_ keys: [RelationKey]) throws -> String {
        var text = "["
        for (index, key) in keys.enumerated() {
            if index > 0 { text += "," }
            switch key {
            case .single(let value):
                try append(value, to: &text)
            case .composite(let values):
                text += "["
                for (position, value) in values.enumerated() {
                    if position > 0 { text += "," }
                    try append(value, to: &text)
                }
                text += "]"
            }
        }
        return text + "]"
    }

    private static func append(_ value: DatabaseValue, to text: inout String) throws {
        switch value {
        case .null: text += "null"
        case .integer(let integer): text += String(integer)
        case .real(let real):
            guard real.isFinite else {
                throw SchemaError("a key value \(real) cannot be matched: it is not finite")
            }
            text += "\(real)"
        case .text(let string): appendQuoted(string, to: &text)
        case .blob:
            throw SchemaError(
                "a key stored as a BLOB cannot be matched by including (keys are passed as JSON); "
                    + "fetch the related rows with a query of your own")
        }
    }

    private static func appendQuoted(_ string: String, to text: inout String) {
        text += "\""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": text += "\\\""
            case "\\": text += "\\\\"
            case "\n": text += "\\n"
            case "\r": text += "\\r"
            case "\t": text += "\\t"
            default:
                if scalar.value < 0x20 {
                    let hex = String(scalar.value, radix: 16)
                    text += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    text.unicodeScalars.append(scalar)
                }
            }
        }
        text += "\""
    }
}
