// An upsert names the columns that identify its row (the conflict target) and what to do when a
// row with those values exists: update some or all of its other columns, or nothing. The key
// paths are resolved here, once for every backend, so that SQLite and PostgreSQL refuse the same
// mistakes with the same words before anything is written.

/// What an upsert writes when its row conflicts with one already stored.
package struct UpsertPlan: Sendable {
    /// What happens to a stored row with the same values in ``conflictColumns``.
    package enum Action: Sendable, Equatable {
        /// Keep the stored row (`insertOrIgnore`).
        case nothing
        /// Set these columns to the model's values; `nil`: every column but the key and the
        /// conflict columns.
        case update([String]?)
    }

    /// The model's type name, for messages.
    package let typeName: String
    /// The columns whose values identify the row: the primary key unless the caller named others.
    package let conflictColumns: [String]
    /// Whether the conflict columns are the primary key.
    package let isPrimaryKey: Bool
    package let action: Action

    /// Resolves the caller's key paths against the model's schema.
    ///
    /// - Throws: ``SchemaError`` for a key path that is not a column, one inside a property, an
    ///   update of a key column, or no conflict column at all (no primary key, none named).
    package init<M: Model>(
        _ type: M.Type, conflict: [PartialKeyPath<M>], update: [PartialKeyPath<M>]?, ignoring: Bool
    ) throws {
        let schema = try TableSchemaCache.schema(for: M.self)
        typeName = schema.typeName
        var columns: [String] = []
        for reference in conflict.map(PropertyReference.init) {
            guard let path = reference.path, path.names.count == 1 else {
                throw SchemaError(
                    "\(reference.keyPathDescription) is not a stored property of \(schema.typeName), so it cannot "
                        + "name a conflict column: name the whole property (a column with a unique constraint)"
                )
            }
            let column = try schema.column(for: path, keyPathDescription: reference.keyPathDescription).name
            if !columns.contains(column) { columns.append(column) }
        }
        if columns.isEmpty { columns = schema.primaryKey }
        guard !columns.isEmpty else {
            throw SchemaError(
                "\(schema.typeName) has no primary key, so an upsert must name the columns that identify its row "
                    + "(onConflict: [\\.email]), which need a unique constraint (Schema(unique:))")
        }
        conflictColumns = columns
        isPrimaryKey = Set(columns) == Set(schema.primaryKey)
        if ignoring || update?.isEmpty == true {
            // `update: []` updates nothing: the stored row is kept, as by insertOrIgnore.
            action = .nothing
        } else if let update {
            action = .update(try schema.partialUpdateColumns(update.map(PropertyReference.init)))
        } else {
            action = .update(nil)
        }
    }

    /// The columns `DO UPDATE SET` writes, among those the row has: none for ``Action/nothing``.
    ///
    /// - Parameters:
    ///   - rowColumns: The columns the insert writes.
    ///   - primaryKey: The table's key columns, which an update never writes.
    package func updateColumns(of rowColumns: [String], primaryKey: [String]) -> [String] {
        switch action {
        case .nothing:
            return []
        case .update(let named?):
            return named.filter(rowColumns.contains)
        case .update(nil):
            return rowColumns.filter { !primaryKey.contains($0) && !conflictColumns.contains($0) }
        }
    }

    /// The error of a conflict target no unique constraint covers, in the database's words
    /// turned into what to do.
    ///
    /// - Parameter table: The table's name.
    package func noUniqueConstraint(table: String, backendName: String?) -> SchemaError {
        SchemaError(
            "the upsert of \(typeName) names (\(conflictColumns.joined(separator: ", "))) as the columns that "
                + "identify its row, but no unique constraint of \(table) covers exactly them, so \(backendName ?? "SQLite") "
                + "cannot tell a conflict; declare one (Schema(unique: [...]) or a unique index); nothing was written"
        )
    }
}
