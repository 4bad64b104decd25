/// Somewhere database work can run: a ``Database``, or the ``Connection`` a transaction
/// closure receives.
///
/// Every operation is written once, here, and works the same on both; inside
/// `db.transaction { tx in ... }` use `tx` exactly as you would use `db`.
///
/// ## Topics
/// - ``execute(sql:)``
/// - ``execute(sql:arguments:)``
/// - ``fetchAll(_:sql:)->[T]``
/// - ``fetchOne(_:sql:)->T?``
/// - ``forEachRow(sql:_:)``
/// - ``transaction(_:_:)``
/// - ``savepoint(_:_:)``
public protocol DatabaseContext {
    /// Runs `body` with exclusive use of a connection and returns its result.
    ///
    /// - Parameter body: Work to run; it must not keep the connection after it returns.
    /// - Throws: What `body` throws.
    func withConnection<T>(_ body: (Connection) throws -> T) rethrows -> T

    /// The settings the database was opened with.
    var configuration: Configuration { get }
    /// The rowid of the last row inserted.
    var lastInsertRowID: Int64 { get }
    /// Rows changed by the last `INSERT`, `UPDATE` or `DELETE`.
    var changes: Int { get }
    /// Rows changed since the connection opened.
    var totalChanges: Int { get }
    /// Whether the database refuses writes.
    var isReadOnly: Bool { get }
    /// Whether a transaction is open.
    var isInsideTransaction: Bool { get }
}

// MARK: - Raw SQL

extension DatabaseContext {
    /// Runs one SQL statement, or a script of several separated by semicolons.
    ///
    /// Interpolated values are bound, never spliced into the text:
    /// `try db.execute(sql: "UPDATE players SET score = \(score) WHERE name = \(name)")`.
    /// A single statement is prepared once and reused on the next call with the same text.
    /// SQL text held in a `String` (a script loaded at run time) is passed as
    /// `SQL(verbatim: script)`, taken as written; bind its values with `arguments:`.
    ///
    /// - Parameter sql: The SQL and its arguments; a script's statements take the arguments in order.
    /// - Returns: The number of rows the statement inserted, updated or deleted, not counting
    ///   rows changed by triggers (SQLite's `sqlite3_changes`); 0 for a statement that changes
    ///   no rows (`CREATE TABLE`, a `SELECT`). For a script, the count of its last statement.
    /// - Throws: ``DatabaseError`` with SQLite's code and message and the failing statement;
    ///   `.misuse` when the arguments do not match the parameters. Statements of a script that
    ///   ran before the failing one are not undone (wrap the script in a ``transaction(_:_:)``).
    @discardableResult
    public func execute(sql: SQL) throws -> Int {
        try withConnection { connection in
            try connection.execute(sql)
            return connection.lastExecuteChanges
        }
    }

    /// Runs SQL built from text with `?` or `:name` parameters and their values.
    ///
    /// - Parameters:
    ///   - sql: One statement or a script.
    ///   - arguments: Values for the parameters: `[1, "two"]` or `["name": "Alice"]`.
    /// - Returns: As ``execute(sql:)``.
    /// - Throws: As ``execute(sql:)``.
    @discardableResult
    public func execute(sql: String, arguments: StatementArguments) throws -> Int {
        try execute(sql: SQL(sql, arguments: arguments))
    }

    /// Fetches every row of a query, copied out.
    ///
    /// - Parameters:
    ///   - type: `Row.self`.
    ///   - sql: One query; interpolated values are bound.
    /// - Returns: The rows, in the order SQLite returned them.
    /// - Throws: ``DatabaseError`` for SQL that fails, ``ValueConversionError`` for text that is
    ///   not valid UTF-8.
    public func fetchAll(_ type: Row.Type, sql: SQL) throws -> [Row] {
        var rows: [Row] = []
        try forEachRow(sql: sql) { rows.append($0) }
        return rows
    }

    /// Fetches every row of a query with explicit arguments.
    ///
    /// - Parameters:
    ///   - type: `Row.self`.
    ///   - sql: One query with `?` or `:name` parameters.
    ///   - arguments: Their values.
    /// - Returns: The rows.
    /// - Throws: As ``fetchAll(_:sql:)->[Row]``.
    public func fetchAll(_ type: Row.Type, sql: String, arguments: StatementArguments) throws -> [Row] {
        try fetchAll(type, sql: SQL(sql, arguments: arguments))
    }

    /// Fetches the first row of a query, or `nil` when there is none.
    ///
    /// - Parameters:
    ///   - type: `Row.self`.
    ///   - sql: One query; interpolated values are bound.
    /// - Returns: The first row.
    /// - Throws: As ``fetchAll(_:sql:)->[Row]``.
    public func fetchOne(_ type: Row.Type, sql: SQL) throws -> Row? {
        try withReader { connection in
            try connection.withStatement(sql) { statement in
                try statement.step() ? statement.row() : nil
            }
        }
    }

    /// Calls `body` with each row of a query as SQLite produces it, without holding them all.
    ///
    /// - Parameters:
    ///   - sql: One query; interpolated values are bound.
    ///   - body: Called once per row; throwing stops the iteration and is rethrown.
    /// - Throws: ``DatabaseError``, or what `body` throws.
    public func forEachRow(sql: SQL, _ body: (Row) throws -> Void) throws {
        try withReader { connection in
            try connection.withStatement(sql) { statement in
                while try statement.step() {
                    try body(try statement.row())
                }
            }
        }
    }
}

// MARK: - Transactions

extension DatabaseContext {
    /// Runs `body` in a transaction: commits when it returns, rolls back when it throws.
    ///
    /// The error `body` throws is rethrown unchanged, and the database is left exactly as it was.
    /// Inside an open transaction this becomes a savepoint, so transactions nest.
    ///
    /// ```swift
    /// try db.transaction { tx in
    ///     try tx.execute(sql: "UPDATE accounts SET balance = balance - \(amount) WHERE id = \(from)")
    ///     try tx.execute(sql: "UPDATE accounts SET balance = balance + \(amount) WHERE id = \(to)")
    /// }
    /// ```
    ///
    /// The default kind, `.immediate`, takes the write lock at `BEGIN`, waiting for another
    /// connection's write (up to the busy timeout) there. A `.deferred` transaction that reads
    /// first and writes later cannot wait when it first writes: if another connection to the same
    /// file wrote meanwhile, the write fails with `.busy` (`.busySnapshot` in WAL mode). On a
    /// connection that cannot write (a read-only database), every kind begins deferred.
    ///
    /// When SQLite itself rolls the transaction back after an error (a constraint with
    /// `ON CONFLICT ROLLBACK`, `RAISE(ROLLBACK)`, an interrupt, a full disk, an I/O error),
    /// nothing of `body` commits, even when `body` catches that error: every later statement in
    /// `body` throws ``ResultCode/abortRollback``, and so does this method when `body` returns.
    ///
    /// - Parameters:
    ///   - kind: When the transaction takes its locks; `.immediate` (the default) at once.
    ///   - body: The work; use the connection it receives. Other threads wait until it returns.
    /// - Returns: What `body` returns.
    /// - Throws: What `body` throws, the ``DatabaseError`` of `BEGIN` or `COMMIT`, or a
    ///   ``DatabaseError`` with ``ResultCode/abortRollback`` naming the error after which SQLite
    ///   rolled the transaction back.
    @discardableResult
    public func transaction<T>(
        _ kind: TransactionKind = .immediate, _ body: (Connection) throws -> T
    ) throws -> T {
        try withConnection { try $0.performTransaction(kind, body) }
    }

    /// Runs `body` in an immediate transaction; the same as `transaction(.immediate, body)`,
    /// with the signature every backend offers (``ModelContext``).
    ///
    /// - Parameter body: The work; use the connection it receives.
    /// - Returns: What `body` returns.
    /// - Throws: As ``transaction(_:_:)``.
    @discardableResult
    public func transaction<T>(_ body: (Connection) throws -> T) throws -> T {
        try transaction(.immediate, body)
    }

    /// Runs `body` inside a savepoint: released when it returns, rolled back to when it throws.
    ///
    /// Outside a transaction a savepoint starts one, committed on release. When SQLite rolls
    /// back the whole transaction after an error, the savepoint throws as
    /// ``transaction(_:_:)`` does, and the transaction around it can no longer commit.
    ///
    /// - Parameters:
    ///   - name: The savepoint's name (any text; it is quoted), or `nil` for a generated one.
    ///   - body: The work.
    /// - Returns: What `body` returns.
    /// - Throws: What `body` throws, the ``DatabaseError`` of `SAVEPOINT` or `RELEASE`, or a
    ///   ``DatabaseError`` with ``ResultCode/abortRollback`` when SQLite rolled back.
    @discardableResult
    public func savepoint<T>(_ name: String? = nil, _ body: (Connection) throws -> T) throws -> T {
        try withConnection { try $0.performSavepoint(name, body) }
    }
}

// MARK: - Hooks

extension DatabaseContext {
    /// Reports the SQL of every statement as it starts running (with `?` placeholders: values
    /// are not shown). Pass `nil` to stop.
    ///
    /// - Parameter handler: Called on the thread running the statement; must not use the database.
    public func trace(_ handler: (@Sendable (String) -> Void)?) {
        withConnection { $0.hooks.setTrace(handler) }
    }

    /// Reports every row inserted, updated or deleted in a rowid table (SQLite's update hook).
    ///
    /// Changes are reported as they happen, also for work that is later rolled back; pair with
    /// ``onCommit(_:)`` and ``onRollback(_:)`` to know which changes stuck.
    ///
    /// - Parameter handler: Called on the thread running the statement; must not use the database.
    /// - Returns: A registration to pass to ``removeHook(_:)``.
    @discardableResult
    public func onUpdate(_ handler: @escaping @Sendable (DatabaseChange) -> Void) -> HookRegistration {
        withConnection { $0.hooks.addUpdate(handler) }
    }

    /// Reports each transaction that committed, right after the statement that committed it.
    ///
    /// - Parameter handler: Called on the thread that committed; must not use the database.
    /// - Returns: A registration to pass to ``removeHook(_:)``.
    @discardableResult
    public func onCommit(_ handler: @escaping @Sendable () -> Void) -> HookRegistration {
        withConnection { $0.hooks.addCommit(handler) }
    }

    /// Reports each transaction that rolled back.
    ///
    /// - Parameter handler: Called on the thread that rolled back; must not use the database.
    /// - Returns: A registration to pass to ``removeHook(_:)``.
    @discardableResult
    public func onRollback(_ handler: @escaping @Sendable () -> Void) -> HookRegistration {
        withConnection { $0.hooks.addRollback(handler) }
    }

    /// Stops a hook registered with ``onUpdate(_:)``, ``onCommit(_:)`` or ``onRollback(_:)``.
    ///
    /// - Parameter registration: What the registering call returned.
    /// - Returns: Whether the hook was still registered.
    @discardableResult
    public func removeHook(_ registration: HookRegistration) -> Bool {
        withConnection { $0.hooks.remove(registration) }
    }
}
