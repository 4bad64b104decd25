import LiteRecord

/// PostgreSQL's identifier length limit, for the names LiteRecord generates and the names a
/// model chooses.
///
/// PostgreSQL keeps at most 63 bytes of an identifier (`NAMEDATALEN - 1`) and silently truncates
/// longer ones, in `CREATE` as in queries. Two generated names that differ only after byte 63
/// became one name: `CREATE UNIQUE INDEX IF NOT EXISTS` then skipped the second index, and its
/// constraint was silently missing. So a generated name that does not fit is shortened to a
/// readable prefix and a stable hash of the whole name (unique in practice, the same in every
/// process), and a name the user chose that does not fit is refused before anything is written.
enum PostgresIdentifier {
    /// The longest identifier PostgreSQL keeps whole, in bytes.
    static let maximumLength = 63

    /// `name` when it fits; else its longest prefix (cut between characters) that leaves room
    /// for `_` and 16 hexadecimal digits of the hash of the whole name.
    ///
    /// - Parameter name: The readable name LiteRecord would give.
    /// - Returns: A name of at most ``maximumLength`` bytes.
    static func fitting(_ name: String) -> String {
        guard name.utf8.count > maximumLength else { return name }
        let suffix = "_" + StableHash.hex([name])
        var prefix = ""
        var length = 0
        for character in name.unicodeScalars {
            let size = String(character).utf8.count
            guard length + size + suffix.utf8.count <= maximumLength else { break }
            prefix.unicodeScalars.append(character)
            length += size
        }
        return prefix + suffix
    }

    /// Refuses a table whose own names PostgreSQL would truncate, or whose declared collations it
    /// would not apply, before anything is written.
    ///
    /// - Parameter table: The model's table.
    /// - Throws: ``LiteRecord/SchemaError`` naming the identifier and the limit, or the collation.
    static func validate(_ table: BackendTable) throws {
        try checkLength(table.name, what: "the table name of \(table.typeName)")
        for column in table.columns {
            try checkLength(column.name, what: "the column name of \(table.typeName).\(column.property)")
            if let collation = column.collation, collation.rawValue.uppercased() != "BINARY" {
                throw SchemaError(
                    "\(table.typeName).\(column.property) declares the collation \(collation.rawValue), which "
                        + "LiteRecordPostgres does not apply: its uniqueness, equality and order would silently "
                        + "differ from SQLite's. Remove .collation(_:for:) from the schema and compare with "
                        + "caseInsensitiveEquals, or store a normalized copy of the value")
            }
        }
    }

    private static func checkLength(_ name: String, what: String) throws {
        guard name.utf8.count > maximumLength else { return }
        throw SchemaError(
            "\(what), \"\(name)\", is \(name.utf8.count) bytes long; PostgreSQL keeps at most "
                + "\(maximumLength) bytes of an identifier and would truncate it, so the name would not "
                + "read back: choose a shorter name in the model's Schema")
    }
}
