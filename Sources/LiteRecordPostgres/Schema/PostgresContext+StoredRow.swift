import LiteRecord

// The row as stored, on PostgreSQL: read back in the write's own transaction, by key or by the
// upsert's conflict columns, as on SQLite (see DatabaseContext+StoredRow): what defaults,
// generated columns and triggers (BEFORE and AFTER) made of it.

extension PostgresDatabase {
    /// Inserts the model and returns the row as the database stored it; as on SQLite.
    ///
    /// - Parameter model: The model.
    /// - Returns: The stored row, with its generated key.
    /// - Throws: As ``insert(_:)-8ikok``; ``LiteRecord/PersistenceError`` for a model without a
    ///   primary key.
    public func insertAndFetch<M: Model>(_ model: M) throws -> M {
        try transaction { tx in try tx.insertReadingBack(model) }
    }

    /// Updates the row with the model's key and returns it as the database stored it.
    ///
    /// - Parameter model: The model.
    /// - Returns: The stored row.
    /// - Throws: As ``update(_:)``.
    public func updateAndFetch<M: Model>(_ model: M) throws -> M {
        try transaction { tx in try tx.updateReadingBack(model) }
    }

    /// Upserts the model and returns the row as the database stored it; as on SQLite.
    ///
    /// - Parameters:
    ///   - model: The model.
    ///   - onConflict: The columns that identify the row (the primary key when empty).
    ///   - update: The columns to update on a conflict; `nil` for all but the key.
    /// - Returns: The stored row.
    /// - Throws: As ``upsert(_:onConflict:update:)``.
    public func upsertAndFetch<M: Model>(
        _ model: M, onConflict: [PartialKeyPath<M>] = [], update: [PartialKeyPath<M>]? = nil
    ) throws -> M {
        let plan = try UpsertPlan(M.self, conflict: onConflict, update: update, ignoring: false)
        return try transaction { tx in try tx.upsertReadingBack(model, plan: plan) }
    }
}

extension PostgresTransaction {
    /// Inserts the model and returns the row as the database stored it, in a savepoint of this
    /// transaction.
    ///
    /// - Parameter model: The model.
    /// - Returns: The stored row.
    /// - Throws: As ``PostgresDatabase/insertAndFetch(_:)``.
    public func insertAndFetch<M: Model>(_ model: M) throws -> M {
        try savepoint(nil) { tx in try tx.insertReadingBack(model) }
    }

    /// Updates the model's row and returns it as the database stored it, in a savepoint.
    ///
    /// - Parameter model: The model.
    /// - Returns: The stored row.
    /// - Throws: As ``PostgresDatabase/updateAndFetch(_:)``.
    public func updateAndFetch<M: Model>(_ model: M) throws -> M {
        try savepoint(nil) { tx in try tx.updateReadingBack(model) }
    }

    /// Upserts the model and returns the row as the database stored it, in a savepoint.
    ///
    /// - Parameters:
    ///   - model: The model.
    ///   - onConflict: The columns that identify the row (the primary key when empty).
    ///   - update: The columns to update on a conflict; `nil` for all but the key.
    /// - Returns: The stored row.
    /// - Throws: As ``PostgresDatabase/upsertAndFetch(_:onConflict:update:)``.
    public func upsertAndFetch<M: Model>(
        _ model: M, onConflict: [PartialKeyPath<M>] = [], update: [PartialKeyPath<M>]? = nil
    ) throws -> M {
        let plan = try UpsertPlan(M.self, conflict: onConflict, update: update, ignoring: false)
        return try savepoint(nil) { tx in try tx.upsertReadingBack(model, plan: plan) }
    }

    fileprivate func insertReadingBack<M: Model>(_ model: M) throws -> M {
        var copy = model
        try insert(&copy)
        return try storedModel(copy, byColumns: nil)
    }

    fileprivate func updateReadingBack<M: Model>(_ model: M) throws -> M {
        try update(model)
        return try storedModel(model, byColumns: nil)
    }

    fileprivate func upsertReadingBack<M: Model>(_ model: M, plan: UpsertPlan) throws -> M {
        var copy = model
        _ = try upsert(&copy, plan: plan)
        return try storedModel(copy, byColumns: plan.isPrimaryKey ? nil : plan.conflictColumns)
    }

    /// The row of a model just written, read back by its key or by `columns`.
    ///
    /// - Throws: ``LiteRecord/PersistenceError`` when the model has no key or the row is not there.
    private func storedModel<M: Model>(_ model: M, byColumns columns: [String]?) throws -> M {
        let (found, tableName): (M?, String) = try withSession { session in
            let table = try session.preparedTable(for: M.self)
            let row = try table.encode(model, dateStorage: session.dateStorage)
            guard let columns else {
                let key = try session.keyValues(row, table: table)
                return (try find(M.self, key: key), table.name)
            }
            var condition: SQL = ""
            for (index, column) in columns.enumerated() {
                condition.append(index == 0 ? "" : " AND ")
                condition.append("\(identifier: column) = \(row[column] ?? .null)")
            }
            let stored = try session.execute(
                "SELECT \(SQL(table.selection)) FROM \(identifier: table.name) WHERE \(condition) LIMIT 1"
            ).lrRows.first
            return (
                try stored.map { try table.decode(M.self, from: $0, dateStorage: session.dateStorage) },
                table.name
            )
        }
        guard let found else {
            throw PersistenceError(
                "the row of \(M.self) just written was not found to read back", table: tableName)
        }
        return found
    }
}
