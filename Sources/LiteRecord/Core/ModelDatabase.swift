/// A database every backend offers alike: the synchronous ``ModelContext`` operations, reads and
/// writes, and the async forms of the model and raw SQL operations.
///
/// A SQLite `Database` and a `PostgresDatabase` (LiteRecordPostgres) both conform, so a data
/// layer written once runs on either:
///
/// ```swift
/// func addPlayers(in db: some ModelDatabase) async throws {
///     var alice = Player(id: nil, name: "Alice", score: 10)
///     try await db.insert(&alice)
/// }
/// ```
///
/// The async forms run off the calling task, never blocking Swift's cooperative thread pool.
/// A task cancelled before the work starts throws `CancellationError`; cancelling it while a
/// statement runs stops the statement (SQLite throws `CancellationError`, PostgreSQL a
/// ``DatabaseError`` with ``ResultCode/interrupt``), and a write is rolled back.
///
/// ## Topics
/// - ``read(_:)-3yny0``
/// - ``read(_:)-42381``
/// - ``write(_:)-4b7qf``
/// - ``write(_:)-5l4zv``
/// - ``transaction(_:)``
/// - ``execute(sql:)``
public protocol ModelDatabase: ModelContext, Sendable {
    /// Runs `body` in a write transaction: commits when it returns, rolls back when it throws.
    ///
    /// **On PostgreSQL `body` may run more than once.** There the transaction is
    /// `SERIALIZABLE`, and after a serialization failure or a deadlock it is rolled back and
    /// `body` runs again from the start, so that a read-modify-write loses no update (on SQLite
    /// it runs once). What a failed attempt wrote through the transaction is undone; nothing
    /// else is. So keep effects outside the database out of `body`: network calls, messages
    /// and notifications, changes to memory outside it (counters, caches, arrays appended to).
    /// Return what they need from `body`, and do them after `write` returns: once, for work
    /// that committed.
    /// Code written for `some ModelDatabase` should follow this on either backend.
    ///
    /// - Parameter body: The work; use the transaction it receives. On PostgreSQL it may run
    ///   more than once.
    /// - Returns: What `body` returns (on PostgreSQL, the run that committed).
    /// - Throws: What `body` throws, or the ``DatabaseError`` of `BEGIN` or `COMMIT`; on
    ///   PostgreSQL, ``ResultCode/busy`` when every attempt conflicted.
    @discardableResult
    func write<T>(_ body: (Transaction) throws -> T) throws -> T

    /// Runs `body` in a read-only transaction that sees one consistent snapshot; statements
    /// that write fail with ``ResultCode/readOnly``, and a read never creates a model's table.
    ///
    /// On PostgreSQL a read, too, runs again after a serialization failure or a deadlock (rare
    /// for a read), so `body` may run more than once: as for `write(_:)`, keep effects
    /// outside the database out of it.
    ///
    /// - Parameter body: The reads; use the transaction it receives.
    /// - Returns: What `body` returns.
    /// - Throws: What `body` throws.
    @discardableResult
    func read<T>(_ body: (Transaction) throws -> T) throws -> T

    /// Runs `body` in a transaction off the calling task.
    ///
    /// On PostgreSQL `body` may run more than once, as in the synchronous form: keep effects
    /// outside the database out of it, and do them after this returns.
    ///
    /// - Parameter body: The work; use the transaction it receives.
    /// - Returns: What `body` returns.
    /// - Throws: As the synchronous `transaction(_:)`, or a cancellation error.
    @discardableResult
    func transaction<T: Sendable>(_ body: @escaping @Sendable (Transaction) throws -> T) async throws -> T

    /// Runs `body` in a write transaction off the calling task.
    ///
    /// On PostgreSQL `body` may run more than once, as in the synchronous form: keep effects
    /// outside the database out of it, and do them after this returns.
    ///
    /// - Parameter body: The work; use the transaction it receives.
    /// - Returns: What `body` returns.
    /// - Throws: As the synchronous `write(_:)`, or a cancellation error.
    @discardableResult
    func write<T: Sendable>(_ body: @escaping @Sendable (Transaction) throws -> T) async throws -> T

    /// Runs `body` in a read-only snapshot off the calling task.
    ///
    /// On PostgreSQL `body` may run more than once, as in the synchronous form.
    ///
    /// - Parameter body: The reads; use the transaction it receives.
    /// - Returns: What `body` returns.
    /// - Throws: As the synchronous `read(_:)`, or a cancellation error.
    @discardableResult
    func read<T: Sendable>(_ body: @escaping @Sendable (Transaction) throws -> T) async throws -> T

    /// Runs `body` in a savepoint off the calling task; outside a transaction, a transaction of
    /// its own.
    ///
    /// - Parameters:
    ///   - name: The savepoint's name, or `nil` for a generated one.
    ///   - body: The work; use the transaction it receives.
    /// - Returns: What `body` returns.
    /// - Throws: As the synchronous `savepoint(_:_:)`, or a cancellation error.
    @discardableResult
    func savepoint<T: Sendable>(_ name: String?, _ body: @escaping @Sendable (Transaction) throws -> T)
        async throws -> T

    /// Inserts a model off the calling task and sets its generated key.
    ///
    /// - Parameter model: The model; its key is set on return (unchanged when the call throws).
    /// - Throws: As the synchronous form, or a cancellation error (nothing is written then).
    func insert<M: Model>(_ model: inout M) async throws

    /// Inserts a model whose key the caller chose, off the calling task.
    ///
    /// - Parameter model: The model.
    /// - Throws: As the synchronous form, or a cancellation error.
    func insert<M: Model>(_ model: M) async throws

    /// Inserts models in one transaction off the calling task: all of them, or none.
    ///
    /// - Parameter models: The models.
    /// - Returns: The models as inserted, with their generated keys set.
    /// - Throws: As the synchronous form, or a cancellation error.
    @discardableResult
    func insert<M: Model>(contentsOf models: [M]) async throws -> [M]

    /// Inserts the model, or updates the row with its primary key, off the calling task.
    ///
    /// - Parameter model: The model; its generated key is set when it was inserted.
    /// - Throws: As the synchronous form, or a cancellation error.
    func save<M: Model>(_ model: inout M) async throws

    /// Updates the row with the model's primary key, off the calling task.
    ///
    /// - Parameter model: The model.
    /// - Throws: As the synchronous form, or a cancellation error.
    func update<M: Model>(_ model: M) async throws

    /// Updates only some columns of the row with the model's primary key, off the calling task.
    ///
    /// - Parameters:
    ///   - model: The model; its primary key chooses the row.
    ///   - columns: Key paths of the stored properties to write.
    /// - Throws: As the synchronous form, or a cancellation error.
    func update<M: Model>(_ model: M, columns: [PartialKeyPath<M>]) async throws

    /// Deletes the row with the model's primary key, off the calling task.
    ///
    /// - Parameter model: The model.
    /// - Returns: Whether a row was deleted.
    /// - Throws: As the synchronous form, or a cancellation error.
    @discardableResult
    func delete<M: Model>(_ model: M) async throws -> Bool

    /// Deletes the row with a primary key value, off the calling task.
    ///
    /// - Parameters:
    ///   - type: The model type.
    ///   - id: The key value.
    /// - Returns: Whether a row was deleted.
    /// - Throws: As the synchronous form, or a cancellation error.
    @discardableResult
    func delete<M: Model>(_ type: M.Type, id: some DatabaseValueConvertible) async throws -> Bool

    /// Deletes the row with a composite primary key, off the calling task.
    ///
    /// - Parameters:
    ///   - type: The model type.
    ///   - key: One value per key column, in the key's order.
    /// - Returns: Whether a row was deleted.
    /// - Throws: As the synchronous form, or a cancellation error.
    @discardableResult
    func delete<M: Model>(_ type: M.Type, key: [any DatabaseValueConvertible]) async throws -> Bool

    /// The model with a primary key value, or `nil`, off the calling task.
    ///
    /// - Parameters:
    ///   - type: The model type.
    ///   - id: The key value.
    /// - Returns: The model.
    /// - Throws: As the synchronous form, or a cancellation error.
    func find<M: Model>(_ type: M.Type, id: some DatabaseValueConvertible) async throws -> M?

    /// The model with a composite primary key, or `nil`, off the calling task.
    ///
    /// - Parameters:
    ///   - type: The model type.
    ///   - key: One value per key column, in the key's order.
    /// - Returns: The model.
    /// - Throws: As the synchronous form, or a cancellation error.
    func find<M: Model>(_ type: M.Type, key: [any DatabaseValueConvertible]) async throws -> M?

    /// Whether a row has the primary key value, off the calling task.
    ///
    /// - Parameters:
    ///   - type: The model type.
    ///   - id: The key value.
    /// - Returns: Whether the row exists.
    /// - Throws: As the synchronous form, or a cancellation error.
    func exists<M: Model>(_ type: M.Type, id: some DatabaseValueConvertible) async throws -> Bool

    /// Every model in the table, off the calling task.
    ///
    /// - Parameter type: The model type.
    /// - Returns: The models.
    /// - Throws: As the synchronous form, or a cancellation error.
    func fetchAll<M: Model>(_ type: M.Type) async throws -> [M]

    /// The number of rows in the model's table, off the calling task.
    ///
    /// - Parameter type: The model type.
    /// - Returns: The count.
    /// - Throws: As the synchronous form, or a cancellation error.
    func count<M: Model>(_ type: M.Type) async throws -> Int

    /// Creates or grows the model's table now, off the calling task.
    ///
    /// - Parameter type: The model type.
    /// - Throws: As the synchronous form, or a cancellation error.
    func migrate<M: Model>(_ type: M.Type) async throws

    /// Runs SQL off the calling task.
    ///
    /// - Parameter sql: The SQL; interpolated values are bound.
    /// - Returns: The number of rows changed, as the synchronous form.
    /// - Throws: As the synchronous form, or a cancellation error.
    @discardableResult
    func execute(sql: SQL) async throws -> Int

    /// Runs SQL text with `?` or named parameters off the calling task.
    ///
    /// - Parameters:
    ///   - sql: The SQL text, as written.
    ///   - arguments: The values of its parameters.
    /// - Returns: The number of rows changed, as the synchronous form.
    /// - Throws: As the synchronous form, or a cancellation error.
    @discardableResult
    func execute(sql: String, arguments: StatementArguments) async throws -> Int

    /// Fetches every row of a query decoded into a `Decodable` type, off the calling task.
    ///
    /// - Parameters:
    ///   - type: The type of each element.
    ///   - sql: One query; interpolated values are bound.
    /// - Returns: The decoded rows.
    /// - Throws: As the synchronous form, or a cancellation error.
    func fetchAll<T: Decodable & Sendable>(_ type: T.Type, sql: SQL) async throws -> [T]

    /// Fetches every row of SQL text with parameters decoded into a `Decodable` type, off the
    /// calling task.
    ///
    /// - Parameters:
    ///   - type: The type of each element.
    ///   - sql: One query, as written.
    ///   - arguments: The values of its parameters.
    /// - Returns: The decoded rows.
    /// - Throws: As the synchronous form, or a cancellation error.
    func fetchAll<T: Decodable & Sendable>(_ type: T.Type, sql: String, arguments: StatementArguments)
        async throws -> [T]

    /// Fetches every row of a table or view into a `Decodable` type that is not a model, off
    /// the calling task.
    ///
    /// - Parameters:
    ///   - type: The type of each element; its coding keys name the columns.
    ///   - table: The table or view name.
    /// - Returns: The rows, decoded.
    /// - Throws: As the synchronous form, or a cancellation error.
    func fetchAll<T: Decodable & Sendable>(_ type: T.Type, fromTable table: String) async throws -> [T]

    /// Fetches every row of SQL text with parameters as ``Row`` values, off the calling task.
    ///
    /// - Parameters:
    ///   - type: `Row.self`.
    ///   - sql: One query, as written.
    ///   - arguments: The values of its parameters.
    /// - Returns: The rows.
    /// - Throws: As the synchronous form, or a cancellation error.
    func fetchAll(_ type: Row.Type, sql: String, arguments: StatementArguments) async throws -> [Row]

    /// Fetches the first row of a query decoded into a `Decodable` type, or `nil`, off the
    /// calling task.
    ///
    /// - Parameters:
    ///   - type: The type to decode.
    ///   - sql: One query; interpolated values are bound.
    /// - Returns: The first row, decoded.
    /// - Throws: As the synchronous form, or a cancellation error.
    func fetchOne<T: Decodable & Sendable>(_ type: T.Type, sql: SQL) async throws -> T?

    // MARK: Observing

    /// Observes the results of a query: fetched when iterated, then again after each committed
    /// change that can alter them.
    ///
    /// - Parameter query: A query built on this database.
    /// - Returns: The observation; nothing runs until it is iterated.
    func observe<M: Model>(_ query: Query<M>) -> DatabaseObservation<[M]>

    /// Observes the results of a query with related rows (`including`, at any depth).
    ///
    /// - Parameter query: A query built on this database.
    /// - Returns: The observation; nothing runs until it is iterated.
    func observe<Including: IncludingQuery>(_ query: Including) -> DatabaseObservation<[Including.Element]>

    /// Observes the value a read returns: fetched when iterated, then again after each
    /// committed change to a table it read.
    ///
    /// - Parameter fetch: Reads the value, on the transaction it receives; it must only read.
    /// - Returns: The observation; nothing runs until it is iterated.
    func observe<Value: Sendable & Equatable>(_ fetch: @escaping @Sendable (Transaction) throws -> Value)
        -> DatabaseObservation<Value>
}

extension Database: ModelDatabase {
    /// A transaction's closure receives the writer connection.
    public typealias Transaction = Connection
}

extension Connection: ModelContext {
    /// A transaction (a savepoint) inside a transaction receives the same connection.
    public typealias Transaction = Connection
}
