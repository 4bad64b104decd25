extension Connection {
    /// The table of a model type, created or grown on first use on this connection.
    ///
    /// The type is read once per process; its table is checked once per connection.
    func table<M: Model>(for type: M.Type) throws -> TableSchema {
        let id = ObjectIdentifier(M.self)
        if let schema = preparedModels[id] { return schema }
        let schema = try TableSchemaCache.schema(for: M.self)
        // A read-only database is used as it is; a read never creates or grows a table.
        if !isReadOnly && !isQueryOnly { try TableMigration.prepare(schema, on: self) }
        preparedModels[id] = schema
        return schema
    }

    /// The schema of a model type, without creating or checking its table (raw SQL reads any
    /// table or view).
    ///
    /// The type last asked for is kept: a fetch by raw SQL in a loop would otherwise take the
    /// process-wide cache's lock and hash the type on every call.
    func schema<M: Model>(for type: M.Type) throws -> TableSchema {
        let id = ObjectIdentifier(M.self)
        if let last = lastReadSchema, last.type == id { return last.schema }
        let schema = try TableSchemaCache.schema(for: M.self)
        lastReadSchema = (id, schema)
        return schema
    }

    /// Encodes a model with its table's column names and date storage.
    func encodeRow<M: Model>(_ model: M, table: TableSchema) throws -> EncodedRow {
        try table.rowEncoder(dateStorage: configuration.dateStorage).encode(model)
    }

    /// Encodes a model, telling whether it wrote exactly its table's columns in order (the
    /// columns the model's cached statements were built for).
    func encodeModel<M: Model>(_ model: M, table: TableSchema) throws -> (row: EncodedRow, matchesTable: Bool)
    {
        try table.rowEncoder(dateStorage: configuration.dateStorage).encode(
            model, expecting: table.statements.columns)
    }

    /// Runs one of the model's cached statements with `values`, when the encoded columns are the
    /// ones the statement was built for; otherwise builds the statement for these columns.
    func runInsert<M: Model>(
        _ encoded: (row: EncodedRow, matchesTable: Bool), of type: M.Type, table: TableSchema, sql: String,
        kind: ModelStatementKey.Kind
    ) throws {
        // A UUID foreign key is written as the parent spells it when SQLite refuses the first
        // spelling (see writeKeepingForeignKeys).
        try writeKeepingForeignKeys(encoded.row, table: table) { row in
            if encoded.matchesTable {
                try executeModelStatement(
                    sql, key: ModelStatementKey(model: ObjectIdentifier(M.self), kind: kind),
                    values: row.values)
                return
            }
            let text =
                row.columns == table.statements.columns
                ? sql : ModelStatements.insertSQL(table: table.tableName, columns: row.columns)
            try execute(SQL(text, arguments: StatementArguments(positional: row.values)))
        }
    }

    /// Runs one of a model's cached statements, binding the model's stored properties straight
    /// from its memory (``LayoutEncoding``), without `encode(to:)` or an array of values.
    ///
    /// - Parameters:
    ///   - model: The model's bytes.
    ///   - fields: The properties bound to the statement's parameters, in order.
    ///   - arguments: The Codable path's arguments for the same row, computed only to describe
    ///     an error as the Codable path would (its ``DatabaseError/arguments``).
    /// - Returns: `false`, with nothing written, when the row is for the Codable path: the
    ///   statement is not cached yet (its first run prepares it), a value is one the direct read
    ///   declines, or SQLite refused a foreign key (the Codable path respells the key and tries
    ///   again).
    func runInPlace(
        _ model: UnsafeRawPointer, fields: [EncodingField], sql: String, key: ModelStatementKey,
        arguments: () -> [DatabaseValue]?
    ) throws -> Bool {
        guard let entry = modelStatements[key], entry.sql == sql, !entry.statement.isInUse,
            authorizer?.isRecordingReads != true
        else { return false }
        let statement = entry.statement
        statement.isInUse = true
        defer {
            statement.reset()
            statement.isInUse = false
        }
        guard EncodingLayout.bind(fields, from: model, to: statement) else { return false }
        do {
            try statement.run()
            return true
        } catch let error as DatabaseError where error.arguments == nil {
            // A refused foreign key wrote nothing: the Codable path runs the row again and
            // respells the key as the parent stores it.
            if error.resultCode == .constraintForeignKey { return false }
            throw DatabaseError(
                resultCode: error.resultCode, message: error.message, sql: error.sql,
                arguments: arguments().map { StatementArguments(positional: $0) }, sqlState: error.sqlState)
        }
    }

    /// Inserts a model by binding its properties in place, and sets its rowid key; `false`,
    /// with nothing written, when the row is for the Codable path.
    func insertInPlace<M: Model>(
        _ model: inout M, table: TableSchema, sql: String, kind: ModelStatementKey.Kind
    )
        throws -> Bool
    {
        guard
            let layout = LayoutEncoding.layout(
                for: M.self, table: table, dateStorage: configuration.dateStorage)
        else { return false }
        let inserted = try withUnsafeBytes(of: &model) { bytes in
            let address = bytes.baseAddress.unsafelyUnwrapped
            return try runInPlace(
                address, fields: layout.insertFields, sql: sql,
                key: ModelStatementKey(model: ObjectIdentifier(M.self), kind: kind),
                arguments: {
                    try? self.encodeModel(address.assumingMemoryBound(to: M.self).pointee, table: table).row
                        .values
                })
        }
        if inserted { assignRowID(to: &model, table: table) }
        return inserted
    }

    /// Updates the row with a model's key by binding its properties in place; `false` when the
    /// row is for the Codable path, or when the UPDATE changed no row (the Codable path then
    /// looks for the key in another stored form, or reports the row missing).
    func updateInPlace<M: Model>(_ model: M, table: TableSchema) throws -> Bool {
        guard let sql = table.statements.update, !table.statements.hasUUIDKey,
            let layout = LayoutEncoding.layout(
                for: M.self, table: table, dateStorage: configuration.dateStorage),
            let fields = layout.updateFields
        else { return false }
        let ran = try withUnsafeBytes(of: model) { bytes in
            try runInPlace(
                bytes.baseAddress.unsafelyUnwrapped, fields: fields, sql: sql,
                key: ModelStatementKey(model: ObjectIdentifier(M.self), kind: .update),
                arguments: {
                    (try? self.encodeModel(model, table: table).row.values).map {
                        table.statements.updateArguments($0)
                    }
                })
        }
        return ran && changes > 0
    }

    /// Throws, before anything is written, when a primary key column that SQLite does not
    /// assign (any key but an `Int64?`/`Int?` rowid) would be NULL: SQLite accepts a NULL key
    /// in a rowid table, and such a row can never be found, updated or deleted by key.
    func checkPrimaryKey(of encoded: (row: EncodedRow, matchesTable: Bool), table: TableSchema) throws {
        for (column, position) in table.requiredKeyColumns {
            let value = encoded.matchesTable ? encoded.row.values[position] : encoded.row[column]
            guard value == nil || value == .null else { continue }
            let property = table.columns.first { $0.name == column }.flatMap(\.property) ?? column
            throw PersistenceError(
                "\(table.typeName).\(property) is nil, but it is part of the primary key of \(table.tableName) "
                    + "and SQLite assigns only an Int64? or Int? key: give \(property) a value before writing "
                    + "(for a UUID key, `var \(property) = UUID()`); nothing was written",
                table: table.tableName)
        }
    }

    /// The values of the primary key columns of an encoded row, in key order.
    func keyValues(of row: EncodedRow, table: TableSchema) throws -> [DatabaseValue] {
        guard !table.primaryKey.isEmpty else {
            throw PersistenceError(
                "\(table.typeName) has no primary key: declare one in its schema (primaryKey:) to update, "
                    + "find or delete by key", table: table.tableName)
        }
        return try table.primaryKey.map { column in
            guard let value = row[column] else {
                throw PersistenceError(
                    "\(table.typeName) did not encode its primary key column \(column)",
                    table: table.tableName)
            }
            return value
        }
    }

    /// Decodes models from SQL one at a time, with the table's column names and date storage.
    ///
    /// Each model is handed over, not lent: a caller that keeps it (`fetchAll` appending it to
    /// an array) moves it instead of copying it and destroying the original.
    ///
    /// - Parameters:
    ///   - allocatingAll: For a caller that keeps every row: when rows of `M` are built in
    ///     place, in an array it allocates, they go to `collectingAll` and `body` is never called.
    ///   - collectingAll: Takes the rows built in place.
    // Inlined: see `DatabaseContext.forEachModel(_:sql:allocatingAll:collectingAll:_:)`.
    @inline(__always)
    func forEachModel<M: Model>(
        _ type: M.Type, table: TableSchema, sql: SQL, allocatingAll: RowArrayAllocation<M>? = nil,
        collectingAll: (consuming [M]) -> Void = { _ in }, _ body: (consuming M) throws -> Void
    )
        throws
    {
        try withStatement(sql) { statement in
            // The default's decoder passed straight from the table: borrowed, not copied.
            guard configuration.dateStorage == .text else {
                return try RowDecodingSession.decodeRows(
                    M.self, of: statement, decoder: table.rowDecoder(dateStorage: configuration.dateStorage),
                    allocatingAll: allocatingAll, collectingAll: collectingAll, body)
            }
            try RowDecodingSession.decodeRows(
                M.self, of: statement, decoder: table.textDateRowDecoder, allocatingAll: allocatingAll,
                collectingAll: collectingAll, body)
        }
    }

    /// The model whose primary key is `key`, or `nil`: the table's find statement, then, for a
    /// date or decimal key another tool stored in another form, the row found by value.
    func findModel<M: Model>(_ type: M.Type, table: TableSchema, key: [DatabaseValue]) throws -> M? {
        guard let sql = table.statements.find else { throw PersistenceError.noPrimaryKey(table) }
        if let model = try fetchModel(M.self, table: table, sql: sql, key: table.statements.keyArguments(key))
        {
            return model
        }
        guard let stored = try storedKey(matching: key, table: table) else { return nil }
        return try fetchModel(M.self, table: table, sql: sql, key: table.statements.keyArguments(stored))
    }

    /// The model the table's find statement returns for the key values, or `nil`.
    ///
    /// The values are bound straight to the cached statement: a find in a loop is mostly
    /// SQLite's own step, and wrapping the key in an ``SQL`` value cost a tenth of it.
    private func fetchModel<M: Model>(_ type: M.Type, table: TableSchema, sql: String, key: [DatabaseValue])
        throws -> M?
    {
        try withCachedStatement(sql) { statement in
            for (index, value) in key.enumerated() {
                try statement.bind(value, toParameter: index + 1)
            }
            let found = try naming(StatementArguments(positional: key), inErrorsOf: statement) {
                try statement.step()
            }
            guard found else { return nil }
            return try decodeFirstRow(M.self, of: statement, table: table)
        }
    }

    /// The first model SQL returns, or `nil`; no array for the single row of a find by key.
    func fetchFirstModel<M: Model>(_ type: M.Type, table: TableSchema, sql: SQL) throws -> M? {
        try withStatement(sql) { statement in
            guard try statement.step() else { return nil }
            return try decodeFirstRow(M.self, of: statement, table: table)
        }
    }

    /// Decodes the statement's current row, the only one wanted.
    private func decodeFirstRow<M: Model>(_ type: M.Type, of statement: Statement, table: TableSchema) throws
        -> M
    {
        // No session: its cache of the keyed container only pays from the second row on.
        try RowDecodingContext(
            source: statement, decoder: table.rowDecoder(dateStorage: configuration.dateStorage), type: M.self
        )
        .decodeRow(M.self, session: nil)
    }

    /// Writes SQLite's new rowid into a model's automatic key, when the key is still nil.
    func assignRowID<M: Model>(to model: inout M, table: TableSchema) {
        table.assign(rowID: lastInsertRowID, to: &model)
    }
}

extension Connection {
    /// Whether the main schema has a table or view of this name (SQLite names ignore case).
    func tableExists(_ name: String) throws -> Bool {
        let sql: SQL =
            "SELECT 1 FROM sqlite_master WHERE type IN ('table', 'view') AND name = \(name) COLLATE NOCASE"
        return try fetchOne(Int.self, sql: sql) != nil
    }
}
