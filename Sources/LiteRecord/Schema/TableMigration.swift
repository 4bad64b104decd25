/// Creates a model's table, or grows an existing one to fit the model: the automatic,
/// additive and safe migration that runs the first time a model type is used on a database.
///
/// It creates what is missing (the table, new columns, new indexes and unique constraints)
/// and never drops, renames or converts anything. A property removed from the model leaves its
/// column and data in place; when that column is `NOT NULL` without a default, or its property
/// became optional, it loses only its `NOT NULL`, so that the model's writes go on (see
/// `TableMigration+NotNull.swift`). A column whose stored type no longer fits the property is
/// reported as a ``SchemaError``, since converting it could lose data.
enum TableMigration {
    /// Creates or grows the table of `schema`.
    ///
    /// Outside a transaction, the check runs as a plain read first, so that a table that needs
    /// nothing never takes the write lock (readers keep not waiting for writers). When it must
    /// write, and another connection (or process) holds the write lock, SQLite refuses to turn
    /// the read into a write at once (`SQLITE_BUSY`, without waiting: waiting could deadlock)
    /// and the check is done again in an `IMMEDIATE` transaction, which takes the write lock
    /// first and so waits with the busy timeout like any other write. Inside a transaction the
    /// check runs in a savepoint of it; a deferred transaction that has not written yet can get
    /// that `SQLITE_BUSY` too, so write transactions should be `.immediate`.
    static func prepare(_ schema: TableSchema, on connection: Connection) throws {
        guard !connection.isInsideTransaction else {
            return try connection.performSavepoint("literecord_migration") { try apply(schema, on: $0) }
        }
        do {
            try connection.performSavepoint("literecord_migration") { try apply(schema, on: $0) }
        } catch let error as DatabaseError where error.resultCode.primary == .busy {
            try connection.performTransaction(.immediate) { try apply(schema, on: $0) }
        }
    }

    private static func apply(_ schema: TableSchema, on connection: Connection) throws {
        // One read of sqlite_master: the table's kind, and its full-text index's objects.
        let stored = try FullTextMigration.readSchema(of: schema, on: connection)
        guard let kind = stored.tableKind else {
            try connection.execute(
                SQL(TableDefinition.createTable(schema, dateStorage: connection.configuration.dateStorage)))
            try createIndexes(schema, on: connection)
            try createDatePartialIndexes(schema, on: connection)
            try createForeignKeyIndexes(schema, on: connection)
            try FullTextMigration.apply(schema, stored: stored, on: connection)
            return
        }
        // A view maps onto a model as it is; there is nothing to grow.
        guard kind == "table" else { return try FullTextMigration.checkNotDeclared(onView: schema) }
        try grow(schema, on: connection)
        try FullTextMigration.apply(schema, stored: stored, on: connection)
    }

    private static func grow(_ schema: TableSchema, on connection: Connection) throws {
        let existing = try storedColumns(schema.tableName, on: connection)
        var existingByName: [String: StoredColumn] = [:]
        for column in existing { existingByName[column.name.lowercased()] = column }
        for column in schema.columns {
            if let stored = existingByName[column.name.lowercased()] {
                try checkCompatible(column, stored: stored, schema: schema)
                continue
            }
            if !column.isOptional && column.defaultValue == nil {
                throw SchemaError.newColumnNeedsValue(
                    column.name, table: schema.tableName,
                    property: "\(schema.typeName).\(column.property ?? column.key)")
            }
            try connection.execute(
                SQL(
                    TableDefinition.addColumn(
                        column, of: schema, dateStorage: connection.configuration.dateStorage)))
        }
        let relaxed = columnsToRelax(schema, stored: existing)
        if !relaxed.isEmpty { try relaxNotNull(relaxed, of: schema, on: connection) }
        try createUniqueConstraints(schema, on: connection)
        try createIndexes(schema, on: connection)
        try createDatePartialIndexes(schema, on: connection)
    }

    /// Reports a column whose declared type cannot hold the property's values without conversion.
    private static func checkCompatible(
        _ column: TableSchema.Column, stored: StoredColumn, schema: TableSchema
    ) throws {
        // A date column that follows the connection's storage was created under whichever
        // storage its first connection had; dates are read back in every form, so any is fine.
        guard !column.followsConnectionDateStorage else { return }
        let storedAffinity = Affinity(declaredType: stored.type)
        let modelAffinity = Affinity(declaredType: column.declaredType.rawValue)
        guard !storedAffinity.accepts(modelAffinity) else { return }
        throw SchemaError(
            "column \(column.name) of \(schema.tableName) is declared \(stored.type.isEmpty ? "without a type" : stored.type) "
                + "but \(schema.typeName).\(column.property ?? column.key) is \(column.swiftTypeName) "
                + "(\(column.declaredType.rawValue)); LiteRecord never converts stored data: "
                + "migrate the column with a Migrator step")
    }

    /// Creates each declared index that no index of the table already is (same columns in the
    /// same order, same uniqueness, not partial): an index an older version created under
    /// another name, or one another tool created, is used as it is, never duplicated.
    private static func createIndexes(_ schema: TableSchema, on connection: Connection) throws {
        try createMissingIndexes(schema.indexes, isUnique: false, schema: schema, on: connection)
    }

    /// An index on the columns of each foreign key of a new table (see
    /// `TableSchema.foreignKeysNeedingIndex`), then the tables the keys reference, when they
    /// are missing: SQLite refuses a write to a table whose parent table does not exist. An
    /// existing table gets neither: it is left as it is.
    private static func createForeignKeyIndexes(_ schema: TableSchema, on connection: Connection) throws {
        for key in schema.foreignKeysNeedingIndex {
            try createIndex(IndexShape(columns: key.columns, isUnique: false), schema: schema, on: connection)
        }
        // After CREATE TABLE, so that two models referencing each other end the recursion.
        for key in schema.foreignKeys {
            let parent = try key.declaration.parentTable()
            guard parent !== schema, try !connection.tableExists(parent.tableName) else { continue }
            try key.declaration.prepareParent(connection)
        }
    }

    /// Beside each declared index or unique constraint whose first column is a `.text` date
    /// column, the partial index of that column's values that are not date text (see
    /// ``DatePrefilter``), so that a date comparison uses the index. Created once under its own
    /// name; a name already taken (by anything) leaves the column without it, which only costs
    /// speed.
    private static func createDatePartialIndexes(_ schema: TableSchema, on connection: Connection) throws {
        let firstColumns = Set((schema.indexes + schema.uniques).compactMap(\.first))
        for column in schema.columns where firstColumns.contains(column.name) {
            guard column.swiftTypeName == "Date" || column.swiftTypeName == "Optional<Date>",
                !column.isJSON,
                (schema.columnDateStorage[column.name] ?? connection.configuration.dateStorage) == .text
            else { continue }
            let name = DatePrefilter.partialIndexName(table: schema.tableName, column: column.name)
            let taken = try connection.fetchAll(
                Int.self, sql: "SELECT 1 FROM sqlite_master WHERE name = \(name) COLLATE NOCASE")
            guard taken.isEmpty else { continue }
            try connection.execute(
                SQL(DatePrefilter.partialIndexSQL(named: name, table: schema.tableName, column: column.name)))
        }
    }

    /// Unique constraints added to the model after the table was created become unique indexes,
    /// found or created as ``createIndexes(_:on:)`` does.
    private static func createUniqueConstraints(_ schema: TableSchema, on connection: Connection) throws {
        try createMissingIndexes(schema.uniques, isUnique: true, schema: schema, on: connection)
    }

    /// Creates an index of each column list that no index of the table already is. A unique
    /// index that existing rows violate is a ``SchemaError`` saying so.
    private static func createMissingIndexes(
        _ declared: [[String]], isUnique: Bool, schema: TableSchema, on connection: Connection
    ) throws {
        guard !declared.isEmpty else { return }
        var existing = try existingIndexes(schema.tableName, on: connection)
        for columns in declared {
            let shape = IndexShape(columns: columns, isUnique: isUnique)
            guard !existing.contains(where: { $0.matches(shape) }) else { continue }
            do {
                try createIndex(shape, schema: schema, on: connection)
            } catch let error as DatabaseError where isUnique && error.resultCode.primary == .constraint {
                throw SchemaError(
                    "cannot add UNIQUE(\(columns.joined(separator: ", "))) to \(schema.tableName): existing rows "
                        + "hold duplicate values (\(error.message)); remove the duplicates first")
            }
            existing.append(shape)
        }
    }

    /// Creates an index under its readable name, or, when another index (or table) already
    /// has that name, under the readable name followed by a hash of the table, uniqueness and
    /// exact column list: `[\.a_b]` and `[\.a, \.b]` both read `t_on_a_b`. The name is tried
    /// rather than looked up first, so that a table that is checked reads `sqlite_master` once.
    private static func createIndex(_ shape: IndexShape, schema: TableSchema, on connection: Connection)
        throws
    {
        let table = schema.tableName
        let readable = TableDefinition.indexName(table: table, columns: shape.columns, unique: shape.isUnique)
        do {
            try connection.execute(
                SQL(
                    TableDefinition.createIndex(
                        named: readable, table: table, columns: shape.columns, unique: shape.isUnique)))
        } catch let error as DatabaseError
            where error.resultCode.primary == .error && error.message.contains("already exists")
        {
            let name = TableDefinition.disambiguatedIndexName(
                table: table, columns: shape.columns, unique: shape.isUnique)
            try connection.execute(
                SQL(
                    TableDefinition.createIndex(
                        named: name, table: table, columns: shape.columns, unique: shape.isUnique)))
        }
    }

    /// The columns and uniqueness of an index, or of a declared index or unique constraint.
    private struct IndexShape {
        /// Column names; `nil` for an expression.
        let columns: [String]
        let isUnique: Bool

        /// Whether this existing index is the declared one: same uniqueness, and the same
        /// columns (in order for an index; in any order for a unique constraint, which means
        /// the same whatever the order). SQLite compares column names ignoring case.
        func matches(_ declared: IndexShape) -> Bool {
            guard isUnique == declared.isUnique, columns.count == declared.columns.count else { return false }
            let mine = columns.map { $0.lowercased() }
            let theirs = declared.columns.map { $0.lowercased() }
            return isUnique ? Set(mine) == Set(theirs) : mine == theirs
        }
    }

    /// The table's complete (not partial) indexes over plain columns, automatic ones included.
    private static func existingIndexes(_ table: String, on connection: Connection) throws -> [IndexShape] {
        let indexes = try connection.fetchAll(
            Row.self, sql: "SELECT name, \"unique\" FROM pragma_index_list(\(table)) WHERE partial = 0")
        return try indexes.compactMap { index in
            let name: String = try index.value(named: "name")
            let columns = try connection.fetchAll(
                String?.self, sql: "SELECT name FROM pragma_index_info(\(name)) ORDER BY seqno")
            // An index on an expression (a NULL name) is none of the declared ones.
            guard !columns.contains(nil) else { return nil }
            return IndexShape(
                columns: columns.compactMap { $0 }, isUnique: try index.value(Int.self, named: "unique") == 1)
        }
    }
}
