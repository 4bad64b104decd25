import LiteRecord

extension PostgresSession {
    /// Inserts (or upserts) a row; returns the generated key when the model's was nil.
    func insertRow<M: Model>(_ model: M, table: BackendTable, upsert: Bool) throws -> Int64? {
        let (sql, generates) = try insertStatement(model, table: table, upsert: upsert)
        if generates {
            return try generatedKey(of: try execute(sql), sql: sql)
        }
        try execute(sql)
        try moveIdentityPastChosenKeys(table: table)
        return nil
    }

    /// After rows with keys the caller chose: moves the identity past them, so that later
    /// generated keys do not collide with them (SQLite's rowid does this by itself).
    ///
    /// Only ever forward: the largest key this transaction sees is compared with the sequence's
    /// last value, which counts keys handed to every other transaction, open or not, that this
    /// one's snapshot misses. Setting the sequence to the visible largest key, as before, moved
    /// it back below keys handed out meanwhile, and later plain inserts failed with 23505. A
    /// chosen key below the sequence's last value changes nothing.
    func moveIdentityPastChosenKeys(table: BackendTable) throws {
        guard let key = table.automaticKeyColumn else { return }
        try execute(
            """
            SELECT setval(sequence, chosen) FROM (
                SELECT sequence, (SELECT max(\(identifier: key)) FROM \(identifier: table.name)) AS chosen
                FROM pg_get_serial_sequence(\(SQL.quoteIdentifier(table.name)), \(key)) AS sequence
            ) AS s
            WHERE chosen > coalesce(pg_sequence_last_value(sequence::regclass), 0)
            """)
    }

    /// The key an `INSERT ... RETURNING` returned.
    func generatedKey(of result: PostgresResult, sql: SQL) throws -> Int64 {
        guard case .integer(let generated)? = result.rows.first?.first else {
            throw DatabaseError(
                backendName: "PostgreSQL",
                resultCode: .error, message: "PostgreSQL returned no generated key", sql: sql.text)
        }
        return generated
    }

    /// Inserts models for `insert(contentsOf:)`; the caller runs it in a transaction or
    /// savepoint. A batch goes by `COPY` when it can (``copyInsertRows(_:table:)``). Otherwise
    /// models whose keys PostgreSQL generates have their statements sent in pipelines
    /// (``PostgresConnection/executePipelined(_:)``) rather than one round trip each, and models
    /// with a key of their own (or none to generate) are inserted one by one, as
    /// ``insertRow(_:table:upsert:)`` does.
    ///
    /// - Returns: The models, their keys set.
    func insertRows<M: Model>(_ models: [M], table: BackendTable) throws -> [M] {
        if let copied = try copyInsertRows(models, table: table) { return copied }
        guard table.automaticKeyColumn != nil, models.allSatisfy({ table.hasNoGeneratedKey($0) }) else {
            return try models.map { model in
                var copy = model
                if let generated = try insertRow(model, table: table, upsert: false) {
                    table.assignGeneratedKey(generated, to: &copy)
                }
                return copy
            }
        }
        let statements = try models.map { try insertStatement($0, table: table, upsert: false).sql }
        if let tracker = CancellationTracker.current, tracker.isCancelledNow {
            throw DatabaseError(
                backendName: "PostgreSQL",
                resultCode: .interrupt, message: "the task was cancelled before the statement started",
                sql: statements.first?.text)
        }
        let results: [PostgresResult]
        do {
            results = try connection.executePipelined(statements)
        } catch {
            noteRetryableFailure(error)
            throw error
        }
        var inserted = models
        for index in inserted.indices {
            table.assignGeneratedKey(
                try generatedKey(of: results[index], sql: statements[index]), to: &inserted[index])
        }
        return inserted
    }

    /// The `INSERT` of a model, and whether it returns the key PostgreSQL generated.
    func insertStatement<M: Model>(_ model: M, table: BackendTable, upsert: Bool) throws -> (
        sql: SQL, generates: Bool
    ) {
        let row = try table.encode(model, dateStorage: dateStorage)
        let generates = table.hasNoGeneratedKey(model)
        let (columns, values) = table.insertedValues(of: row, generates: generates)
        let returnsKey = generates && table.automaticKeyColumn != nil
        // The text depends only on the model type, the columns and the kind of insert: built
        // once, since quoting every name at every insert was a good part of its client time.
        let shape = PostgresInsertShape(model: ObjectIdentifier(M.self), upsert: upsert, generates: generates)
        if let cached = database.insertTexts.withLock({ $0[shape] }), cached.columns == columns {
            return (SQL(verbatim: cached.text, arguments: StatementArguments(positional: values)), returnsKey)
        }
        let sql = try insertSQL(
            table: table, columns: columns, values: values, upsert: upsert, generates: generates)
        database.insertTexts.withLock { $0[shape] = (columns, sql.text) }
        return (sql, returnsKey)
    }

    private func insertSQL(
        table: BackendTable, columns: [String], values: [DatabaseValue], upsert: Bool, generates: Bool
    ) throws -> SQL {
        var sql: SQL = "INSERT INTO \(identifier: table.name) "
        if columns.isEmpty {
            sql.append("DEFAULT VALUES")
        } else {
            sql.append(
                SQL(verbatim: "(" + columns.map(SQL.quoteIdentifier).joined(separator: ", ") + ") VALUES "))
            sql.append("\(list: values)")
        }
        if upsert, !table.primaryKey.isEmpty {
            let target = table.primaryKey.map(SQL.quoteIdentifier).joined(separator: ", ")
            let updates = columns.filter { !table.primaryKey.contains($0) }.map {
                "\(SQL.quoteIdentifier($0)) = EXCLUDED.\(SQL.quoteIdentifier($0))"
            }
            sql.append(
                SQL(
                    verbatim: " ON CONFLICT (\(target)) DO "
                        + (updates.isEmpty ? "NOTHING" : "UPDATE SET " + updates.joined(separator: ", "))))
        }
        if generates, let key = table.automaticKeyColumn {
            sql.append(" RETURNING \(identifier: key)")
        }
        return sql
    }
}

/// What an `INSERT`'s text depends on besides its columns (``PostgresDatabase/insertTexts``).
struct PostgresInsertShape: Hashable {
    let model: ObjectIdentifier
    let upsert: Bool
    let generates: Bool
}

extension BackendTable {
    /// The columns and values an `INSERT` writes: all of the row's, but the automatic key when
    /// the database is to generate it.
    func insertedValues(of row: EncodedRow, generates: Bool) -> (columns: [String], values: [DatabaseValue]) {
        var columns: [String] = []
        var values: [DatabaseValue] = []
        for (column, value) in zip(row.columns, row.values) where !(generates && column == automaticKeyColumn)
        {
            columns.append(column)
            values.append(value)
        }
        return (columns, values)
    }
}
