// The row as stored: what a write returns when the database may have filled in more than the
// model said — column defaults, generated columns, what a trigger set. SQLite's RETURNING reports
// the row before AFTER triggers run (an `AFTER INSERT` trigger's update is missing from it, on
// 3.40), so the row is read back by its key (or by its conflict columns) in the write's own
// transaction: always the row as the next read will see it.

extension DatabaseContext {
    /// Inserts the model and returns the row as the database stored it: defaults, generated
    /// columns and values a trigger set included.
    ///
    /// - Parameter model: The model.
    /// - Returns: The stored row, with its generated key.
    /// - Throws: As ``insert(_:)-1i17o``; ``PersistenceError`` for a model without a primary key.
    public func insertAndFetch<M: Model>(_ model: M) throws -> M {
        try savepoint { tx in
            var copy = model
            try tx.insert(&copy)
            return try tx.storedModel(copy, table: tx.table(for: M.self))
        }
    }

    /// Updates the row with the model's key and returns it as the database stored it.
    ///
    /// - Parameter model: The model.
    /// - Returns: The stored row.
    /// - Throws: As ``update(_:)``.
    public func updateAndFetch<M: Model>(_ model: M) throws -> M {
        try savepoint { tx in
            try tx.update(model)
            return try tx.storedModel(model, table: tx.table(for: M.self))
        }
    }

    /// Inserts the model or updates the row it conflicts with, as
    /// ``upsert(_:onConflict:update:)`` does, and returns the row as the database stored it.
    ///
    /// - Parameters:
    ///   - model: The model.
    ///   - onConflict: The columns that identify the row (the primary key when empty).
    ///   - update: The columns to update on a conflict; `nil` for all but the key.
    /// - Returns: The stored row: on a conflict, the row met, with the columns not updated as
    ///   they were.
    /// - Throws: As ``upsert(_:onConflict:update:)``.
    public func upsertAndFetch<M: Model>(
        _ model: M, onConflict: [PartialKeyPath<M>] = [], update: [PartialKeyPath<M>]? = nil
    ) throws -> M {
        let plan = try UpsertPlan(M.self, conflict: onConflict, update: update, ignoring: false)
        return try savepoint { tx in
            var copy = model
            _ = try tx.upsert(&copy, plan: plan)
            return try tx.storedModel(
                copy, table: tx.table(for: M.self), byColumns: plan.isPrimaryKey ? nil : plan.conflictColumns)
        }
    }
}

extension Connection {
    /// The row of a model just written, read back by its key, or by `byColumns` (the conflict
    /// columns of an upsert, whose row may have another key than the model's).
    ///
    /// - Throws: ``PersistenceError`` when the model has no key or the row is not there.
    func storedModel<M: Model>(_ model: M, table: TableSchema, byColumns columns: [String]? = nil) throws -> M
    {
        let row = try encodeRow(model, table: table)
        let found: M?
        if let columns {
            let condition = columns.map { "\(SQL.quoteIdentifier($0)) = ?" }.joined(separator: " AND ")
            let sql = SQL(
                "\(table.statements.selectAll) WHERE \(condition) LIMIT 1",
                arguments: StatementArguments(positional: columns.map { row[$0] ?? .null }))
            var first: M?
            try forEachModel(M.self, table: table, sql: sql) { first = $0 }
            found = first
        } else {
            found = try findModel(M.self, table: table, key: keyValues(of: row, table: table))
        }
        guard let found else {
            throw PersistenceError(
                "the row of \(table.typeName) just written was not found to read back", table: table.tableName
            )
        }
        return found
    }
}
