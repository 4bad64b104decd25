/// The DDL of a model's table: `CREATE TABLE`, `CREATE INDEX`, `ALTER TABLE ADD COLUMN`.
///
/// Identifiers are quoted. A column default is the one place a value is written into SQL text,
/// because SQLite does not accept parameters in DDL: it comes from the model's schema (never
/// from stored data) and is rendered as an escaped SQL literal.
enum TableDefinition {
    static func createTable(_ schema: TableSchema, dateStorage: DateStorage) throws -> String {
        var lines: [String] = []
        let inlineKey = schema.primaryKey.count == 1 ? schema.primaryKey[0] : nil
        for column in schema.columns {
            var line = "\(SQL.quoteIdentifier(column.name))"
            line += typeClause(schema.declaredType(of: column, dateStorage: dateStorage))
            if column.name == inlineKey {
                // Only an INTEGER PRIMARY KEY (the rowid) gets a value from SQLite; any other key
                // must have one, or its row could never be found (SQLite allows NULL keys).
                line += " PRIMARY KEY"
                if schema.rowIDKey == nil { line += " NOT NULL" }
            } else {
                line += try constraints(of: column, isKey: schema.primaryKey.contains(column.name))
            }
            lines.append(line)
        }
        if schema.primaryKey.count > 1 {
            lines.append("PRIMARY KEY (\(quotedList(schema.primaryKey)))")
        }
        for unique in schema.uniques {
            lines.append("UNIQUE (\(quotedList(unique)))")
        }
        lines += try schema.foreignKeyClauses()
        return "CREATE TABLE IF NOT EXISTS \(SQL.quoteIdentifier(schema.tableName)) (\n    "
            + lines.joined(separator: ",\n    ") + "\n)"
    }

    /// `NOT NULL`, `COLLATE` and `DEFAULT` of a column; a member of a composite primary key
    /// is `NOT NULL` even when its property is optional.
    static func constraints(of column: TableSchema.Column, isKey: Bool = false) throws -> String {
        var text = ""
        if !column.isOptional || isKey { text += " NOT NULL" }
        if let collation = column.collation { text += " COLLATE \(SQL.quoteIdentifier(collation.rawValue))" }
        if let value = column.defaultValue { text += " DEFAULT \(try literal(value, column: column.name))" }
        return text
    }

    static func addColumn(
        _ column: TableSchema.Column, of schema: TableSchema, dateStorage: DateStorage
    ) throws -> String {
        let type = schema.declaredType(of: column, dateStorage: dateStorage)
        return "ALTER TABLE \(SQL.quoteIdentifier(schema.tableName)) ADD COLUMN "
            + SQL.quoteIdentifier(column.name) + typeClause(type) + (try constraints(of: column))
    }

    /// ` TYPE` after a column name, or nothing for a column declared without a type.
    private static func typeClause(_ type: DatabaseColumnType) -> String {
        type.rawValue.isEmpty ? "" : " \(type.rawValue)"
    }

    static func indexName(table: String, columns: [String], unique: Bool) -> String {
        "\(table)_\(unique ? "unique" : "on")_\(columns.joined(separator: "_"))"
    }

    /// The name of an index whose readable name is taken by another one: the readable name and
    /// a 64-bit FNV-1a hash of the table, the uniqueness and each column name with its length,
    /// so that different column lists give different names.
    static func disambiguatedIndexName(table: String, columns: [String], unique: Bool) -> String {
        indexName(table: table, columns: columns, unique: unique) + "_"
            + StableHash.hex([table, unique ? "unique" : "on"] + columns)
    }

    static func createIndex(named name: String, table: String, columns: [String], unique: Bool) -> String {
        "CREATE \(unique ? "UNIQUE " : "")INDEX \(SQL.quoteIdentifier(name)) "
            + "ON \(SQL.quoteIdentifier(table)) (\(quotedList(columns)))"
    }

    static func quotedList(_ names: [String]) -> String {
        names.map(SQL.quoteIdentifier).joined(separator: ", ")
    }

    /// An SQL literal for a schema default.
    static func literal(_ value: DatabaseValue, column: String) throws -> String {
        switch value {
        case .null: return "NULL"
        case .integer(let integer): return String(integer)
        case .real(let real):
            guard real.isFinite else { throw SchemaError("the default of \(column) must be a finite number") }
            return "(\(real))"
        case .text(let text):
            guard !text.utf8.contains(0) else {
                throw SchemaError(
                    "the default of \(column) contains a NUL character, which SQL text cannot hold")
            }
            return "'" + text.replacingOccurrences(of: "'", with: "''") + "'"
        case .blob(let data):
            return "X'"
                + data.map { byte in
                    let hex = String(byte, radix: 16, uppercase: true)
                    return byte < 16 ? "0" + hex : hex
                }.joined() + "'"
        }
    }
}
