// Upserts on SQLite: `INSERT ... ON CONFLICT (target) DO UPDATE SET ... / DO NOTHING`, one
// statement, so that concurrent writers of one email never fail with a duplicate. A primary key
// that another tool may have stored in another form (a UUID in lower case, a date as text) is
// looked up by value first, as `save` does: such a row does not conflict with LiteRecord's form.

extension DatabaseContext {
    /// Inserts the model, or, when a row with the same values in `onConflict` exists, updates
    /// that row's `update` columns (every other column when `nil`).
    ///
    /// ```swift
    /// try db.upsert(&user, onConflict: [\.email], update: [\.name])   // a re-import keyed on email
    /// ```
    ///
    /// One statement: concurrent upserts of one email never fail with a duplicate. The model's
    /// `Int64?`/`Int?` key is set to the stored row's key, inserted or updated.
    ///
    /// - Parameters:
    ///   - model: The model; its generated key is set on return.
    ///   - onConflict: The columns that identify the row (the primary key when empty); a unique
    ///     constraint must cover exactly them.
    ///   - update: The columns to update on a conflict; `nil` for every column but the key and
    ///     the conflict columns.
    /// - Throws: ``SchemaError`` before anything is written for a key path that is not a column,
    ///   an update of a key column, or a conflict target no unique constraint covers;
    ///   ``DatabaseError`` for another constraint violation.
    public func upsert<M: Model>(
        _ model: inout M, onConflict: [PartialKeyPath<M>] = [], update: [PartialKeyPath<M>]? = nil
    ) throws {
        try upsert(&model, plan: UpsertPlan(M.self, conflict: onConflict, update: update, ignoring: false))
    }

    /// Inserts the model unless a row with the same values in `onConflict` exists.
    ///
    /// ```swift
    /// let isNew = try db.insertOrIgnore(&user, onConflict: [\.email])
    /// ```
    ///
    /// - Parameters:
    ///   - model: The model; its generated key is set to the stored row's key, inserted or not.
    ///   - onConflict: The columns that identify the row (the primary key when empty).
    /// - Returns: Whether it inserted the model.
    /// - Throws: As ``upsert(_:onConflict:update:)``.
    @discardableResult
    public func insertOrIgnore<M: Model>(_ model: inout M, onConflict: [PartialKeyPath<M>] = []) throws
        -> Bool
    {
        try upsert(&model, plan: UpsertPlan(M.self, conflict: onConflict, update: nil, ignoring: true))
    }

    /// Runs an upsert; returns whether it wrote (inserted, or updated a row).
    func upsert<M: Model>(_ model: inout M, plan: UpsertPlan) throws -> Bool {
        let (wrote, written) = try savepoint { tx -> (Bool, M) in
            var copy = model
            let table = try tx.table(for: M.self)
            if plan.isPrimaryKey, table.statements.hasUUIDKey || table.hasValueFormKey,
                !table.hasNilAutomaticKey(copy)
            {
                return (try tx.upsertByStoredKey(copy, table: table, plan: plan), copy)
            }
            let wrote = try tx.runUpsert(&copy, table: table, plan: plan)
            return (wrote, copy)
        }
        model = written
        return wrote
    }
}

extension Connection {
    /// The statement of an upsert, and the model's key read back when the database chose it.
    func runUpsert<M: Model>(_ model: inout M, table: TableSchema, plan: UpsertPlan) throws -> Bool {
        let encoded = try encodeModel(model, table: table)
        let generates = table.hasNilAutomaticKey(model)
        if !generates { try checkPrimaryKey(of: encoded, table: table) }
        let automaticKey = table.rowIDKey.flatMap { $0.isAutomatic ? $0.column : nil }
        var columns: [String] = []
        var values: [DatabaseValue] = []
        for (column, value) in zip(encoded.row.columns, encoded.row.values)
        where !(generates && column == automaticKey) {
            columns.append(column)
            values.append(value)
        }
        let updates = plan.updateColumns(of: columns, primaryKey: table.primaryKey)
        let quotedTable = SQL.quoteIdentifier(table.tableName)
        var text =
            "INSERT INTO \(quotedTable) (\(columns.map(SQL.quoteIdentifier).joined(separator: ", "))) VALUES ("
            + Array(repeating: "?", count: columns.count).joined(separator: ", ") + ") ON CONFLICT("
            + plan.conflictColumns.map(SQL.quoteIdentifier).joined(separator: ", ") + ") DO "
        text +=
            updates.isEmpty
            ? "NOTHING"
            : "UPDATE SET "
                + updates.map { "\(SQL.quoteIdentifier($0)) = excluded.\(SQL.quoteIdentifier($0))" }
                .joined(separator: ", ")
        do {
            try execute(SQL(text, arguments: StatementArguments(positional: values)))
        } catch let error as DatabaseError
            where error.message.contains("does not match any PRIMARY KEY or UNIQUE constraint")
        {
            throw plan.noUniqueConstraint(table: table.tableName, backendName: nil)
        }
        let wrote = changes > 0
        if generates, let automaticKey {
            try assignStoredKey(
                to: &model, table: table, keyColumn: automaticKey, plan: plan, columns: columns,
                values: values,
                inserted: wrote)
        }
        return wrote
    }

    /// Sets the model's generated key to the key of the row the upsert wrote or met: the
    /// inserted row's rowid, or the stored row found by its conflict values.
    private func assignStoredKey<M: Model>(
        to model: inout M, table: TableSchema, keyColumn: String, plan: UpsertPlan, columns: [String],
        values: [DatabaseValue], inserted: Bool
    ) throws {
        var conditions: [String] = []
        var arguments: [DatabaseValue] = []
        for column in plan.conflictColumns {
            guard let index = columns.firstIndex(of: column), values[index] != .null else {
                // A NULL in the target conflicts with nothing: the row was inserted.
                if inserted { assignRowID(to: &model, table: table) }
                return
            }
            conditions.append("\(SQL.quoteIdentifier(column)) = ?")
            arguments.append(values[index])
        }
        let sql =
            "SELECT \(SQL.quoteIdentifier(keyColumn)) FROM \(SQL.quoteIdentifier(table.tableName)) WHERE "
            + conditions.joined(separator: " AND ")
        if let key = try fetchOne(
            Int64.self, sql: SQL(sql, arguments: StatementArguments(positional: arguments)))
        {
            table.assign(rowID: key, to: &model)
        }
    }

    /// An upsert on a primary key that another tool may have stored in another form: the row is
    /// found by value (as `save` finds it), else inserted.
    func upsertByStoredKey<M: Model>(_ model: M, table: TableSchema, plan: UpsertPlan) throws -> Bool {
        let row = try encodeRow(model, table: table)
        let key = try keyValues(of: row, table: table)
        if try rowExists(table: table, key: key) {
            let updates = plan.updateColumns(of: row.columns, primaryKey: table.primaryKey)
            guard !updates.isEmpty else { return false }
            try update(model, columnNames: updates, table: table)
            return true
        }
        var copy = model
        return try runUpsert(&copy, table: table, plan: plan)
    }
}
