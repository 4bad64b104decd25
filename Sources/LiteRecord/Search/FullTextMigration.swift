/// Creates, rebuilds or drops a model table's full-text index so that it is what the schema
/// declares: part of the automatic migration (`TableMigration`), in its transaction.
///
/// `sqlite_master` is the record: the index is up to date when its stored `CREATE VIRTUAL
/// TABLE`, its replaced-rows table and the five triggers' SQL are exactly what the schema (and
/// the table's unique indexes) give, so a database that needs nothing is only read. Otherwise
/// LiteRecord's own objects (recognized by their SQL, never by name alone) are dropped and
/// created again, and the index is rebuilt from the rows already in the table; an index made by
/// an earlier release (three triggers) is upgraded so, once. Anything else holding one of those names is never touched:
/// it is a ``SchemaError``.
enum FullTextMigration {
    /// What `sqlite_master` holds for a model's table: the table's kind (`table`, `view`, or
    /// `nil` when it is missing) and the objects named like its index and triggers.
    struct StoredSchema {
        let tableKind: String?
        fileprivate let objects: [StoredObject]
    }

    /// Reads `sqlite_master` once for the table and its index (the automatic migration reads
    /// it once per model type per database).
    static func readSchema(of schema: TableSchema, on connection: Connection) throws -> StoredSchema {
        let table = schema.tableName
        let names =
            ([FullTextIndex.indexName(table: table), FullTextIndex.replacedTableName(table: table)]
            + FullTextIndex.triggerNames(table: table))
            .map { $0.lowercased() }
        let rows = try connection.fetchAll(
            Row.self,
            sql: """
                SELECT type, name, sql, name = \(table) COLLATE NOCASE AS isTable FROM sqlite_master
                WHERE name = \(table) COLLATE NOCASE OR lower(name) IN \(list: names)
                """)
        var tableKind: String?
        var objects: [StoredObject] = []
        for row in rows {
            let type: String = try row.value(named: "type")
            // A trigger may share the table's name; it is not the table.
            if try row.value(Bool.self, named: "isTable"), type != "trigger" {
                tableKind = type
                continue
            }
            objects.append(
                StoredObject(
                    type: type, name: try row.value(named: "name"),
                    sql: try row.value(String?.self, named: "sql") ?? ""))
        }
        return StoredSchema(tableKind: tableKind, objects: objects)
    }

    /// Brings the index of `schema`'s table (which exists) in line with the schema.
    static func apply(_ schema: TableSchema, stored: StoredSchema, on connection: Connection) throws {
        let table = schema.tableName
        let indexName = FullTextIndex.indexName(table: table)
        let triggerNames = FullTextIndex.triggerNames(table: table)
        let replacedName = FullTextIndex.replacedTableName(table: table)
        let existing = stored.objects
        let storedIndex = existing.first {
            $0.type != "trigger" && $0.name.lowercased() == indexName.lowercased()
        }
        let storedReplaced = existing.first {
            $0.type != "trigger" && $0.name.lowercased() == replacedName.lowercased()
        }
        let storedTriggers = existing.filter { $0.type == "trigger" }
        let ownIndex = storedIndex.flatMap { isOwnIndex($0, table: table) ? $0 : nil }
        let ownReplaced = storedReplaced.flatMap { isOwnReplacedTable($0) ? $0 : nil }
        let ownTriggers = storedTriggers.filter { $0.sql.contains(FullTextIndex.triggerMarker) }

        guard let index = schema.fullTextIndex else {
            // Search was removed from the schema: drop what LiteRecord created, nothing else.
            try drop(
                triggers: ownTriggers, tables: [ownIndex, ownReplaced].compactMap { $0 }, on: connection)
            return
        }
        let triggerSQL = index.createTriggerSQL(uniqueKeys: try uniqueKeys(of: table, on: connection))
        let upToDate =
            ownIndex?.sql == index.createTableSQL
            && ownReplaced?.sql == index.createReplacedTableSQL
            && zip(triggerNames, triggerSQL).allSatisfy { name, sql in
                ownTriggers.contains { $0.name == name && $0.sql == sql }
            }
        guard !upToDate else { return }
        if let foreign = existing.first(where: { object in
            if object.type == "trigger" { return !ownTriggers.contains(object) }
            return object == storedIndex ? ownIndex == nil : ownReplaced == nil
        }) {
            throw SchemaError(
                "cannot create the full-text index of \(schema.typeName): a \(foreign.type) named "
                    + "\(foreign.name) already exists and is not LiteRecord's index of \(table) or one of its "
                    + "triggers; rename or drop it (LiteRecord never changes objects it did not create)")
        }
        try checkRowIDKey(index, schema: schema, on: connection)
        try drop(triggers: ownTriggers, tables: [ownIndex, ownReplaced].compactMap { $0 }, on: connection)
        do {
            try connection.execute(SQL(index.createTableSQL))
            try connection.execute(SQL(index.createReplacedTableSQL))
            for sql in triggerSQL { try connection.execute(SQL(sql)) }
            try connection.execute(SQL(index.rebuildSQL))
        } catch let error as DatabaseError {
            throw SchemaError(
                "cannot create the full-text index of \(schema.typeName) (\(indexName) on "
                    + "\(index.columns.joined(separator: ", ")), tokenizer '\(index.tokenizer.rawValue)'): "
                    + "\(error.message)")
        }
    }

    /// A model whose table is a view cannot keep an index: triggers never see its writes.
    static func checkNotDeclared(onView schema: TableSchema) throws {
        guard schema.fullTextIndex != nil else { return }
        throw SchemaError(
            "full-text search of \(schema.typeName) needs a table, but \(schema.tableName) is a view")
    }

    fileprivate struct StoredObject: Equatable {
        let type: String
        let name: String
        let sql: String
    }

    /// Whether a stored object is an FTS5 table that LiteRecord created for `table`.
    private static func isOwnIndex(_ object: StoredObject, table: String) -> Bool {
        let prefix = "CREATE VIRTUAL TABLE \(SQL.quoteIdentifier(object.name)) USING fts5("
        let content = "content='" + table.replacingOccurrences(of: "'", with: "''") + "'"
        return object.type == "table" && object.sql.hasPrefix(prefix) && object.sql.contains(content)
    }

    /// Whether a stored object is the replaced-rows table that LiteRecord created.
    private static func isOwnReplacedTable(_ object: StoredObject) -> Bool {
        object.type == "table"
            && object.sql.hasPrefix(
                "CREATE TABLE \(SQL.quoteIdentifier(object.name))(\(FullTextIndex.triggerMarker)")
    }

    private static func drop(triggers: [StoredObject], tables: [StoredObject], on connection: Connection)
        throws
    {
        for trigger in triggers {
            try connection.execute(SQL(verbatim: "DROP TRIGGER \(SQL.quoteIdentifier(trigger.name))"))
        }
        for table in tables {
            try connection.execute(SQL(verbatim: "DROP TABLE \(SQL.quoteIdentifier(table.name))"))
        }
    }

    /// The columns of each unique index of `table` (the conflicts a `REPLACE` resolves by
    /// deleting rows). A partial index counts as whole (a superset of its conflicts, which the
    /// triggers check); expression columns are left out, and an index on the rowid can only
    /// conflict on the rowid, which the triggers handle anyway.
    private static func uniqueKeys(of table: String, on connection: Connection) throws -> [[UniqueKeyColumn]]
    {
        let rows = try connection.fetchAll(
            Row.self,
            sql: """
                SELECT l.name AS idx, x.cid AS cid, x.name AS name, x.coll AS coll
                FROM pragma_index_list(\(table)) AS l JOIN pragma_index_xinfo(l.name) AS x
                WHERE l."unique" AND x.key ORDER BY l.seq, l.name, x.seqno
                """)
        var keys: [[UniqueKeyColumn]] = []
        var current: (index: String, columns: [UniqueKeyColumn], onRowID: Bool)?
        func finish() {
            if let current, !current.onRowID, !current.columns.isEmpty { keys.append(current.columns) }
        }
        for row in rows {
            let index: String = try row.value(named: "idx")
            if current?.index != index {
                finish()
                current = (index, [], false)
            }
            let cid: Int = try row.value(named: "cid")
            if cid == -1 { current?.onRowID = true }
            guard cid >= 0, let name = try row.value(String?.self, named: "name") else { continue }
            let collation = try row.value(String?.self, named: "coll") ?? "BINARY"
            current?.columns.append(UniqueKeyColumn(name: name, collation: collation))
        }
        finish()
        return keys
    }

    /// The stored table must have the schema's key as its rowid (an `INTEGER PRIMARY KEY`): a
    /// table another tool created may declare `id INT PRIMARY KEY`, or be `WITHOUT ROWID`.
    private static func checkRowIDKey(_ index: FullTextIndex, schema: TableSchema, on connection: Connection)
        throws
    {
        let table = schema.tableName
        let keys = try connection.fetchAll(
            Row.self, sql: "SELECT name, type FROM pragma_table_info(\(table)) WHERE pk > 0")
        let keyIndexes = try connection.fetchAll(
            Int.self, sql: "SELECT 1 FROM pragma_index_list(\(table)) WHERE origin = 'pk'")
        var isRowIDAlias = keys.count == 1 && keyIndexes.isEmpty
        if isRowIDAlias {
            let name = try keys[0].value(String.self, named: "name")
            let type = try keys[0].value(String.self, named: "type")
            isRowIDAlias =
                name.lowercased() == index.rowIDColumn.lowercased() && type.uppercased() == "INTEGER"
        }
        guard isRowIDAlias else {
            throw SchemaError(
                "full-text search of \(schema.typeName) needs \(index.rowIDColumn) to be the rowid of "
                    + "\(table) (declared INTEGER PRIMARY KEY, in a table with rowids); the stored table "
                    + "declares it otherwise, and SQLite may renumber other rowids (VACUUM), which would "
                    + "silently break the index")
        }
    }
}
