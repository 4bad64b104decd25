// The async model and raw SQL operations of every backend, written once: each runs the
// synchronous `ModelContext` operation off the calling task, where the backend says
// (`AsyncContextRunner`). A task cancelled before the work starts throws `CancellationError`;
// cancelling it while a statement runs stops the statement (SQLite then throws
// `CancellationError`, PostgreSQL a `DatabaseError` with `ResultCode.interrupt`), and nothing
// of a write is kept.

// MARK: - Writing models

extension ModelDatabase {
    /// Inserts a model off the calling task and sets its generated key.
    ///
    /// - Parameter model: The model; its key is set on return (unchanged when the call throws).
    /// - Throws: As the synchronous form, or a cancellation error (nothing is written then).
    public func insert<M: Model>(_ model: inout M) async throws {
        model = try await writing(changing: model) { try $0.insert(&$1) }
    }

    /// Inserts a model whose key the caller chose, off the calling task.
    ///
    /// - Parameter model: The model.
    /// - Throws: As the synchronous form, or a cancellation error.
    public func insert<M: Model>(_ model: M) async throws {
        try await runOffTask(.writing) { try $0.insert(model) }
    }

    /// Inserts models in one transaction off the calling task: all of them, or none.
    ///
    /// - Parameter models: The models.
    /// - Returns: The models as inserted, with their generated keys set.
    /// - Throws: As the synchronous form, or a cancellation error.
    @discardableResult
    public func insert<M: Model>(contentsOf models: [M]) async throws -> [M] {
        try await runOffTask(.writing) { try $0.insert(contentsOf: models) }
    }

    /// Inserts the model, or updates the row with its primary key, off the calling task.
    ///
    /// - Parameter model: The model; its generated key is set when it was inserted.
    /// - Throws: As the synchronous form, or a cancellation error.
    public func save<M: Model>(_ model: inout M) async throws {
        model = try await writing(changing: model) { try $0.save(&$1) }
    }

    /// Updates the row with the model's primary key, off the calling task.
    ///
    /// - Parameter model: The model.
    /// - Throws: As the synchronous form (``PersistenceError/isRowNotFound`` when no row has
    ///   the key), or a cancellation error.
    public func update<M: Model>(_ model: M) async throws {
        try await runOffTask(.writing) { try $0.update(model) }
    }

    /// Updates only some columns of the row with the model's primary key, off the calling task.
    ///
    /// - Parameters:
    ///   - model: The model; its primary key chooses the row.
    ///   - columns: Key paths of the stored properties to write.
    /// - Throws: As the synchronous form (a bad column list before anything is written), or a
    ///   cancellation error.
    public func update<M: Model>(_ model: M, columns: [PartialKeyPath<M>]) async throws {
        // A key path is an immutable object, safe to hand to the thread that runs the update;
        // `PartialKeyPath` only lacks the `Sendable` annotation.
        nonisolated(unsafe) let columns = columns
        try await runOffTask(.writing) { try $0.update(model, columns: columns) }
    }

    /// Deletes the row with the model's primary key, off the calling task.
    ///
    /// - Parameter model: The model.
    /// - Returns: Whether a row was deleted.
    /// - Throws: As the synchronous form, or a cancellation error.
    @discardableResult
    public func delete<M: Model>(_ model: M) async throws -> Bool {
        try await runOffTask(.writing) { try $0.delete(model) }
    }

    /// Deletes the row with a primary key value, off the calling task.
    ///
    /// - Parameters:
    ///   - type: The model type.
    ///   - id: The key value.
    /// - Returns: Whether a row was deleted.
    /// - Throws: As the synchronous form, or a cancellation error.
    @discardableResult
    public func delete<M: Model>(_ type: M.Type, id: some DatabaseValueConvertible) async throws -> Bool {
        let key = try id.databaseValue()
        return try await runOffTask(.writing) { try $0.delete(M.self, id: key) }
    }

    /// Deletes the row with a composite primary key, off the calling task.
    ///
    /// - Parameters:
    ///   - type: The model type.
    ///   - key: One value per key column, in the key's order.
    /// - Returns: Whether a row was deleted.
    /// - Throws: As the synchronous form, or a cancellation error.
    @discardableResult
    public func delete<M: Model>(_ type: M.Type, key: [any DatabaseValueConvertible]) async throws -> Bool {
        let key = try sendableKey(key)
        return try await runOffTask(.writing) { try $0.delete(M.self, key: key) }
    }

    /// Creates or grows the model's table now, off the calling task.
    ///
    /// - Parameter type: The model type.
    /// - Throws: As the synchronous form, or a cancellation error.
    public func migrate<M: Model>(_ type: M.Type) async throws {
        try await runOffTask(.writing) { try $0.migrate(M.self) }
    }

    /// A composite key's values, converted on the calling task: they cross to the thread that
    /// runs the work, and a value's conversion may fail (NaN) as the synchronous form's does.
    private func sendableKey(_ key: [any DatabaseValueConvertible]) throws -> [DatabaseValue] {
        try key.map { try $0.databaseValue() }
    }

    /// A write that changes the model it writes (its generated key): the copy sent off the
    /// task comes back changed.
    /// Inserts the model or updates the row it conflicts with, off the calling task.
    ///
    /// - Parameters:
    ///   - model: The model; its generated key is set to the stored row's key.
    ///   - onConflict: The columns that identify the row (the primary key when empty).
    ///   - update: The columns to update on a conflict; `nil` for all but the key.
    /// - Throws: As the synchronous form, or a cancellation error.
    public func upsert<M: Model>(
        _ model: inout M, onConflict: [PartialKeyPath<M>] = [], update: [PartialKeyPath<M>]? = nil
    ) async throws {
        // Key paths are immutable objects, safe to hand to the writing thread (see update(_:columns:)).
        nonisolated(unsafe) let (conflict, update) = (onConflict, update)
        model = try await writing(changing: model) {
            try $0.upsert(&$1, onConflict: conflict, update: update)
        }
    }

    /// Inserts the model unless a row with the same values in `onConflict` exists, off the
    /// calling task.
    ///
    /// - Parameters:
    ///   - model: The model; its generated key is set to the stored row's key.
    ///   - onConflict: The columns that identify the row (the primary key when empty).
    /// - Returns: Whether it inserted the model.
    /// - Throws: As the synchronous form, or a cancellation error.
    @discardableResult
    public func insertOrIgnore<M: Model>(_ model: inout M, onConflict: [PartialKeyPath<M>] = []) async throws
        -> Bool
    {
        nonisolated(unsafe) let conflict = onConflict
        let model0 = model
        let (inserted, written) = try await runOffTask(.writing) { context -> (Bool, M) in
            var copy = model0
            let inserted = try context.insertOrIgnore(&copy, onConflict: conflict)
            return (inserted, copy)
        }
        model = written
        return inserted
    }

    /// Inserts the model off the calling task and returns the row as the database stored it.
    ///
    /// - Parameter model: The model.
    /// - Returns: The stored row.
    /// - Throws: As the synchronous form, or a cancellation error.
    public func insertAndFetch<M: Model>(_ model: M) async throws -> M {
        try await runOffTask(.writing) { try $0.insertAndFetch(model) }
    }

    /// Updates the model's row off the calling task and returns it as the database stored it.
    ///
    /// - Parameter model: The model.
    /// - Returns: The stored row.
    /// - Throws: As the synchronous form, or a cancellation error.
    public func updateAndFetch<M: Model>(_ model: M) async throws -> M {
        try await runOffTask(.writing) { try $0.updateAndFetch(model) }
    }

    /// Upserts the model off the calling task and returns the row as the database stored it.
    ///
    /// - Parameters:
    ///   - model: The model.
    ///   - onConflict: The columns that identify the row (the primary key when empty).
    ///   - update: The columns to update on a conflict; `nil` for all but the key.
    /// - Returns: The stored row.
    /// - Throws: As the synchronous form, or a cancellation error.
    public func upsertAndFetch<M: Model>(
        _ model: M, onConflict: [PartialKeyPath<M>] = [], update: [PartialKeyPath<M>]? = nil
    ) async throws -> M {
        nonisolated(unsafe) let (conflict, update) = (onConflict, update)
        return try await runOffTask(.writing) {
            try $0.upsertAndFetch(model, onConflict: conflict, update: update)
        }
    }

    private func writing<M: Model>(
        changing model: M, _ body: @escaping @Sendable (any ModelContext, inout M) throws -> Void
    ) async throws -> M {
        try await runOffTask(.writing) { context in
            var copy = model
            try body(context, &copy)
            return copy
        }
    }
}

// MARK: - Reading models

extension ModelDatabase {
    /// The model with a primary key value, or `nil`, off the calling task.
    ///
    /// - Parameters:
    ///   - type: The model type.
    ///   - id: The key value.
    /// - Returns: The model.
    /// - Throws: As the synchronous form, or a cancellation error.
    public func find<M: Model>(_ type: M.Type, id: some DatabaseValueConvertible) async throws -> M? {
        let key = try id.databaseValue()
        return try await runOffTask(.readingModel(M.self)) { try $0.find(M.self, id: key) }
    }

    /// The model with a composite primary key, or `nil`, off the calling task.
    ///
    /// - Parameters:
    ///   - type: The model type.
    ///   - key: One value per key column, in the key's order.
    /// - Returns: The model.
    /// - Throws: As the synchronous form, or a cancellation error.
    public func find<M: Model>(_ type: M.Type, key: [any DatabaseValueConvertible]) async throws -> M? {
        let key = try sendableKey(key)
        return try await runOffTask(.readingModel(M.self)) { try $0.find(M.self, key: key) }
    }

    /// Whether a row has the primary key value, off the calling task.
    ///
    /// - Parameters:
    ///   - type: The model type.
    ///   - id: The key value.
    /// - Returns: Whether the row exists.
    /// - Throws: As the synchronous form, or a cancellation error.
    public func exists<M: Model>(_ type: M.Type, id: some DatabaseValueConvertible) async throws -> Bool {
        let key = try id.databaseValue()
        return try await runOffTask(.readingModel(M.self)) { try $0.exists(M.self, id: key) }
    }

    /// Every model in the table, in primary key order, off the calling task.
    ///
    /// - Parameter type: The model type.
    /// - Returns: The models.
    /// - Throws: As the synchronous form, or a cancellation error.
    public func fetchAll<M: Model>(_ type: M.Type) async throws -> [M] {
        try await runOffTask(.readingModel(M.self)) { try $0.fetchAll(M.self) }
    }

    /// The number of rows in the model's table, off the calling task.
    ///
    /// - Parameter type: The model type.
    /// - Returns: The count.
    /// - Throws: As the synchronous form, or a cancellation error.
    public func count<M: Model>(_ type: M.Type) async throws -> Int {
        try await runOffTask(.readingModel(M.self)) { try $0.count(M.self) }
    }
}

// MARK: - Raw SQL

extension ModelDatabase {
    /// Runs SQL off the calling task: one statement or a script; interpolated values are bound.
    ///
    /// - Parameter sql: The SQL.
    /// - Returns: The number of rows changed, as the synchronous form.
    /// - Throws: As the synchronous form, or a cancellation error (a write is rolled back).
    @discardableResult
    public func execute(sql: SQL) async throws -> Int {
        try await runOffTask(.writing) { try $0.execute(sql: sql) }
    }

    /// Runs SQL text with `?` or named parameters off the calling task.
    ///
    /// - Parameters:
    ///   - sql: The SQL text, as written.
    ///   - arguments: The values of its parameters.
    /// - Returns: The number of rows changed, as the synchronous form.
    /// - Throws: As the synchronous form, or a cancellation error (a write is rolled back).
    @discardableResult
    public func execute(sql: String, arguments: StatementArguments) async throws -> Int {
        try await runOffTask(.writing) { try $0.execute(sql: sql, arguments: arguments) }
    }

    /// Fetches every row of SQL text with parameters decoded into a `Decodable` type, off the
    /// calling task.
    ///
    /// - Parameters:
    ///   - type: The type of each element.
    ///   - sql: One query, as written.
    ///   - arguments: The values of its parameters.
    /// - Returns: The decoded rows.
    /// - Throws: As the synchronous form, or a cancellation error.
    public func fetchAll<T: Decodable & Sendable>(
        _ type: T.Type, sql: String, arguments: StatementArguments
    ) async throws -> [T] {
        try await runOffTask(.reading) { try $0.fetchAll(T.self, sql: sql, arguments: arguments) }
    }

    /// Fetches every row of SQL text with parameters as ``Row`` values, off the calling task.
    ///
    /// - Parameters:
    ///   - type: `Row.self`.
    ///   - sql: One query, as written.
    ///   - arguments: The values of its parameters.
    /// - Returns: The rows.
    /// - Throws: As the synchronous form, or a cancellation error.
    public func fetchAll(_ type: Row.Type, sql: String, arguments: StatementArguments) async throws -> [Row] {
        try await runOffTask(.reading) { try $0.fetchAll(Row.self, sql: sql, arguments: arguments) }
    }

    /// Fetches every row of a query decoded into a `Decodable` type, off the calling task.
    ///
    /// - Parameters:
    ///   - type: The type of each element.
    ///   - sql: One query; interpolated values are bound.
    /// - Returns: The decoded rows.
    /// - Throws: As the synchronous form, or a cancellation error.
    public func fetchAll<T: Decodable & Sendable>(_ type: T.Type, sql: SQL) async throws -> [T] {
        try await runOffTask(.reading) { try $0.fetchAll(T.self, sql: sql) }
    }

    /// Fetches the first row of a query decoded into a `Decodable` type, or `nil`, off the
    /// calling task.
    ///
    /// - Parameters:
    ///   - type: The type to decode.
    ///   - sql: One query; interpolated values are bound.
    /// - Returns: The first row, decoded.
    /// - Throws: As the synchronous form, or a cancellation error.
    public func fetchOne<T: Decodable & Sendable>(_ type: T.Type, sql: SQL) async throws -> T? {
        try await runOffTask(.reading) { try $0.fetchOne(T.self, sql: sql) }
    }

    /// Fetches every row of a table or view into a `Decodable` type that is not a model, off
    /// the calling task.
    ///
    /// - Parameters:
    ///   - type: The type of each element; its coding keys name the columns.
    ///   - table: The table or view name.
    /// - Returns: The rows, decoded.
    /// - Throws: As the synchronous form, or a cancellation error.
    public func fetchAll<T: Decodable & Sendable>(_ type: T.Type, fromTable table: String) async throws -> [T]
    {
        try await runOffTask(.reading) { try $0.fetchAll(T.self, fromTable: table) }
    }

    /// Fetches every row of a query as ``Row`` values, off the calling task.
    ///
    /// - Parameters:
    ///   - type: `Row.self`.
    ///   - sql: One query; interpolated values are bound.
    /// - Returns: The rows.
    /// - Throws: As the synchronous form, or a cancellation error.
    public func fetchAll(_ type: Row.Type, sql: SQL) async throws -> [Row] {
        try await runOffTask(.reading) { try $0.fetchAll(Row.self, sql: sql) }
    }

    /// Fetches the first row of a query as a ``Row``, or `nil`, off the calling task.
    ///
    /// - Parameters:
    ///   - type: `Row.self`.
    ///   - sql: One query; interpolated values are bound.
    /// - Returns: The row.
    /// - Throws: As the synchronous form, or a cancellation error.
    public func fetchOne(_ type: Row.Type, sql: SQL) async throws -> Row? {
        try await runOffTask(.reading) { try $0.fetchOne(Row.self, sql: sql) }
    }
}

// MARK: - Where the work runs

extension ModelDatabase {
    /// Runs `body` off the calling task where the backend says; a backend of another package
    /// runs it in its async `write` or `read`.
    private func runOffTask<T: Sendable>(
        _ work: AsyncWork, _ body: @escaping @Sendable (any ModelContext) throws -> T
    ) async throws -> T {
        if let runner = self as? any AsyncContextRunner {
            return try await runner.runOffTask(work, body)
        }
        switch work {
        case .writing: return try await write { try body($0) }
        case .reading, .readingModel: return try await read { try body($0) }
        }
    }
}
