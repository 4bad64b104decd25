import LiteRecord

// Composite keys and partial updates, as on SQLite (`DatabaseContext+Models.swift`,
// `DatabaseContext+ModelReads.swift`, `DatabaseContext+PartialUpdate.swift`).

extension PostgresContext {
    /// Finds the model with a composite primary key, or `nil`.
    ///
    /// - Parameters:
    ///   - type: The model type.
    ///   - key: The key values, in the order of the schema's `primaryKey`.
    /// - Returns: The model, or `nil` when no row has the key.
    /// - Throws: ``LiteRecord/PersistenceError`` when the model has no primary key or the number
    ///   of values differs from the key's columns; ``LiteRecord/RowDecodingError`` for a row that
    ///   does not decode.
    public func find<M: Model>(_ type: M.Type, key: [any DatabaseValueConvertible]) throws -> M? {
        let values = try BackendTable.keyValues(of: M.self, key)
        return try withReadingSession { session in
            guard let table = try session.readableTable(for: M.self) else { return nil }
            let row = try session.byStoredKey(values, table: table, found: { $0 != nil }) { condition in
                try session.execute(
                    "SELECT \(SQL(table.selection)) FROM \(identifier: table.name) WHERE \(condition) LIMIT 1"
                ).lrRows.first
            }
            guard let row else { return nil }
            return try table.decode(M.self, from: row, dateStorage: session.dateStorage)
        }
    }

    /// Deletes the row with a composite primary key.
    ///
    /// - Parameters:
    ///   - type: The model type.
    ///   - key: The key values, in the order of the schema's `primaryKey`.
    /// - Returns: Whether a row was deleted.
    /// - Throws: ``LiteRecord/PersistenceError`` when the model has no primary key or the number
    ///   of values differs from the key's columns (nothing is deleted);
    ///   ``LiteRecord/DatabaseError`` (a foreign key that restricts the delete).
    @discardableResult
    public func delete<M: Model>(_ type: M.Type, key: [any DatabaseValueConvertible]) throws -> Bool {
        let values = try BackendTable.keyValues(of: M.self, key)
        return try withSession { session in
            let table = try session.preparedTable(for: M.self)
            return try session.byStoredKey(values, table: table, found: { $0 }) { condition in
                try session.execute("DELETE FROM \(identifier: table.name) WHERE \(condition)").changes > 0
            }
        }
    }

    /// Updates only some columns of the row with the model's primary key, to the model's
    /// values; the other columns keep what the row holds, even when another writer changed them
    /// since the model was read.
    ///
    /// ```swift
    /// player.score += 10
    /// try pg.update(player, columns: [\.score])   // UPDATE "players" SET "score" = $1 WHERE "id" = $2
    /// ```
    ///
    /// - Parameters:
    ///   - model: The model; its primary key chooses the row.
    ///   - columns: Key paths of the stored properties to write, each a column of the model
    ///     (not its primary key, not a path inside a property such as `\.stats.wins`).
    /// - Throws: ``LiteRecord/SchemaError`` for an empty list, a key path that is not a column,
    ///   or a primary key column (nothing is written then); ``LiteRecord/PersistenceError`` with
    ///   ``LiteRecord/PersistenceError/isRowNotFound`` when no row has the key;
    ///   ``LiteRecord/DatabaseError`` for constraint violations.
    public func update<M: Model>(_ model: M, columns: [PartialKeyPath<M>]) throws {
        try update(model, columnNames: BackendTable.partialUpdateColumns(of: M.self, columns))
    }

    /// ``update(_:columns:)`` with the columns already resolved and checked (key paths are not
    /// `Sendable`).
    /// Updates the given columns of the model's row (all but the key when `nil`); what
    /// ``PostgresContext/update(_:)`` and ``update(_:columns:)`` both run.
    func update<M: Model>(_ model: M, columnNames names: [String]?) throws {
        try withSession { session in
            let table = try session.preparedTable(for: M.self)
            let row = try table.encode(model, dateStorage: session.dateStorage)
            let key = try session.keyValues(row, table: table)
            guard
                let update = try session.database.updateText(of: M.self, table: table, row: row, names: names)
            else {
                // Every column is part of the key: there is nothing to change, only to check.
                let found = try session.byStoredKey(key, table: table, found: { $0 }) { condition in
                    try !session.execute("SELECT 1 FROM \(identifier: table.name) WHERE \(condition)").rows
                        .isEmpty
                }
                if !found { throw PersistenceError.notFound(row, table: table) }
                return
            }
            // The key as LiteRecord writes it, then as the table stores it (``byStoredKey``):
            // the condition's text is the same for both, only its values differ.
            func run(_ key: [DatabaseValue]) throws -> Bool {
                let arguments = StatementArguments(positional: update.arguments(row, key: key, table: table))
                return try session.execute(SQL(verbatim: update.text, arguments: arguments)).changes > 0
            }
            var changed = try run(key)
            if !changed, let stored = try session.storedKey(matching: key, table: table) {
                changed = try run(stored)
            }
            if !changed { throw PersistenceError.notFound(row, table: table) }
        }
    }
}
