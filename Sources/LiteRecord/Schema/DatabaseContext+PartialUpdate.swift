// MARK: - Updating some columns of a model

extension DatabaseContext {
    /// Updates only some columns of the row with the model's primary key, to the model's values.
    ///
    /// The other columns keep what the row holds, even when another writer changed them since
    /// the model was read:
    ///
    /// ```swift
    /// player.score += 10
    /// try db.update(player, columns: [\.score])   // UPDATE players SET score = ? WHERE id = ?
    /// ```
    ///
    /// - Parameters:
    ///   - model: The model; its primary key chooses the row.
    ///   - columns: Key paths of the stored properties to write, each a column of the model
    ///     (not its primary key, not a path inside a property such as `\.stats.wins`).
    /// - Throws: ``SchemaError`` for an empty list, a key path that is not a column, or a
    ///   primary key column (nothing is written then); ``PersistenceError`` with
    ///   ``PersistenceError/isRowNotFound`` when no row has the key; ``DatabaseError`` for
    ///   constraint violations.
    public func update<M: Model>(_ model: M, columns: [PartialKeyPath<M>]) throws {
        try update(model, columnReferences: columns.map(PropertyReference.init))
    }

    /// ``update(_:columns:)`` with key paths already resolved (they are not `Sendable`).
    func update<M: Model>(_ model: M, columnReferences references: [PropertyReference]) throws {
        try withConnection { connection in
            let table = try connection.table(for: M.self)
            try connection.update(
                model, columnNames: try table.partialUpdateColumns(references), table: table)
        }
    }
}

extension Connection {
    /// Updates the named columns (resolved and checked) of the row with the model's key.
    ///
    /// - Throws: ``PersistenceError`` with ``PersistenceError/isRowNotFound`` when no row has
    ///   the key; ``DatabaseError`` for constraint violations.
    func update<M: Model>(_ model: M, columnNames columns: [String], table: TableSchema) throws {
        let connection = self
        guard let keyCondition = table.statements.keyCondition else {
            throw PersistenceError.noPrimaryKey(table)
        }
        let row = try connection.encodeRow(model, table: table)
        let keys = try connection.keyValues(of: row, table: table)
        for column in columns where row[column] == nil {
            throw PersistenceError(
                "\(table.typeName) did not encode column \(column)", table: table.tableName)
        }
        let assignments = columns.map { "\(SQL.quoteIdentifier($0)) = ?" }.joined(separator: ", ")
        let sql =
            "UPDATE \(SQL.quoteIdentifier(table.tableName)) SET \(assignments) WHERE \(keyCondition)"
        // A UUID key binds every spelling of the key (see ModelStatements.keyArguments); a
        // date or decimal key another tool stored in another form is found by value.
        // A foreign key among the columns takes the parent's form when SQLite refuses it.
        let updated = try connection.writingByStoredKey(row, table: table) { row in
            try connection.writeKeepingForeignKeys(row, table: table) { row in
                let values = columns.map { row[$0] ?? .null }
                let keyArguments = table.statements.keyArguments(
                    try connection.keyValues(of: row, table: table))
                try connection.execute(
                    SQL(sql, arguments: StatementArguments(positional: values + keyArguments)))
            }
            return connection.changes > 0
        }
        if !updated {
            throw PersistenceError.rowNotFound(table: table, key: keys)
        }
    }
}

extension TableSchema {
    /// The columns a partial update writes, in the order given, without repeats.
    ///
    /// - Throws: ``SchemaError`` for an empty list, a key path that is not a stored property,
    ///   one inside a property, one whose property has no column, or a primary key column.
    func partialUpdateColumns(_ references: [PropertyReference]) throws -> [String] {
        guard !references.isEmpty else {
            throw SchemaError("update(_:columns:) of \(typeName) needs at least one column to write")
        }
        var columns: [String] = []
        for reference in references {
            guard let path = reference.path else {
                throw SchemaError(
                    "\(reference.keyPathDescription) is not a stored property of \(typeName), so it names no column"
                )
            }
            guard path.names.count == 1 else {
                throw SchemaError(
                    "\(reference.keyPathDescription) points inside \(typeName).\(path.root), which is stored as one "
                        + "column; write the whole property (\\.\(path.root))")
            }
            let column = try column(for: path, keyPathDescription: reference.keyPathDescription).name
            guard !primaryKey.contains(column) else {
                throw SchemaError(
                    "\(reference.keyPathDescription) is the primary key of \(typeName): it chooses the row, so "
                        + "update(_:columns:) cannot change it; use a Migrator step or SQL to change a key")
            }
            if !columns.contains(column) { columns.append(column) }
        }
        return columns
    }
}

extension ModelStatements {
    /// The condition on the primary key that finds one row (`"id" = ?`), as `delete` uses it,
    /// bound with ``keyArguments(_:)`` of the key values in key order.
    var keyCondition: String? {
        guard let delete else { return nil }
        guard let range = delete.range(of: " WHERE ") else { return nil }
        return String(delete[range.upperBound...])
    }
}

extension BackendTable {
    /// The columns `update(_:columns:)` writes, resolved and checked as on SQLite, for another
    /// backend's partial update. Package access: not part of LiteRecord's public API.
    ///
    /// - Throws: ``SchemaError`` as on SQLite (see `TableSchema.partialUpdateColumns`).
    package static func partialUpdateColumns<M: Model>(of type: M.Type, _ columns: [PartialKeyPath<M>]) throws
        -> [String]
    {
        try TableSchemaCache.schema(for: M.self).partialUpdateColumns(columns.map(PropertyReference.init))
    }

    /// Key values given by the caller (`find(_:key:)`, `delete(_:key:)`), their number checked
    /// against the key as on SQLite. Package access: not part of LiteRecord's public API.
    ///
    /// - Throws: ``PersistenceError`` when the model has no primary key or the number differs.
    package static func keyValues<M: Model>(of type: M.Type, _ key: [any DatabaseValueConvertible]) throws
        -> [DatabaseValue]
    {
        try TableSchemaCache.schema(for: M.self).keyArguments(key)
    }
}
