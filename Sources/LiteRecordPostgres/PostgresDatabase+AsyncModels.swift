import LiteRecord

// Models off the calling task, as on SQLite (`Database+Async.swift`): each call runs the
// synchronous form on a pooled connection, on a thread of its own (see `runCancellable`), and
// cancelling the task cancels the statement on the server, which then throws `DatabaseError`
// with `ResultCode.interrupt`; a write is rolled back, so nothing of it is stored.

// MARK: - Writing models

extension PostgresDatabase {
    /// Inserts a model off the calling task and, when its primary key is a generated one still
    /// `nil`, sets it to the key PostgreSQL generated.
    ///
    /// - Parameter model: The model; its key is set on return (it is left unchanged when the
    ///   call throws).
    /// - Throws: As ``PostgresContext/insert(_:)-8ikok``; ``LiteRecord/ResultCode/interrupt``
    ///   when cancelled (nothing is written then).
    public func insert<M: Model>(_ model: inout M) async throws {
        model = try await writing(changing: model) { try $0.insert(&$1) }
    }

    /// Inserts a model whose key the caller chose, off the calling task.
    ///
    /// - Parameter model: The model.
    /// - Throws: As ``PostgresContext/insert(_:)-8ikok``; ``LiteRecord/ResultCode/interrupt``
    ///   when cancelled.
    public func insert<M: Model>(_ model: M) async throws {
        try await runCancellable { try $0.insert(model) }
    }

    /// Inserts models in one transaction, off the calling task: all of them, or none.
    ///
    /// - Parameter models: The models.
    /// - Returns: The models as inserted, with their generated keys set.
    /// - Throws: As the synchronous `insert(contentsOf:)`; ``LiteRecord/ResultCode/interrupt``
    ///   when cancelled (the transaction is rolled back).
    @discardableResult
    public func insert<M: Model>(contentsOf models: [M]) async throws -> [M] {
        try await runCancellable { try $0.insert(contentsOf: models) }
    }

    /// Updates the row with the model's primary key to the model's values, off the calling task.
    ///
    /// - Parameter model: The model.
    /// - Throws: As ``PostgresContext/update(_:)``: ``LiteRecord/PersistenceError``
    ///   (``LiteRecord/PersistenceError/isRowNotFound``) when no row has the key;
    ///   ``LiteRecord/ResultCode/interrupt`` when cancelled.
    public func update<M: Model>(_ model: M) async throws {
        try await runCancellable { try $0.update(model) }
    }

    /// Updates only some columns of the row with the model's primary key, off the calling task;
    /// see ``PostgresContext/update(_:columns:)``.
    ///
    /// - Parameters:
    ///   - model: The model; its primary key chooses the row.
    ///   - columns: Key paths of the stored properties to write.
    /// - Throws: As ``PostgresContext/update(_:columns:)`` (a bad column list before anything
    ///   runs); ``LiteRecord/ResultCode/interrupt`` when cancelled.
    public func update<M: Model>(_ model: M, columns: [PartialKeyPath<M>]) async throws {
        // Key paths are not Sendable: resolve them here, send the column names.
        let names = try BackendTable.partialUpdateColumns(of: M.self, columns)
        try await runCancellable { try $0.update(model, columnNames: names) }
    }

    /// Inserts the model, or updates the row with its primary key, off the calling task.
    ///
    /// - Parameter model: The model; its generated key is set when it was inserted.
    /// - Throws: As ``PostgresContext/save(_:)``; ``LiteRecord/ResultCode/interrupt`` when
    ///   cancelled.
    public func save<M: Model>(_ model: inout M) async throws {
        model = try await writing(changing: model) { try $0.save(&$1) }
    }

    /// Deletes the row with the model's primary key, off the calling task.
    ///
    /// - Parameter model: The model.
    /// - Returns: Whether a row was deleted.
    /// - Throws: As ``PostgresContext/delete(_:)``; ``LiteRecord/ResultCode/interrupt`` when
    ///   cancelled.
    @discardableResult
    public func delete<M: Model>(_ model: M) async throws -> Bool {
        try await runCancellable { try $0.delete(model) }
    }

    /// Deletes the row with a primary key value, off the calling task.
    ///
    /// - Parameters:
    ///   - type: The model type.
    ///   - id: The key value.
    /// - Returns: Whether a row was deleted.
    /// - Throws: As ``PostgresContext/delete(_:id:)``; ``LiteRecord/ResultCode/interrupt`` when
    ///   cancelled.
    @discardableResult
    public func delete<M: Model>(_ type: M.Type, id: some DatabaseValueConvertible) async throws -> Bool {
        let key = try id.databaseValue()
        return try await runCancellable { try $0.delete(M.self, id: key) }
    }

    /// Creates the model's table, or adds what it lacks, now, off the calling task.
    ///
    /// - Parameter type: The model type.
    /// - Throws: As ``PostgresContext/migrate(_:)``; ``LiteRecord/ResultCode/interrupt`` when
    ///   cancelled.
    public func migrate<M: Model>(_ type: M.Type) async throws {
        try await runCancellable { try $0.migrate(M.self) }
    }

    /// A write that changes the model it writes (its generated key): the copy sent to the
    /// thread comes back changed.
    private func writing<M: Model>(
        changing model: M, _ body: @escaping @Sendable (PostgresDatabase, inout M) throws -> Void
    ) async throws -> M {
        try await runCancellable { database in
            var copy = model
            try body(database, &copy)
            return copy
        }
    }
}

// MARK: - Reading models

extension PostgresDatabase {
    /// Finds the model with a primary key value, off the calling task.
    ///
    /// - Parameters:
    ///   - type: The model type.
    ///   - id: The key value.
    /// - Returns: The model, or `nil` when no row has the key.
    /// - Throws: As ``PostgresContext/find(_:id:)``; ``LiteRecord/ResultCode/interrupt`` when
    ///   cancelled.
    public func find<M: Model>(_ type: M.Type, id: some DatabaseValueConvertible) async throws -> M? {
        let key = try id.databaseValue()
        return try await runCancellable { try $0.find(M.self, id: key) }
    }

    /// Whether a row has the primary key value, off the calling task.
    ///
    /// - Parameters:
    ///   - type: The model type.
    ///   - id: The key value.
    /// - Returns: Whether the row exists.
    /// - Throws: As ``PostgresContext/exists(_:id:)``; ``LiteRecord/ResultCode/interrupt`` when
    ///   cancelled.
    public func exists<M: Model>(_ type: M.Type, id: some DatabaseValueConvertible) async throws -> Bool {
        let key = try id.databaseValue()
        return try await runCancellable { try $0.exists(M.self, id: key) }
    }

    /// Every model in the table, in primary key order, off the calling task.
    ///
    /// - Parameter type: The model type.
    /// - Returns: The models.
    /// - Throws: As ``PostgresContext/fetchAll(_:)``; ``LiteRecord/ResultCode/interrupt`` when
    ///   cancelled.
    public func fetchAll<M: Model>(_ type: M.Type) async throws -> [M] {
        try await runCancellable { try $0.fetchAll(M.self) }
    }

    /// The number of rows in the model's table, off the calling task.
    ///
    /// - Parameter type: The model type.
    /// - Returns: The count.
    /// - Throws: As ``PostgresContext/count(_:)``; ``LiteRecord/ResultCode/interrupt`` when
    ///   cancelled.
    public func count<M: Model>(_ type: M.Type) async throws -> Int {
        try await runCancellable { try $0.count(M.self) }
    }
}
