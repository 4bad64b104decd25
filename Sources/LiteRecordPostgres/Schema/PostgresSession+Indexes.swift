import LiteRecord

// The indexes and unique constraints a schema declares, on PostgreSQL. An index is recognized by
// what it is (its table, columns, uniqueness, method, collations, no predicate and no
// expression), never by its name: a name PostgreSQL truncated, a name an older LiteRecord gave,
// or an index another tool created are all used as they are, and an index whose name is taken
// by one that is not equivalent is still created (under a name of its own).

extension PostgresSession {
    /// The columns and uniqueness of an index, or of a declared index or unique constraint.
    struct IndexShape {
        let columns: [String]
        let isUnique: Bool

        /// Whether this existing index serves the declared one: the same uniqueness and the same
        /// columns, in order for an index, in any order for a unique constraint (which means
        /// the same whatever the order). Column names are compared exactly, as PostgreSQL does.
        func serves(_ declared: IndexShape) -> Bool {
            guard isUnique == declared.isUnique, columns.count == declared.columns.count else { return false }
            return isUnique ? Set(columns) == Set(declared.columns) : columns == declared.columns
        }
    }

    /// Creates each declared unique constraint and index that no index of the table already is.
    ///
    /// - Parameters:
    ///   - table: The model's table, which exists.
    ///   - extra: More indexes to have (the foreign keys' indexes of a new table).
    /// - Throws: ``LiteRecord/SchemaError`` when existing rows break a new unique constraint;
    ///   ``LiteRecord/DatabaseError``.
    func createIndexes(of table: BackendTable, extra: [[String]] = []) throws {
        let declared =
            table.uniques.map { IndexShape(columns: $0, isUnique: true) }
            + (table.indexes + extra).map { IndexShape(columns: $0, isUnique: false) }
        guard !declared.isEmpty else { return }
        var existing = try existingIndexes(of: table.name)
        for shape in declared where !existing.contains(where: { $0.serves(shape) }) {
            try createIndex(shape, table: table)
            existing.append(shape)
        }
    }

    /// The name LiteRecord gives an index: readable (`table_columns_key` or `_index`), shortened
    /// with a hash when it exceeds PostgreSQL's 63 bytes.
    static func indexName(table: String, columns: [String], unique: Bool) -> String {
        PostgresIdentifier.fitting(([table] + columns + [unique ? "key" : "index"]).joined(separator: "_"))
    }

    private func createIndex(_ shape: IndexShape, table: BackendTable) throws {
        var name = PostgresSession.indexName(
            table: table.name, columns: shape.columns, unique: shape.isUnique)
        // A relation (index, table, sequence) of the schema already has the name and is not
        // this index: a name of its own, from a hash of the exact definition.
        if try relationExists(named: name) {
            name = PostgresIdentifier.fitting(
                name + "_" + StableHash.hex([table.name, shape.isUnique ? "unique" : "on"] + shape.columns))
        }
        let list = shape.columns.map(SQL.quoteIdentifier).joined(separator: ", ")
        let sql =
            "CREATE \(shape.isUnique ? "UNIQUE " : "")INDEX \(SQL.quoteIdentifier(name)) "
            + "ON \(SQL.quoteIdentifier(table.name)) (\(list))"
        guard shape.isUnique else {
            try execute(SQL(verbatim: sql))
            return
        }
        // A unique constraint added to a table with rows: duplicates are reported as SQLite
        // reports them. PostgreSQL aborts the transaction, so nothing of the migration stays.
        do {
            try execute(SQL(verbatim: sql))
        } catch let error as DatabaseError where error.resultCode == .constraintUnique {
            throw SchemaError(
                "cannot add UNIQUE(\(shape.columns.joined(separator: ", "))) to \(table.name): existing rows "
                    + "hold duplicate values (\(error.message)); remove the duplicates first")
        }
    }

    /// Whether a relation (table, index, sequence, view) of the current schema has the name.
    func relationExists(named name: String) throws -> Bool {
        try !execute(
            """
            SELECT 1 FROM pg_class
            WHERE relname = \(name) AND relnamespace = to_regnamespace(quote_ident(current_schema()))
            """
        ).rows.isEmpty
    }

    /// The table's valid b-tree indexes over plain columns, without a predicate, each column in
    /// the column's own collation: the primary key's and unique constraints' indexes included.
    /// An index on an expression, a partial index, or one in another collation serves no
    /// declared index (its uniqueness or order would not be the declared one).
    func existingIndexes(of table: String) throws -> [IndexShape] {
        let rows = try execute(
            """
            SELECT i.indexrelid::bigint, i.indisunique, a.attname::text,
                (a.attnum IS NOT NULL AND i.indcollation[k.n] = a.attcollation) AS plain
            FROM pg_index AS i
            JOIN pg_class AS t ON t.oid = i.indrelid
            JOIN pg_class AS ic ON ic.oid = i.indexrelid
            JOIN pg_am AS am ON am.oid = ic.relam
            CROSS JOIN LATERAL generate_series(0, i.indnkeyatts - 1) AS k(n)
            LEFT JOIN pg_attribute AS a ON a.attrelid = i.indrelid AND a.attnum = i.indkey[k.n] AND a.attnum > 0
            WHERE t.relname = \(table) AND t.relnamespace = to_regnamespace(quote_ident(current_schema()))
                AND i.indpred IS NULL AND i.indexprs IS NULL AND i.indisvalid AND am.amname = 'btree'
            ORDER BY 1, k.n
            """
        ).rows
        // One row per key column, in order; an index with any column that is not plain is left out.
        var order: [Int64] = []
        var byIndex: [Int64: (isUnique: Bool, columns: [String], isPlain: Bool)] = [:]
        for row in rows {
            guard row.count == 4, case .integer(let id) = row[0] else { continue }
            var entry = byIndex[id] ?? (row[1] == .integer(1), [], true)
            if byIndex[id] == nil { order.append(id) }
            if case .text(let name) = row[2], row[3] == .integer(1) {
                entry.columns.append(name)
            } else {
                entry.isPlain = false
            }
            byIndex[id] = entry
        }
        let shapes = order.compactMap { id -> IndexShape? in
            guard let entry = byIndex[id], entry.isPlain else { return nil }
            return IndexShape(columns: entry.columns, isUnique: entry.isUnique)
        }
        return shapes
    }
}
