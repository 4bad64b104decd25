/// Lifting `NOT NULL` from columns the model no longer fills: the column of a removed property
/// (its data stays, but every insert leaves it empty) and the column of a property made optional.
///
/// SQLite cannot drop a `NOT NULL` with `ALTER TABLE`. It documents two ways: rebuilding the
/// table (create a copy, move the rows, drop, rename, recreate indexes, triggers and views), and,
/// for removing a `NOT NULL`, `CHECK` or foreign key constraint, the simpler one used here, which
/// touches no row, index, trigger, view or foreign key
/// (https://www.sqlite.org/lang_altertable.html#otheralter): in the migration's transaction,
/// rewrite the table's `CREATE TABLE` text in `sqlite_master` with `writable_schema`, then
/// increment `schema_version` so every connection reloads the schema. Only the `NOT NULL`
/// tokens of the affected columns are removed from the text; the result is checked column by
/// column against what SQLite reported before, and any difference rolls the change back.
extension TableMigration {
    /// A column as `pragma_table_xinfo` reports it.
    struct StoredColumn: Decodable, Equatable {
        let name: String
        let type: String
        let notnull: Int
        // swift-format-ignore: AlwaysUseLowerCamelCase
        let dflt_value: String?  // named as pragma_table_xinfo names it
        let pk: Int
        let hidden: Int
    }

    /// The columns of `stored` that must accept NULL for the model's writes to succeed: not
    /// part of the primary key, not generated, `NOT NULL`, and either not written by the model
    /// and without a default, or written by it from an optional property.
    static func columnsToRelax(_ schema: TableSchema, stored: [StoredColumn]) -> [String] {
        var modelColumns: [String: TableSchema.Column] = [:]
        for column in schema.columns { modelColumns[column.name.lowercased()] = column }
        return stored.filter { column in
            guard column.notnull == 1, column.pk == 0, column.hidden == 0 else { return false }
            if let modelColumn = modelColumns[column.name.lowercased()] { return modelColumn.isOptional }
            return column.dflt_value == nil
        }.map(\.name)
    }

    /// Removes `NOT NULL` from `columns` of the table, keeping everything else of it.
    ///
    /// - Throws: ``SchemaError`` when the table's SQL is not one LiteRecord can rewrite exactly,
    ///   or the schema cannot be written (a connection in defensive mode); nothing changes then.
    static func relaxNotNull(
        _ columns: [String], of schema: TableSchema, on connection: Connection
    ) throws {
        let table = schema.tableName
        let stored = try storedColumns(table, on: connection)
        let row = try connection.fetchOne(
            Row.self,
            sql: "SELECT name, sql FROM sqlite_master WHERE type = 'table' AND name = \(table) COLLATE NOCASE"
        )
        guard let row, let name: String = try row.value(named: "name"),
            let sql: String? = try row.value(named: "sql"),
            let sql, let rewritten = CreateTableText(sql)?.removingNotNull(from: Set(columns))
        else {
            throw cannotRelax(
                columns, of: schema, reason: "LiteRecord cannot rewrite its CREATE TABLE text exactly")
        }
        // An integer read from SQLite itself: PRAGMA takes no bound parameters.
        let version = try connection.fetchOne(Int64.self, sql: "PRAGMA schema_version") ?? 0
        do {
            try connection.execute("PRAGMA writable_schema = ON")
            defer { try? connection.execute("PRAGMA writable_schema = OFF") }
            try connection.execute(
                "UPDATE sqlite_master SET sql = \(rewritten) WHERE type = 'table' AND name = \(name)")
            let nextVersion: String = "PRAGMA schema_version = \(version &+ 1)"
            try connection.execute(SQL(nextVersion))
        } catch let error as DatabaseError {
            throw cannotRelax(columns, of: schema, reason: "the schema cannot be written (\(error.message))")
        }
        let relaxed = Set(columns.map { $0.lowercased() })
        let expected = stored.map { column in
            StoredColumn(
                name: column.name, type: column.type,
                notnull: relaxed.contains(column.name.lowercased()) ? 0 : column.notnull,
                dflt_value: column.dflt_value, pk: column.pk, hidden: column.hidden)
        }
        let after = try storedColumns(table, on: connection)
        let check = try connection.fetchAll(String.self, sql: "SELECT * FROM pragma_quick_check(\(name))")
        guard after == expected, check == ["ok"] else {
            // Thrown inside the migration's savepoint: the edit is rolled back with it.
            throw cannotRelax(
                columns, of: schema, reason: "the rewritten table did not read back as expected")
        }
    }

    static func storedColumns(_ table: String, on connection: Connection) throws -> [StoredColumn] {
        try connection.fetchAll(
            StoredColumn.self,
            sql: """
                SELECT name, type, "notnull", dflt_value, pk, hidden FROM pragma_table_xinfo(\(table)) ORDER BY cid
                """)
    }

    private static func cannotRelax(_ columns: [String], of schema: TableSchema, reason: String)
        -> SchemaError
    {
        SchemaError(
            "column(s) \(columns.joined(separator: ", ")) of \(schema.tableName) are NOT NULL, but \(schema.typeName) "
                + "no longer writes them (a removed property) or writes nil into them (an optional property); "
                + "\(reason), so writes would fail. Make the columns nullable with a Migrator step that rebuilds "
                + "the table (https://www.sqlite.org/lang_altertable.html#otheralter), or give them a default"
        )
    }
}
