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
