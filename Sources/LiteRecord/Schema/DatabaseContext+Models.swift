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

// MARK: - Reading models

extension DatabaseContext {
    /// The model with a primary key value, or `nil`.
    ///
    /// - Parameters:
    ///   - type: The model type.
    ///   - id: The key value.
    /// - Returns: The model, decoded.
    /// - Throws: ``PersistenceError`` when the model has no single-column primary key;
    ///   ``RowDecodingError`` when the row does not fit the model.
    public func find<M: Model>(_ type: M.Type, id: some DatabaseValueConvertible) throws -> M? {
        try withReader(preparing: M.self) { connection in
            try connection.readingModelTable(M.self) { table in
                try connection.findModel(M.self, table: table, key: table.keyArguments(single: id))
            }
        }
    }

    /// The model with a composite primary key, or `nil`.
    ///
    /// - Parameters:
    ///   - type: The model type.
    ///   - key: The key values, in the order of the schema's `primaryKey`.
    /// - Returns: The model, decoded.
    /// - Throws: As ``find(_:id:)``.
    public func find<M: Model>(_ type: M.Type, key: [any DatabaseValueConvertible]) throws -> M? {
        try withReader(preparing: M.self) { connection in
            try connection.readingModelTable(M.self) { table in
                try connection.findModel(M.self, table: table, key: table.keyArguments(key))
            }
        }
    }

    /// Whether a row has the primary key value.
    ///
    /// - Parameters:
    ///   - type: The model type.
    ///   - id: The key value.
    /// - Returns: Whether the row exists.
    /// - Throws: ``PersistenceError`` when the model has no single-column primary key.
    public func exists<M: Model>(_ type: M.Type, id: some DatabaseValueConvertible) throws -> Bool {
        try withReader(preparing: M.self) { connection in
            try connection.readingModelTable(M.self) { table in
                try connection.rowExists(table: table, key: table.keyArguments([id]))
            }
        }
    }

    /// Every model in the table, in rowid order.
    ///
    /// - Parameter type: The model type.
    /// - Returns: The models.
    /// - Throws: ``RowDecodingError`` when a row does not fit the model.
    @inlinable
    public func fetchAll<M: Model>(_ type: M.Type) throws -> [M] {
        // Inlinable so that appending is specialized for the model type in the caller's code:
        // in generic code it costs more than decoding an integer column.
        var models: [M] = []
        try forEachModel(
            M.self, allocatingAll: makeRowArray, collectingAll: { models = $0 }, { models.append($0) })
        return models
    }

    /// Decodes every model in the table one at a time, in rowid order, handing each over (or,
    /// given `allocatingAll`, all at once to `collectingAll` when they are built in place).
    @usableFromInline
    func forEachModel<M: Model>(
        _ type: M.Type, allocatingAll: RowArrayAllocation<M>? = nil,
        collectingAll: (consuming [M]) -> Void = { _ in }, _ body: (consuming M) throws -> Void
    ) throws {
        try withReader(preparing: M.self) { connection in
            try connection.readingModelTable(M.self) { table in
                try connection.forEachModel(
                    M.self, table: table, sql: SQL(table.statements.selectAll), allocatingAll: allocatingAll,
                    collectingAll: collectingAll,
                    body)
            }
        }
    }

    /// Models decoded from your own SQL, with the columns named as the model's schema names
    /// them (naming strategy, explicit column names, per-column date storage).
    ///
    /// The table is neither created nor checked: the SQL may read any table or view.
    ///
    /// - Parameters:
    ///   - type: The model type.
    ///   - sql: One query; interpolated values are bound.
    /// - Returns: The models, in the order SQLite returned them.
    /// - Throws: ``DatabaseError`` when the SQL fails, ``RowDecodingError`` when a row does not
    ///   fit the model, ``SchemaError`` for a model that cannot be mapped.
    @inlinable
    public func fetchAll<M: Model>(_ type: M.Type, sql: SQL) throws -> [M] {
        // Inlinable so that appending is specialized for the model type in the caller's code.
        var models: [M] = []
        try forEachModel(
            M.self, sql: sql, allocatingAll: makeRowArray, collectingAll: { models = $0 },
            { models.append($0) })
        return models
    }

    /// Models decoded from your own SQL with explicit arguments.
    ///
    /// - Parameters:
    ///   - type: The model type.
    ///   - sql: One query with `?` or `:name` parameters.
    ///   - arguments: Their values.
    /// - Returns: The models.
    /// - Throws: As ``fetchAll(_:sql:)-(M.Type,_)``.
    public func fetchAll<M: Model>(_ type: M.Type, sql: String, arguments: StatementArguments) throws -> [M] {
        try fetchAll(M.self, sql: SQL(sql, arguments: arguments))
    }

    /// The first model decoded from your own SQL, or `nil` when there is no row.
    ///
    /// - Parameters:
    ///   - type: The model type.
    ///   - sql: One query; interpolated values are bound.
    /// - Returns: The first row, decoded as ``fetchAll(_:sql:)-(M.Type,_)`` decodes it.
    /// - Throws: As ``fetchAll(_:sql:)-(M.Type,_)``.
    public func fetchOne<M: Model>(_ type: M.Type, sql: SQL) throws -> M? {
        try withReader { connection in
            try connection.fetchFirstModel(M.self, table: connection.schema(for: M.self), sql: sql)
        }
    }

    /// Decodes models from your own SQL one at a time, with the model's column names.
    ///
    /// - Parameters:
    ///   - type: The model type.
    ///   - sql: One query; interpolated values are bound.
    ///   - body: Called with each model; throwing stops the iteration.
    /// - Throws: As ``fetchAll(_:sql:)-(M.Type,_)``, or what `body` throws.
    public func forEach<M: Model>(_ type: M.Type, sql: SQL, _ body: (M) throws -> Void) throws {
        try forEachModel(M.self, sql: sql) { try body($0) }
    }

    /// Decodes models from your own SQL one at a time, handing each over (or, given
    /// `allocatingAll`, all at once to `collectingAll` when they are built in place).
    ///
    /// Inlined, with the layers below it that only pass the call on (reader routing, the
    /// statement's checkout and binding, row decoding): a fetch of one row by raw SQL went
    /// through nine generic calls, each with its closure context, and took about 5 % longer.
    @usableFromInline @inline(__always)
    func forEachModel<M: Model>(
        _ type: M.Type, sql: SQL, allocatingAll: RowArrayAllocation<M>? = nil,
        collectingAll: (consuming [M]) -> Void = { _ in }, _ body: (consuming M) throws -> Void
    ) throws {
        try withReader { connection in
            try connection.forEachModel(
                M.self, table: connection.schema(for: M.self), sql: sql, allocatingAll: allocatingAll,
                collectingAll: collectingAll, body)
        }
    }

    /// The number of rows in the model's table.
    ///
    /// - Parameter type: The model type.
    /// - Returns: The count.
    /// - Throws: ``DatabaseError``.
    public func count<M: Model>(_ type: M.Type) throws -> Int {
        try withReader(preparing: M.self) { connection in
            try connection.readingModelTable(M.self) { table in
                try connection.fetchOne(Int.self, sql: SQL(table.statements.count)) ?? 0
            }
        }
    }

    /// Creates the model's table, or grows it to fit the model, now rather than on first use.
    ///
    /// What is automatic: a missing table is created with its indexes; a new property adds a
    /// column (an optional one is NULL in old rows; a non-optional one needs a schema default);
    /// new indexes and unique constraints are created; the column of a removed property, or of
    /// a property made optional, loses its `NOT NULL` (keeping its data) so that writes go on.
    /// What is not: nothing is dropped, renamed or converted; a changed type is an error.
    ///
    /// - Parameter type: The model type.
    /// - Throws: ``SchemaError`` explaining what cannot be done and how to fix it.
    public func migrate<M: Model>(_ type: M.Type) throws {
        try withConnection { _ = try $0.table(for: M.self) }
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
