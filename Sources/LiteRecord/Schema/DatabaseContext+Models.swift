// MARK: - Writing models

extension DatabaseContext {
    /// Inserts a model and, when its primary key is an `Int64?`/`Int?` still `nil`, sets it to
    /// the rowid SQLite assigned.
    ///
    /// The first use of a model type on a database creates its table (or adds missing columns
    /// and indexes), once.
    ///
    /// - Parameter model: The model; its key is set on return.
    /// - Throws: ``DatabaseError`` (a unique or NOT NULL violation names the table and column),
    ///   `EncodingError` for a value that cannot be stored, ``SchemaError`` for a model that
    ///   cannot be mapped, ``PersistenceError`` for a `nil` primary key that SQLite does not
    ///   assign (a `String?` or `UUID?` key). Nothing is written when it throws.
    public func insert<M: Model>(_ model: inout M) throws {
        try withConnection { connection in
            let table = try connection.table(for: M.self)
            if try connection.insertInPlace(&model, table: table, sql: table.statements.insert, kind: .insert)
            {
                return
            }
            let encoded = try connection.encodeModel(model, table: table)
            try connection.checkPrimaryKey(of: encoded, table: table)
            try connection.runInsert(
                encoded, of: M.self, table: table, sql: table.statements.insert, kind: .insert)
            connection.assignRowID(to: &model, table: table)
        }
    }

    /// Inserts a model whose key the caller chose (a `UUID`, a `String`, a composite key).
    ///
    /// - Parameter model: The model.
    /// - Throws: As ``insert(_:)-1i17o``; a duplicate key is `.constraintPrimaryKey` or `.constraintUnique`.
    public func insert<M: Model>(_ model: M) throws {
        var copy = model
        try insert(&copy)
    }

    /// Inserts models in one transaction: all of them, or none when one fails.
    ///
    /// - Parameter models: The models.
    /// - Returns: The models as inserted, with their rowid keys set.
    /// - Throws: As ``insert(_:)-1i17o``; the transaction is rolled back.
    @discardableResult
    public func insert<M: Model, S: Sequence<M>>(contentsOf models: S) throws -> [M] {
        // Immediate: the first use of the model checks its table (a read) before writing, and in
        // a deferred transaction a read followed by a write fails with SQLITE_BUSY at once when
        // another connection writes, instead of waiting for it with the busy timeout.
        try transaction(.immediate) { tx in
            try models.map { model in
                var copy = model
                try tx.insert(&copy)
                return copy
            }
        }
    }

    /// Updates the row with the model's primary key to the model's values.
    ///
    /// - Parameter model: The model.
    /// - Throws: ``PersistenceError`` with ``PersistenceError/isRowNotFound`` when no row has the
    ///   key (nothing is inserted), or when the model has no primary key; ``DatabaseError`` for
    ///   constraint violations.
    public func update<M: Model>(_ model: M) throws {
        try withConnection { connection in
            let table = try connection.table(for: M.self)
            if try connection.updateInPlace(model, table: table) { return }
            let (row, matchesTable) = try connection.encodeModel(model, table: table)
            if matchesTable, let sql = table.statements.update {
                // The fast path: every column where the UPDATE expects it, the key among them.
                let statements = table.statements
                // A UUID foreign key in the parent's spelling when SQLite refuses LiteRecord's.
                // A date or decimal key another tool stored in another form: found by value.
                let updated = try connection.writingByStoredKey(row, table: table) { row in
                    try connection.writeKeepingForeignKeys(row, table: table) { row in
                        try connection.executeModelStatement(
                            sql, key: ModelStatementKey(model: ObjectIdentifier(M.self), kind: .update),
                            values: statements.updateArguments(row.values))
                    }
                    return connection.changes > 0
                }
                if !updated {
                    throw PersistenceError.rowNotFound(
                        table: table, key: statements.keyPositions.map { row.values[$0] })
                }
                return
            }
            let keys = try connection.keyValues(of: row, table: table)
            guard let sql = table.statements.update else {
                // Every column is part of the key: there is nothing to change, only to check.
                guard try connection.rowExists(table: table, key: keys) else {
                    throw PersistenceError.rowNotFound(table: table, key: keys)
                }
                return
            }
            let updated = try connection.writingByStoredKey(row, table: table) { row in
                try connection.writeKeepingForeignKeys(row, table: table) { row in
                    let ordered = try connection.valuesInTableOrder(row, table: table)
                    let values = table.statements.updateArguments(ordered)
                    try connection.execute(SQL(sql, arguments: StatementArguments(positional: values)))
                }
                return connection.changes > 0
            }
            if !updated {
                throw PersistenceError.rowNotFound(table: table, key: keys)
            }
        }
    }

    /// Inserts the model, or updates the row with its primary key when there is one
    /// (`INSERT ... ON CONFLICT DO UPDATE`). A `nil` rowid key is always an insert and is set.
    ///
    /// - Parameter model: The model; its rowid key is set when it was inserted.
    /// - Throws: ``DatabaseError`` for constraint violations other than the key's;
    ///   ``PersistenceError`` for a `nil` key that SQLite does not assign (nothing is written).
    public func save<M: Model>(_ model: inout M) throws {
        try withConnection { connection in
            let table = try connection.table(for: M.self)
            guard let upsert = table.statements.upsert, !table.hasNilAutomaticKey(model) else {
                try connection.withConnection { try $0.insert(&model) }
                return
            }
            if table.statements.hasUUIDKey || table.hasValueFormKey {
                // A UUID, date or decimal key stored in another form does not conflict with the
                // one being inserted: look the row up by value instead of relying on ON CONFLICT.
                try connection.updateOrInsert(model, table: table)
                return
            }
            if try connection.insertInPlace(&model, table: table, sql: upsert, kind: .upsert) { return }
            let encoded = try connection.encodeModel(model, table: table)
            try connection.checkPrimaryKey(of: encoded, table: table)
            try connection.runInsert(encoded, of: M.self, table: table, sql: upsert, kind: .upsert)
        }
    }

    /// Deletes the row with the model's primary key.
    ///
    /// - Parameter model: The model.
    /// - Returns: Whether a row was deleted.
    /// - Throws: ``PersistenceError`` when the model has no primary key.
    @discardableResult
    public func delete<M: Model>(_ model: M) throws -> Bool {
        try withConnection { connection in
            let table = try connection.table(for: M.self)
            let keys = try connection.keyValues(of: connection.encodeRow(model, table: table), table: table)
            return try connection.deleteRow(table: table, key: keys)
        }
    }

    /// Deletes the row with a primary key value.
    ///
    /// - Parameters:
    ///   - type: The model type.
    ///   - id: The key value.
    /// - Returns: Whether a row was deleted.
    /// - Throws: ``PersistenceError`` when the model has no single-column primary key.
    @discardableResult
    public func delete<M: Model>(_ type: M.Type, id: some DatabaseValueConvertible) throws -> Bool {
        try delete(M.self, key: [id])
    }

    /// Deletes the row with a composite primary key.
    ///
    /// - Parameters:
    ///   - type: The model type.
    ///   - key: The key values, in the order of the schema's `primaryKey`.
    /// - Returns: Whether a row was deleted.
    /// - Throws: ``PersistenceError`` when the number of values does not match the key.
    @discardableResult
    public func delete<M: Model>(_ type: M.Type, key: [any DatabaseValueConvertible]) throws -> Bool {
        try withConnection { connection in
            let table = try connection.table(for: M.self)
            return try connection.deleteRow(table: table, key: table.keyArguments(key))
        }
    }
}

extension Connection {
    func rowExists(table: TableSchema, key: [DatabaseValue]) throws -> Bool {
        guard let sql = table.statements.exists else { throw PersistenceError.noPrimaryKey(table) }
        let arguments = StatementArguments(positional: table.statements.keyArguments(key))
        if try fetchOne(Int.self, sql: SQL(sql, arguments: arguments)) != nil { return true }
        // A date or decimal key another tool stored in another form: found by value.
        return try storedKey(matching: key, table: table) != nil
    }

    func deleteRow(table: TableSchema, key: [DatabaseValue]) throws -> Bool {
        guard let sql = table.statements.delete else { throw PersistenceError.noPrimaryKey(table) }
        try execute(SQL(sql, arguments: StatementArguments(positional: table.statements.keyArguments(key))))
        if changes > 0 { return true }
        // A date or decimal key another tool stored in another form: found by value.
        guard let stored = try storedKey(matching: key, table: table), stored != key else { return false }
        try execute(
            SQL(sql, arguments: StatementArguments(positional: table.statements.keyArguments(stored))))
        return changes > 0
    }
}

extension TableSchema {
    /// Converts key values given by the caller, checking their number against the key.
    func keyArguments(_ key: [any DatabaseValueConvertible]) throws -> [DatabaseValue] {
        try checkKeyCount(key.count)
        return try key.map { try $0.databaseValue() }
    }

    /// ``keyArguments(_:)`` for the one value of `find(_:id:)`, without an array of existentials.
    func keyArguments(single key: some DatabaseValueConvertible) throws -> [DatabaseValue] {
        try checkKeyCount(1)
        return [try key.databaseValue()]
    }

    private func checkKeyCount(_ count: Int) throws {
        guard !primaryKey.isEmpty else { throw PersistenceError.noPrimaryKey(self) }
        guard count == primaryKey.count else {
            throw PersistenceError(
                "\(typeName)'s primary key has \(primaryKey.count) column(s) (\(primaryKey.joined(separator: ", "))) "
                    + "but \(count) value(s) were given", table: tableName)
        }
    }
}

extension PersistenceError {
    static func rowNotFound(table: TableSchema, key: [DatabaseValue]) -> PersistenceError {
        rowNotFound(tableName: table.tableName, keyColumns: table.primaryKey, key: key)
    }

    /// The error of an update that found no row with the model's key, alike on every backend.
    package static func rowNotFound(tableName: String, keyColumns: [String], key: [DatabaseValue])
        -> PersistenceError
    {
        PersistenceError(
            "no row of \(tableName) has \(keyColumns.joined(separator: ", ")) = "
                + key.map(\.description).joined(separator: ", ") + "; nothing was updated",
            table: tableName, isRowNotFound: true)
    }

    static func noPrimaryKey(_ table: TableSchema) -> PersistenceError {
        PersistenceError(
            "\(table.typeName) has no primary key: declare one in its schema (primaryKey:) to update, "
                + "find or delete by key", table: table.tableName)
    }
}
