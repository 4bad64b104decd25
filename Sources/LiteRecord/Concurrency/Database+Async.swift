// Async forms of the database's operations. Each runs on the database's own queues, never
// blocking Swift's cooperative thread pool, and resumes the caller when done. A task cancelled
// before the work starts throws `CancellationError`; cancelling it while a statement runs
// interrupts that statement, and the call throws `CancellationError`.

// MARK: - Reads and writes

extension Database {
    /// Runs `body` in a write transaction, as ``write(_:)-(_)`` does, without blocking the
    /// caller's thread.
    ///
    /// - Parameter body: The work; use the connection it receives.
    /// - Returns: What `body` returns.
    /// - Throws: `CancellationError` when the task is cancelled; otherwise as
    ///   ``write(_:)-(_)``.
    @discardableResult
    public func write<T: Sendable>(_ body: @escaping @Sendable (Connection) throws -> T) async throws -> T {
        try await performAsync(on: writeQueue) { job in
            try self.write { try job.run(on: $0, body) }
        }
    }

    /// Runs `body` in a transaction of the given kind, as the synchronous `transaction` does,
    /// without blocking the caller's thread.
    ///
    /// - Parameters:
    ///   - kind: When the transaction takes its locks; `.immediate` (the default) at once.
    ///   - body: The work; use the connection it receives.
    /// - Returns: What `body` returns.
    /// - Throws: `CancellationError` when the task is cancelled; otherwise as the synchronous
    ///   `transaction`.
    @discardableResult
    public func transaction<T: Sendable>(
        _ kind: TransactionKind = .immediate, _ body: @escaping @Sendable (Connection) throws -> T
    ) async throws -> T {
        try await performAsync(on: writeQueue) { job in
            try self.transaction(kind) { try job.run(on: $0, body) }
        }
    }

    /// Runs `body` in an immediate transaction without blocking the caller's thread; the same
    /// as `transaction(.immediate, body)`, with the signature every backend offers
    /// (``ModelDatabase``).
    ///
    /// - Parameter body: The work; use the connection it receives.
    /// - Returns: What `body` returns.
    /// - Throws: `CancellationError` when the task is cancelled; otherwise as the synchronous
    ///   `transaction`.
    @discardableResult
    public func transaction<T: Sendable>(_ body: @escaping @Sendable (Connection) throws -> T) async throws
        -> T
    {
        try await transaction(.immediate, body)
    }

    /// Runs `body` inside a savepoint, as the synchronous `savepoint` does, without blocking
    /// the caller's thread: outside a transaction it starts one, committed when `body` returns.
    ///
    /// - Parameters:
    ///   - name: The savepoint's name (any text; it is quoted), or `nil` for a generated one.
    ///   - body: The work; use the connection it receives.
    /// - Returns: What `body` returns.
    /// - Throws: `CancellationError` when the task is cancelled; otherwise as the synchronous
    ///   `savepoint`.
    @discardableResult
    public func savepoint<T: Sendable>(
        _ name: String? = nil, _ body: @escaping @Sendable (Connection) throws -> T
    ) async throws -> T {
        try await performAsync(on: writeQueue) { job in
            try self.savepoint(name) { try job.run(on: $0, body) }
        }
    }

    /// Runs `body` with a snapshot of the database, as ``read(_:)-(_)`` does, without blocking
    /// the caller's thread; reads run in parallel on a WAL database.
    ///
    /// - Parameter body: The reads; use the connection it receives.
    /// - Returns: What `body` returns.
    /// - Throws: `CancellationError` when the task is cancelled; otherwise as ``read(_:)-(_)``.
    @discardableResult
    public func read<T: Sendable>(_ body: @escaping @Sendable (Connection) throws -> T) async throws -> T {
        try await performAsync(on: readQueue) { job in
            try self.read { try job.run(on: $0, body) }
        }
    }
}

// MARK: - Raw SQL

extension Database {
    /// Runs one SQL statement or a script; see ``DatabaseContext/execute(sql:)``.
    ///
    /// - Parameter sql: The SQL and its arguments.
    /// - Returns: The number of rows changed; see ``DatabaseContext/execute(sql:)``.
    /// - Throws: As ``DatabaseContext/execute(sql:)``, or `CancellationError`.
    @discardableResult
    public func execute(sql: SQL) async throws -> Int {
        try await asyncWriting { try $0.execute(sql: sql) }
    }

    /// Fetches every row of a query; see ``DatabaseContext/fetchAll(_:sql:)-(Row.Type,_)``.
    ///
    /// - Parameters:
    ///   - type: `Row.self`.
    ///   - sql: One query; interpolated values are bound.
    /// - Returns: The rows.
    /// - Throws: As the synchronous form, or `CancellationError`.
    public func fetchAll(_ type: Row.Type, sql: SQL) async throws -> [Row] {
        try await asyncReading { try $0.fetchAll(Row.self, sql: sql) }
    }

    /// Fetches the first row of a query, or `nil`.
    ///
    /// - Parameters:
    ///   - type: `Row.self`.
    ///   - sql: One query; interpolated values are bound.
    /// - Returns: The row.
    /// - Throws: As the synchronous form, or `CancellationError`.
    public func fetchOne(_ type: Row.Type, sql: SQL) async throws -> Row? {
        try await asyncReading { try $0.fetchOne(Row.self, sql: sql) }
    }

    /// Fetches every row of a query decoded into a `Decodable` type.
    ///
    /// - Parameters:
    ///   - type: The type of each element.
    ///   - sql: One query; interpolated values are bound.
    /// - Returns: The values.
    /// - Throws: As the synchronous form, or `CancellationError`.
    public func fetchAll<T: Decodable & Sendable>(_ type: T.Type, sql: SQL) async throws -> [T] {
        try await asyncReading { try $0.fetchAll(T.self, sql: sql) }
    }

    /// Fetches the first row of a query decoded into a `Decodable` type, or `nil`.
    ///
    /// - Parameters:
    ///   - type: The type.
    ///   - sql: One query; interpolated values are bound.
    /// - Returns: The value.
    /// - Throws: As the synchronous form, or `CancellationError`.
    public func fetchOne<T: Decodable & Sendable>(_ type: T.Type, sql: SQL) async throws -> T? {
        try await asyncReading { try $0.fetchOne(T.self, sql: sql) }
    }
}

extension Database {
    /// Fetches every row of a table into a `Decodable` type that is not a model; see
    /// ``DatabaseContext/fetchAll(_:fromTable:)``.
    ///
    /// - Parameters:
    ///   - type: The type of each element; its coding keys name the columns.
    ///   - table: The table or view name.
    /// - Returns: The values.
    /// - Throws: As the synchronous form, or `CancellationError`.
    public func fetchAll<T: Decodable & Sendable>(_ type: T.Type, fromTable table: String) async throws
        -> [T]
    {
        try await asyncReading { try $0.fetchAll(T.self, fromTable: table) }
    }
}

// MARK: - Models

extension Database {
    /// Inserts a model and sets its rowid key; see ``DatabaseContext/insert(_:)-1i17o``.
    ///
    /// - Parameter model: The model; its key is set on return.
    /// - Throws: As the synchronous form, or `CancellationError` (nothing is written then).
    public func insert<M: Model>(_ model: inout M) async throws {
        model = try await asyncWriting(changing: model) { try $0.insert(&$1) }
    }

    /// Inserts a model whose key the caller chose.
    ///
    /// - Parameter model: The model.
    /// - Throws: As the synchronous form, or `CancellationError`.
    public func insert<M: Model>(_ model: M) async throws {
        try await asyncWriting { try $0.insert(model) }
    }

    /// Inserts models in one transaction: all of them, or none.
    ///
    /// - Parameter models: The models.
    /// - Returns: The models as inserted, with their rowid keys set.
    /// - Throws: As the synchronous form, or `CancellationError`.
    @discardableResult
    public func insert<M: Model>(contentsOf models: [M]) async throws -> [M] {
        try await asyncWriting { try $0.insert(contentsOf: models) }
    }

    /// Updates the row with the model's primary key.
    ///
    /// - Parameter model: The model.
    /// - Throws: As the synchronous form, or `CancellationError`.
    public func update<M: Model>(_ model: M) async throws {
        try await asyncWriting { try $0.update(model) }
    }

    /// Inserts the model, or updates the row with its primary key.
    ///
    /// - Parameter model: The model; its rowid key is set when it was inserted.
    /// - Throws: As the synchronous form, or `CancellationError`.
    public func save<M: Model>(_ model: inout M) async throws {
        model = try await asyncWriting(changing: model) { try $0.save(&$1) }
    }

    /// Deletes the row with the model's primary key.
    ///
    /// - Parameter model: The model.
    /// - Returns: Whether a row was deleted.
    /// - Throws: As the synchronous form, or `CancellationError`.
    @discardableResult
    public func delete<M: Model>(_ model: M) async throws -> Bool {
        try await asyncWriting { try $0.delete(model) }
    }

    /// Deletes the row with a primary key value.
    ///
    /// - Parameters:
    ///   - type: The model type.
    ///   - id: The key value.
    /// - Returns: Whether a row was deleted.
    /// - Throws: As the synchronous form, or `CancellationError`.
    @discardableResult
    public func delete<M: Model>(_ type: M.Type, id: some DatabaseValueConvertible) async throws -> Bool {
        let key = try id.databaseValue()
        return try await asyncWriting { try $0.delete(M.self, id: key) }
    }

    /// The model with a primary key value, or `nil`.
    ///
    /// - Parameters:
    ///   - type: The model type.
    ///   - id: The key value.
    /// - Returns: The model.
    /// - Throws: As the synchronous form, or `CancellationError`.
    public func find<M: Model>(_ type: M.Type, id: some DatabaseValueConvertible) async throws -> M? {
        let key = try id.databaseValue()
        return try await asyncReading(preparing: M.self) { try $0.find(M.self, id: key) }
    }

    /// Whether a row has the primary key value.
    ///
    /// - Parameters:
    ///   - type: The model type.
    ///   - id: The key value.
    /// - Returns: Whether the row exists.
    /// - Throws: As the synchronous form, or `CancellationError`.
    public func exists<M: Model>(_ type: M.Type, id: some DatabaseValueConvertible) async throws -> Bool {
        let key = try id.databaseValue()
        return try await asyncReading(preparing: M.self) { try $0.exists(M.self, id: key) }
    }

    /// Every model in the table, in rowid order.
    ///
    /// - Parameter type: The model type.
    /// - Returns: The models.
    /// - Throws: As the synchronous form, or `CancellationError`.
    public func fetchAll<M: Model>(_ type: M.Type) async throws -> [M] {
        try await asyncReading(preparing: M.self) { try $0.fetchAll(M.self) }
    }

    /// The number of rows in the model's table.
    ///
    /// - Parameter type: The model type.
    /// - Returns: The count.
    /// - Throws: As the synchronous form, or `CancellationError`.
    public func count<M: Model>(_ type: M.Type) async throws -> Int {
        try await asyncReading(preparing: M.self) { try $0.count(M.self) }
    }

    /// Creates or grows the model's table now.
    ///
    /// - Parameter type: The model type.
    /// - Throws: As the synchronous form, or `CancellationError`.
    public func migrate<M: Model>(_ type: M.Type) async throws {
        try await asyncWriting { try $0.migrate(M.self) }
    }

    /// Async writes that change the model they write (its rowid key): the copy sent to the
    /// writer comes back changed.
    private func asyncWriting<M: Model>(
        changing model: M, _ body: @escaping @Sendable (Connection, inout M) throws -> Void
    ) async throws -> M {
        try await asyncWriting { connection in
            var copy = model
            try body(connection, &copy)
            return copy
        }
    }

    /// Async reads of a model's table: the writer makes sure the table exists first.
    func asyncReading<M: Model, T: Sendable>(
        preparing type: M.Type, _ body: @escaping @Sendable (Connection) throws -> T
    ) async throws -> T {
        try await performAsync(on: readQueue) { job in
            try self.withReadingConnection(preparing: M.self) { try job.run(on: $0, body) }
        }
    }
}
