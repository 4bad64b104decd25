/// The operations that work the same on every backend, synchronously: on a database and on the
/// transaction its `transaction` closure receives.
///
/// Write your data layer once against `some ModelContext` and run it on a SQLite `Database`,
/// inside a SQLite transaction (a `Connection`), or on PostgreSQL (`PostgresDatabase`,
/// `PostgresTransaction`, from the LiteRecordPostgres module):
///
/// ```swift
/// func total(in db: some ModelContext) throws -> Int {
///     try db.transaction { tx in try tx.count(Player.self) }
/// }
/// ```
///
/// Every requirement has the same signature and meaning on every backend. Where a backend
/// cannot do something, the method throws a ``DatabaseError`` saying so, and its documentation
/// names the case: named `:name` parameters are refused (``ResultCode/misuse``) on PostgreSQL.
///
/// ## Topics
/// - ``insert(_:)-8whzw``
/// - ``insert(_:)-16bxo``
/// - ``update(_:columns:)``
/// - ``find(_:key:)``
/// - ``execute(sql:arguments:)``
/// - ``forEachRow(sql:_:)``
/// - ``transaction(_:)``
/// - ``savepoint(_:_:)``
public protocol ModelContext {
    /// What a transaction's closure receives: the context every operation of the transaction
    /// runs on.
    associatedtype Transaction: ModelContext

    // MARK: Writing models

    /// Inserts a model and, when its primary key is an `Int64?`/`Int?` still `nil`, sets it to
    /// the key the database generated. The first use of a model type creates its table.
    ///
    /// - Parameter model: The model; its key is set on return.
    /// - Throws: ``DatabaseError`` for a constraint violation (`.constraintUnique`,
    ///   `.constraintNotNull`, ...), ``SchemaError`` for a model that cannot be mapped,
    ///   `EncodingError` for a value that cannot be stored. Nothing is written when it throws.
    func insert<M: Model>(_ model: inout M) throws

    /// Inserts a model whose key the caller chose (a `UUID`, a `String`, a composite key).
    ///
    /// - Parameter model: The model.
    /// - Throws: As `insert(_:)` with an `inout` model; a duplicate key is a constraint error.
    func insert<M: Model>(_ model: M) throws

    /// Inserts models in one transaction (a savepoint inside one): all of them, or none when
    /// one fails.
    ///
    /// - Parameter models: The models.
    /// - Returns: The models as inserted, with their generated keys set.
    /// - Throws: As `insert(_:)`; nothing of the batch is written.
    @discardableResult
    func insert<M: Model, S: Sequence<M>>(contentsOf models: S) throws -> [M]

    /// Inserts the model, or updates the row with its primary key when there is one. A `nil`
    /// generated key is always an insert, and is set.
    ///
    /// - Parameter model: The model; its generated key is set when it was inserted.
    /// - Throws: ``DatabaseError`` for constraint violations other than the key's.
    func save<M: Model>(_ model: inout M) throws

    /// Updates the row with the model's primary key to the model's values.
    ///
    /// - Parameter model: The model.
    /// - Throws: ``PersistenceError`` with ``PersistenceError/isRowNotFound`` when no row has
    ///   the key (nothing is inserted); ``DatabaseError`` for constraint violations.
    func update<M: Model>(_ model: M) throws

    /// Updates only some columns of the row with the model's primary key; the other columns
    /// keep what the row holds.
    ///
    /// - Parameters:
    ///   - model: The model; its primary key chooses the row.
    ///   - columns: Key paths of stored properties (not the primary key, not a path inside a
    ///     property).
    /// - Throws: ``SchemaError`` for an empty list, a key path that is not a column, or a
    ///   primary key column (nothing is written); ``PersistenceError`` with
    ///   ``PersistenceError/isRowNotFound`` when no row has the key.
    func update<M: Model>(_ model: M, columns: [PartialKeyPath<M>]) throws

    /// Inserts the model, or, when a row with the same values in `onConflict` exists, updates
    /// that row's `update` columns (every column but the key and the conflict columns when
    /// `nil`), in one statement. The model's generated key is set to the stored row's key.
    ///
    /// - Parameters:
    ///   - model: The model.
    ///   - onConflict: The columns that identify the row (the primary key when empty); a unique
    ///     constraint must cover exactly them.
    ///   - update: The columns to update on a conflict, or `nil` for all but the key.
    /// - Throws: ``SchemaError`` before anything is written for a key path that is not a column,
    ///   an update of a key column, or a conflict target no unique constraint covers;
    ///   ``DatabaseError`` for another constraint violation.
    func upsert<M: Model>(_ model: inout M, onConflict: [PartialKeyPath<M>], update: [PartialKeyPath<M>]?)
        throws

    /// Inserts the model unless a row with the same values in `onConflict` exists.
    ///
    /// - Parameters:
    ///   - model: The model; its generated key is set to the stored row's key.
    ///   - onConflict: The columns that identify the row (the primary key when empty).
    /// - Returns: Whether it inserted the model.
    /// - Throws: As ``upsert(_:onConflict:update:)``.
    @discardableResult
    func insertOrIgnore<M: Model>(_ model: inout M, onConflict: [PartialKeyPath<M>]) throws -> Bool

    /// Inserts the model and returns the row as the database stored it: defaults, generated
    /// columns and values a trigger set included, read back in the same transaction.
    ///
    /// - Parameter model: The model.
    /// - Returns: The stored row, with its generated key.
    /// - Throws: As `insert(_:)`; ``PersistenceError`` for a model without a primary key.
    func insertAndFetch<M: Model>(_ model: M) throws -> M

    /// Updates the row with the model's key and returns it as the database stored it.
    ///
    /// - Parameter model: The model.
    /// - Returns: The stored row.
    /// - Throws: As `update(_:)`.
    func updateAndFetch<M: Model>(_ model: M) throws -> M

    /// Upserts the model (``upsert(_:onConflict:update:)``) and returns the row as the database
    /// stored it: on a conflict, the row met, its columns not updated as they were.
    ///
    /// - Parameters:
    ///   - model: The model.
    ///   - onConflict: The columns that identify the row (the primary key when empty).
    ///   - update: The columns to update on a conflict, or `nil` for all but the key.
    /// - Returns: The stored row.
    /// - Throws: As ``upsert(_:onConflict:update:)``.
    func upsertAndFetch<M: Model>(_ model: M, onConflict: [PartialKeyPath<M>], update: [PartialKeyPath<M>]?)
        throws -> M

    /// Deletes the row with the model's primary key.
    ///
    /// - Parameter model: The model.
    /// - Returns: Whether a row was deleted.
    /// - Throws: ``PersistenceError`` when the model has no primary key.
    @discardableResult
    func delete<M: Model>(_ model: M) throws -> Bool

    /// Deletes the row with a primary key value.
    ///
    /// - Parameters:
    ///   - type: The model type.
    ///   - id: The key value.
    /// - Returns: Whether a row was deleted.
    /// - Throws: ``PersistenceError`` when the model has no single-column primary key.
    @discardableResult
    func delete<M: Model>(_ type: M.Type, id: some DatabaseValueConvertible) throws -> Bool

    /// Deletes the row with a composite primary key.
    ///
    /// - Parameters:
    ///   - type: The model type.
    ///   - key: The key values, in the order of the schema's `primaryKey`.
    /// - Returns: Whether a row was deleted.
    /// - Throws: ``PersistenceError`` when the number of values does not match the key (nothing
    ///   is deleted).
    @discardableResult
    func delete<M: Model>(_ type: M.Type, key: [any DatabaseValueConvertible]) throws -> Bool

    /// Creates the model's table, or adds the columns and indexes it lacks, now rather than on
    /// first use.
    ///
    /// - Parameter type: The model type.
    /// - Throws: ``SchemaError`` for a change that cannot be made; ``DatabaseError`` in a
    ///   read-only transaction.
    func migrate<M: Model>(_ type: M.Type) throws

    // MARK: Reading models

    /// The model with a primary key value, or `nil`.
    ///
    /// - Parameters:
    ///   - type: The model type.
    ///   - id: The key value.
    /// - Returns: The model, decoded.
    /// - Throws: ``PersistenceError`` when the model has no single-column primary key;
    ///   ``RowDecodingError`` when the row does not fit the model.
    func find<M: Model>(_ type: M.Type, id: some DatabaseValueConvertible) throws -> M?

    /// The model with a composite primary key, or `nil`.
    ///
    /// - Parameters:
    ///   - type: The model type.
    ///   - key: The key values, in the order of the schema's `primaryKey`.
    /// - Returns: The model, decoded.
    /// - Throws: ``PersistenceError`` when the number of values does not match the key.
    func find<M: Model>(_ type: M.Type, key: [any DatabaseValueConvertible]) throws -> M?

    /// Whether a row has the primary key value.
    ///
    /// - Parameters:
    ///   - type: The model type.
    ///   - id: The key value.
    /// - Returns: Whether the row exists.
    /// - Throws: ``PersistenceError`` when the model has no single-column primary key.
    func exists<M: Model>(_ type: M.Type, id: some DatabaseValueConvertible) throws -> Bool

    /// Every model in the table, in primary key order (rowid order on SQLite).
    ///
    /// - Parameter type: The model type.
    /// - Returns: The models.
    /// - Throws: ``RowDecodingError`` when a row does not fit the model.
    func fetchAll<M: Model>(_ type: M.Type) throws -> [M]

    /// The number of rows in the model's table.
    ///
    /// - Parameter type: The model type.
    /// - Returns: The count.
    /// - Throws: ``DatabaseError``.
    func count<M: Model>(_ type: M.Type) throws -> Int

    /// Starts a query on a model's table: the same ``Query`` type on every backend, which
    /// builds its SQL in the dialect of the database it was built on and runs there.
    ///
    /// - Parameter type: The model type.
    /// - Returns: A query matching every row; nothing runs until it is fetched.
    func query<M: Model>(_ type: M.Type) -> Query<M>

    // MARK: Raw SQL

    /// Runs SQL; interpolated values are bound, never spliced into the text.
    ///
    /// - Parameter sql: One statement, or a script of several (on PostgreSQL only without
    ///   arguments: a script with arguments throws ``DatabaseError`` there).
    /// - Returns: The number of rows the statement inserted, updated or deleted (not counting
    ///   rows changed by triggers); 0 for any other statement (a `SELECT`, `CREATE TABLE`).
    ///   For a script, the count of its last statement.
    /// - Throws: ``DatabaseError`` for SQL that fails, or arguments that do not match the
    ///   parameters.
    @discardableResult
    func execute(sql: SQL) throws -> Int

    /// Runs SQL text with `?` parameters and their values.
    ///
    /// - Parameters:
    ///   - sql: SQL text with `?` parameters (SQLite also takes `:name` ones; PostgreSQL refuses
    ///     them with ``ResultCode/misuse``).
    ///   - arguments: The values, in order: `[1, "two"]`.
    /// - Returns: As `execute(sql:)`.
    /// - Throws: ``DatabaseError`` when the number of values does not match the parameters
    ///   (nothing runs then), or when the SQL fails.
    @discardableResult
    func execute(sql: String, arguments: StatementArguments) throws -> Int

    /// Fetches every row of a query decoded into a `Decodable` type: a model (by its column
    /// names), a struct (its properties from the columns of the same names), or a plain value
    /// from the first column.
    ///
    /// - Parameters:
    ///   - type: The type of each element.
    ///   - sql: One query; interpolated values are bound.
    /// - Returns: The decoded rows, in the order the database returned them.
    /// - Throws: ``DatabaseError`` when the SQL fails, ``RowDecodingError`` when a row does not
    ///   fit the type.
    func fetchAll<T: Decodable>(_ type: T.Type, sql: SQL) throws -> [T]

    /// Fetches every row of a query with explicit arguments, decoded into a `Decodable` type.
    ///
    /// - Parameters:
    ///   - type: The type of each element.
    ///   - sql: One query with `?` parameters.
    ///   - arguments: Their values.
    /// - Returns: The decoded rows.
    /// - Throws: As `fetchAll(_:sql:)`, and as `execute(sql:arguments:)` for the arguments.
    func fetchAll<T: Decodable>(_ type: T.Type, sql: String, arguments: StatementArguments) throws -> [T]

    /// Fetches the first row of a query decoded into a `Decodable` type, or `nil`.
    ///
    /// - Parameters:
    ///   - type: The type to decode.
    ///   - sql: One query; interpolated values are bound.
    /// - Returns: The first row, decoded.
    /// - Throws: As `fetchAll(_:sql:)`.
    func fetchOne<T: Decodable>(_ type: T.Type, sql: SQL) throws -> T?

    /// Fetches every row of a table or view into a `Decodable` type that is not a model: its
    /// coding keys name the columns, which are read by name (a table another tool wrote).
    ///
    /// - Parameters:
    ///   - type: The type of each element.
    ///   - table: The table or view name; it is quoted.
    /// - Returns: The rows, decoded.
    /// - Throws: ``DatabaseError`` when the table does not exist; ``RowDecodingError`` when a
    ///   row does not decode.
    func fetchAll<T: Decodable>(_ type: T.Type, fromTable table: String) throws -> [T]

    /// Fetches every row of a query as ``Row`` values.
    ///
    /// - Parameters:
    ///   - type: `Row.self`.
    ///   - sql: One query; interpolated values are bound.
    /// - Returns: The rows.
    /// - Throws: ``DatabaseError``.
    func fetchAll(_ type: Row.Type, sql: SQL) throws -> [Row]

    /// Fetches every row of a query with explicit arguments as ``Row`` values.
    ///
    /// - Parameters:
    ///   - type: `Row.self`.
    ///   - sql: One query with `?` parameters.
    ///   - arguments: Their values.
    /// - Returns: The rows.
    /// - Throws: As `execute(sql:arguments:)`.
    func fetchAll(_ type: Row.Type, sql: String, arguments: StatementArguments) throws -> [Row]

    /// Fetches the first row of a query as a ``Row``, or `nil`.
    ///
    /// - Parameters:
    ///   - type: `Row.self`.
    ///   - sql: One query; interpolated values are bound.
    /// - Returns: The first row.
    /// - Throws: ``DatabaseError``.
    func fetchOne(_ type: Row.Type, sql: SQL) throws -> Row?

    /// Calls `body` with each row of a query, one at a time.
    ///
    /// On PostgreSQL the rows come through a server-side cursor, which runs only a query (a
    /// `SELECT`, `VALUES` or `TABLE`): another statement (an `INSERT ... RETURNING`, which SQLite
    /// iterates) throws ``DatabaseError``; use `fetchAll(Row.self, sql:)` for it.
    ///
    /// - Parameters:
    ///   - sql: One query; interpolated values are bound.
    ///   - body: Called once per row; throwing stops the iteration and is rethrown.
    /// - Throws: ``DatabaseError``, or what `body` throws.
    func forEachRow(sql: SQL, _ body: (Row) throws -> Void) throws

    // MARK: Transactions

    /// Runs `body` in a transaction: commits when it returns, rolls back when it throws.
    /// Inside a transaction it is a savepoint, so transactions nest.
    ///
    /// **On PostgreSQL `body` may run more than once.** There an outermost transaction is
    /// `SERIALIZABLE`, and after a serialization failure or a deadlock it is rolled back and
    /// `body` runs again from the start, so that a read-modify-write loses no update (on SQLite
    /// it runs once; a nested transaction never runs again by itself). What a failed attempt
    /// wrote through the transaction is undone; nothing else is. So keep effects outside the
    /// database out of `body`: network calls, messages and notifications, changes to memory
    /// outside it (counters, caches, arrays appended to). Return what they need from `body`,
    /// and do them after `transaction` returns: once, for work that committed.
    ///
    /// - Parameter body: The work; use the transaction it receives. On PostgreSQL it may run
    ///   more than once.
    /// - Returns: What `body` returns (on PostgreSQL, the run that committed).
    /// - Throws: What `body` throws, or the ``DatabaseError`` of `BEGIN` or `COMMIT`; on
    ///   PostgreSQL, ``ResultCode/busy`` when every attempt conflicted.
    @discardableResult
    func transaction<T>(_ body: (Transaction) throws -> T) throws -> T

    /// Runs `body` in a savepoint: released when it returns, rolled back to when it throws.
    /// Outside a transaction it is a transaction of its own.
    ///
    /// - Parameters:
    ///   - name: The savepoint's name (any text; it is quoted), or `nil` for a generated one.
    ///   - body: The work; use the transaction it receives.
    /// - Returns: What `body` returns.
    /// - Throws: What `body` throws, or the ``DatabaseError`` of `SAVEPOINT` or `RELEASE`.
    @discardableResult
    func savepoint<T>(_ name: String?, _ body: (Transaction) throws -> T) throws -> T
}

extension ModelContext {
    /// Runs `body` in a savepoint with a generated name; see `savepoint(_:_:)`.
    ///
    /// - Parameter body: The work; use the transaction it receives.
    /// - Returns: What `body` returns.
    /// - Throws: As `savepoint(_:_:)`.
    @discardableResult
    public func savepoint<T>(_ body: (Transaction) throws -> T) throws -> T {
        try savepoint(nil, body)
    }
}
