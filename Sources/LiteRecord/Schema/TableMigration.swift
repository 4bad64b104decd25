/// Creates a model's table, or grows an existing one to fit the model: the automatic,
/// additive and safe migration that runs the first time a model type is used on a database.
///
/// It creates what is missing (the table, new columns, new indexes and unique constraints)
/// and never drops, renames or converts anything. A property removed from the model leaves its
/// column and data in place. A column whose stored type no longer fits the property is reported
/// as a ``SchemaError``, since converting it could lose data.
enum TableMigration {
    /// A column as the database declares it.
    private struct ExistingColumn: Decodable {
        let name: String
        let type: String
        let notnull: Int
        let pk: Int
    }

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
        let kind = try connection.fetchOne(
            String.self,
            sql: "SELECT type FROM sqlite_master WHERE name = \(schema.tableName) COLLATE NOCASE")
        guard let kind else {
            try connection.execute(SQL(TableDefinition.createTable(schema)))
            try createIndexes(schema, on: connection)
            return
        }
        // A view maps onto a model as it is; there is nothing to grow.
        guard kind == "table" else { return }
        try grow(schema, on: connection)
    }

    private static func grow(_ schema: TableSchema, on connection: Connection) throws {
        let existing = try connection.fetchAll(
            ExistingColumn.self,
            sql: "SELECT name, type, \"notnull\", pk FROM pragma_table_xinfo(\(schema.tableName))")
        var existingByName: [String: ExistingColumn] = [:]
        for column in existing { existingByName[column.name.lowercased()] = column }
        for column in schema.columns {
            if let stored = existingByName[column.name.lowercased()] {
                try checkCompatible(column, stored: stored, schema: schema)
                continue
            }
            if !column.isOptional && column.defaultValue == nil {
                throw SchemaError(
                    "cannot add column \(column.name) to \(schema.tableName): \(schema.typeName)."
                        + "\(column.property ?? column.key) is new and not optional, so existing rows need a value; "
                        + "declare one with .defaultValue(_:for:) in the schema, or make the property optional"
                )
            }
            try connection.execute(SQL(TableDefinition.addColumn(column, to: schema.tableName)))
        }
        try createUniqueConstraints(schema, on: connection)
        try createIndexes(schema, on: connection)
    }

    /// Reports a column whose declared type cannot hold the property's values without conversion.
    private static func checkCompatible(
        _ column: TableSchema.Column, stored: ExistingColumn, schema: TableSchema
    ) throws {
        let storedAffinity = Affinity(declaredType: stored.type)
        let modelAffinity = Affinity(declaredType: column.declaredType.rawValue)
        guard !storedAffinity.accepts(modelAffinity) else { return }
        throw SchemaError(
            "column \(column.name) of \(schema.tableName) is declared \(stored.type.isEmpty ? "without a type" : stored.type) "
                + "but \(schema.typeName).\(column.property ?? column.key) is \(column.swiftTypeName) "
                + "(\(column.declaredType.rawValue)); LiteRecord never converts stored data: "
                + "migrate the column with a Migrator step")
    }

    private static func createIndexes(_ schema: TableSchema, on connection: Connection) throws {
        for columns in schema.indexes {
            try connection.execute(
                SQL(TableDefinition.createIndex(table: schema.tableName, columns: columns, unique: false)))
        }
    }

    /// Unique constraints added to the model after the table was created become unique indexes.
    private static func createUniqueConstraints(_ schema: TableSchema, on connection: Connection) throws {
        guard !schema.uniques.isEmpty else { return }
        let existing = try existingUniqueColumnSets(schema.tableName, on: connection)
        for columns in schema.uniques where !existing.contains(Set(columns.map { $0.lowercased() })) {
            do {
                try connection.execute(
                    SQL(TableDefinition.createIndex(table: schema.tableName, columns: columns, unique: true)))
            } catch let error as DatabaseError where error.resultCode.primary == .constraint {
                throw SchemaError(
                    "cannot add UNIQUE(\(columns.joined(separator: ", "))) to \(schema.tableName): existing rows "
                        + "hold duplicate values (\(error.message)); remove the duplicates first")
            }
        }
    }

    private static func existingUniqueColumnSets(_ table: String, on connection: Connection) throws -> [Set<
        String
    >] {
        let indexes = try connection.fetchAll(
            Row.self, sql: "SELECT name FROM pragma_index_list(\(table)) WHERE \"unique\" = 1")
        return try indexes.map { index in
            let name: String = try index.value(named: "name")
            let columns = try connection.fetchAll(
                String.self, sql: "SELECT name FROM pragma_index_info(\(name))")
            return Set(columns.map { $0.lowercased() })
        }
    }
}

/// SQLite's type affinity of a declared column type, by its documented rules.
enum Affinity {
    case integer, text, blob, real, numeric

    init(declaredType: String) {
        let type = declaredType.uppercased()
        if type.contains("INT") {
            self = .integer
        } else if type.contains("CHAR") || type.contains("CLOB") || type.contains("TEXT") {
            self = .text
        } else if type.isEmpty || type.contains("BLOB") {
            self = .blob
        } else if type.contains("REAL") || type.contains("FLOA") || type.contains("DOUB") {
            self = .real
        } else {
            self = .numeric
        }
    }

    /// Whether a column of this affinity holds a model column of `other` without changing
    /// its values. Numbers mix freely; text in a NUMERIC column (dates declared `DATETIME`)
    /// is kept as text unless it looks like a number; an untyped column keeps everything.
    func accepts(_ other: Affinity) -> Bool {
        switch (self, other) {
        case (.blob, _), (_, .blob): return true
        case (.integer, .integer), (.integer, .real), (.integer, .numeric): return true
        case (.real, .integer), (.real, .real), (.real, .numeric): return true
        case (.numeric, _): return true
        case (.text, .text): return true
        default: return false
        }
    }
}
