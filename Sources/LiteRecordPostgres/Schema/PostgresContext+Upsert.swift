import LiteRecord

// Upserts on PostgreSQL: `INSERT ... ON CONFLICT (target) DO UPDATE SET ... / DO NOTHING`, as on
// SQLite, with `RETURNING` the key PostgreSQL generated or met. A primary key another tool may
// have stored in another form is found by value first, as `save` finds it.

extension PostgresContext {
    /// Inserts the model, or, when a row with the same values in `onConflict` exists, updates
    /// that row's `update` columns (every other column when `nil`); as on SQLite.
    ///
    /// - Parameters:
    ///   - model: The model; its generated key is set to the stored row's key.
    ///   - onConflict: The columns that identify the row (the primary key when empty); a unique
    ///     constraint must cover exactly them.
    ///   - update: The columns to update on a conflict; `nil` for every column but the key and
    ///     the conflict columns.
    /// - Throws: ``LiteRecord/SchemaError`` before anything is written for a key path that is
    ///   not a column, an update of a key column, or a conflict target no unique constraint
    ///   covers; ``LiteRecord/DatabaseError`` for another constraint violation.
    public func upsert<M: Model>(
        _ model: inout M, onConflict: [PartialKeyPath<M>] = [], update: [PartialKeyPath<M>]? = nil
    ) throws {
        try upsert(&model, plan: UpsertPlan(M.self, conflict: onConflict, update: update, ignoring: false))
    }

    /// Inserts the model unless a row with the same values in `onConflict` exists; as on SQLite.
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
        let byStoredKey = try withSession { session in
            let table = try session.preparedTable(for: M.self)
            return plan.isPrimaryKey && (table.hasUUIDKey || table.hasValueFormKey)
                && !table.hasNoGeneratedKey(model)
        }
        if byStoredKey, let wrote = try updateByStoredKey(model, plan: plan) { return wrote }
        return try withSession { session in
            let table = try session.preparedTable(for: M.self)
            return try session.runUpsert(&model, table: table, plan: plan)
        }
    }

    /// The update of an upsert whose key another tool may have stored in another form: `nil`
    /// when no row has the key in any form (then it is inserted).
    private func updateByStoredKey<M: Model>(_ model: M, plan: UpsertPlan) throws -> Bool? {
        let names: [String]? = try withSession { session in
            let table = try session.preparedTable(for: M.self)
            let row = try table.encode(model, dateStorage: session.dateStorage)
            return plan.updateColumns(of: row.columns, primaryKey: table.primaryKey)
        }
        guard let names, !names.isEmpty else {
            let exists = try withSession { session in
                let table = try session.preparedTable(for: M.self)
                let key = try session.keyValues(
                    try table.encode(model, dateStorage: session.dateStorage), table: table)
                return try session.byStoredKey(key, table: table, found: { $0 }) { condition in
                    try !session.execute("SELECT 1 FROM \(identifier: table.name) WHERE \(condition)").rows
                        .isEmpty
                }
            }
            return exists ? false : nil
        }
        do {
            try update(model, columnNames: names)
            return true
        } catch let error as PersistenceError where error.isRowNotFound {
            return nil
        }
    }
}

extension PostgresSession {
    /// The statement of an upsert; sets the model's generated key to the stored row's.
    func runUpsert<M: Model>(_ model: inout M, table: BackendTable, plan: UpsertPlan) throws -> Bool {
        let row = try table.encode(model, dateStorage: dateStorage)
        let generates = table.hasNoGeneratedKey(model)
        let (columns, values) = table.insertedValues(of: row, generates: generates)
        let updates = plan.updateColumns(of: columns, primaryKey: table.primaryKey)
        var sql: SQL = "INSERT INTO \(identifier: table.name) "
        sql.append(
            SQL(verbatim: "(" + columns.map(SQL.quoteIdentifier).joined(separator: ", ") + ") VALUES "))
        sql.append("\(list: values)")
        sql.append(
            SQL(
                verbatim: " ON CONFLICT ("
                    + plan.conflictColumns.map(SQL.quoteIdentifier).joined(separator: ", ")
                    + ") DO "
                    + (updates.isEmpty
                        ? "NOTHING"
                        : "UPDATE SET "
                            + updates.map {
                                "\(SQL.quoteIdentifier($0)) = EXCLUDED.\(SQL.quoteIdentifier($0))"
                            }
                            .joined(separator: ", "))))
        let returnsKey = generates ? table.automaticKeyColumn : nil
        if let returnsKey { sql.append(" RETURNING \(identifier: returnsKey)") }
        let result: PostgresResult
        do {
            result = try execute(sql)
        } catch let error as DatabaseError where error.sqlState == "42P10" {
            throw plan.noUniqueConstraint(table: table.name, backendName: "PostgreSQL")
        }
        let wrote = result.changes > 0
        if let returnsKey {
            if wrote {
                table.assignGeneratedKey(try generatedKey(of: result, sql: sql), to: &model)
            } else if let key = try storedKey(
                column: returnsKey, table: table, plan: plan, columns: columns, values: values)
            {
                table.assignGeneratedKey(key, to: &model)
            }
        } else if wrote {
            try moveIdentityPastChosenKeys(table: table)
        }
        return wrote
    }

    /// The key of the row an ignored insert met, found by its conflict values.
    private func storedKey(
        column: String, table: BackendTable, plan: UpsertPlan, columns: [String], values: [DatabaseValue]
    ) throws -> Int64? {
        var condition: SQL = ""
        for (index, conflict) in plan.conflictColumns.enumerated() {
            guard let position = columns.firstIndex(of: conflict), !values[position].isNull else {
                return nil
            }
            condition.append(index == 0 ? "" : " AND ")
            condition.append("\(identifier: conflict) = \(values[position])")
        }
        let result = try execute(
            "SELECT \(identifier: column) FROM \(identifier: table.name) WHERE \(condition)")
        guard case .integer(let key)? = result.rows.first?.first else { return nil }
        return key
    }
}
