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

// MARK: - Model tables

extension Database {
    /// Async reads of a model's table: the writer makes sure the table exists first.
    func asyncReading<M: Model, T: Sendable>(
        preparing type: M.Type, _ body: @escaping @Sendable (Connection) throws -> T
    ) async throws -> T {
        try await performAsync(on: readQueue) { job in
            try self.withReadingConnection(preparing: M.self) { try job.run(on: $0, body) }
        }
    }
}
