import CSQLite

/// One open SQLite connection: the handle a transaction closure receives.
///
/// A `Connection` is not thread-safe and never needs to be: the ``Database`` that owns it
/// lends it to one closure at a time. Use it inside that closure only; everything you can do
/// with a ``Database`` you can do with it too (see ``DatabaseContext``), and it never waits for
/// a lock, so nothing inside a transaction can deadlock on the database it runs in.
///
/// ## Topics
/// - ``makeStatement(sql:)``
/// - ``lastInsertRowID``
/// - ``changes``
/// - ``totalChanges``
/// - ``isInsideTransaction``
public final class Connection: DatabaseContext {
    let handle: OpaquePointer
    let hooks: ConnectionHooks
    /// Whether SQLite rolled back the transaction that the running closures are in.
    let transactionState = TransactionState()
    /// The settings the connection was opened with.
    public let configuration: Configuration
    /// Whether this connection writes, or serves reads from a ``Database``'s reader pool.
    let role: Role
    /// Set while the connection serves a read that the ``Database`` routed to a reader: a
    /// statement that would write is then sent back to the writer instead of failing.
    var isServingRoutedRead = false
    /// Records the tables that statements read, and keeps deletes row by row; installed on
    /// first need.
    private(set) var authorizer: ConnectionAuthorizer?
    /// Which of its pool's trace handlers a reader has installed (see `ReaderPool`).
    var traceGeneration = 0
    /// How many ``performRead(_:)`` calls are running on this connection.
    var readDepth = 0
    /// The rows the last statement ``execute(_:)`` ran inserted, updated or deleted.
    var lastExecuteChanges = 0
    /// Whether the connection refuses writes for now: a reader, or the writer inside a read.
    var isQueryOnly: Bool { role == .reader || readDepth > 0 }
    /// Unchecked: only this class touches it, from the one thread using the connection, and
    /// the dynamic exclusivity check cost a tenth of running a cached insert.
    @exclusivity(unchecked) private var statementCache: StatementCache
    /// The INSERT, UPDATE and upsert of each model type, found by type: looking them up in
    /// ``statementCache`` would hash their SQL text on every row.
    private(set) var modelStatements: [ModelStatementKey: (sql: String, statement: Statement)] = [:]
    var savepointCounter = 0
    /// Model types whose table this connection has already created or checked, with their
    /// schema: found here, a model operation skips the process-wide cache and its lock.
    var preparedModels: [ObjectIdentifier: TableSchema] = [:]
    /// The schema a read of models by raw SQL last used (``schema(for:)``).
    var lastReadSchema: (type: ObjectIdentifier, schema: TableSchema)?

    /// What a connection is for.
    enum Role {
        /// Reads and writes: a ``Database``'s only writer, or its only connection.
        case writer
        /// Only reads (`PRAGMA query_only`), in a pool of readers of a WAL database.
        case reader
    }

    /// Opens and configures a connection.
    init(location: Location, configuration: Configuration, role: Role = .writer) throws {
        var flags = configuration.readOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE
        if configuration.createIfMissing && !configuration.readOnly { flags |= SQLITE_OPEN_CREATE }
        if case .uri = location { flags |= SQLITE_OPEN_URI }
        // LiteRecord serializes access to a connection itself.
        flags |= SQLITE_OPEN_NOMUTEX

        var openedHandle: OpaquePointer?
        let code = sqlite3_open_v2(location.filename, &openedHandle, flags, nil)
        guard let openedHandle else {
            throw DatabaseError(
                resultCode: ResultCode(rawValue: code), message: "cannot open \(location): out of memory")
        }
        guard code == SQLITE_OK else {
            let error = DatabaseError.fromConnection(openedHandle, code: code)
            sqlite3_close_v2(openedHandle)
            throw DatabaseError(
                resultCode: error.resultCode, message: "cannot open \(location): \(error.message)")
        }
        sqlite3_extended_result_codes(openedHandle, 1)
        self.handle = openedHandle
        self.hooks = ConnectionHooks(connectionHandle: openedHandle)
        self.configuration = configuration
        self.role = role
        self.statementCache = StatementCache(capacity: configuration.statementCacheCapacity)
        do {
            try configure(location: location, configuration: configuration)
        } catch let error as DatabaseError {
            throw DatabaseError(
                resultCode: error.resultCode, message: "cannot open \(location): \(error.message)",
                sql: error.sql)
        }
    }

    deinit {
        authorizer?.uninstall()
        hooks.removeAll()
        modelStatements.removeAll()
        statementCache.removeAll()
        // close_v2 defers the close until statements still held by users are finalized.
        sqlite3_close_v2(handle)
    }

    private func configure(location: Location, configuration: Configuration) throws {
        sqlite3_busy_timeout(handle, configuration.busyTimeoutMilliseconds)
        // Each statement below waits out SQLITE_BUSY that SQLite returns without calling the
        // busy handler (see OpeningBusyWait).
        var busyWait = OpeningBusyWait(timeoutMilliseconds: configuration.busyTimeoutMilliseconds)
        func run(_ sql: SQL) throws { try busyWait.run { try executeScript(sql) } }
        // LiteRecord quotes every identifier with double quotes. SQLite's legacy rule reads a
        // double-quoted name that is no column as text, so a model query on a table that lacks
        // a column (a model newer than the file) compared with a string and returned wrong rows.
        // Schemas (DDL) other tools wrote with such strings keep opening: only statements change.
        let code = literecord_disable_double_quoted_strings_in_dml(handle)
        guard code == SQLITE_OK else {
            throw DatabaseError(
                resultCode: ResultCode(rawValue: code),
                message: "could not turn off double-quoted string literals: "
                    + String(cString: sqlite3_errmsg(handle)))
        }
        try QueryFunctions.register(on: handle)
        try SwiftTextMatch.register(on: handle)
        // Reading the schema now turns "file is not a database" into an error at open time
        // rather than at the first query.
        try run(SQL("SELECT count(*) FROM sqlite_master"))
        // Queries compare dates, UUIDs and decimals through these (see StoredValueFunctions).
        try StoredValueFunctions.register(on: handle)
        try run(
            SQL(configuration.foreignKeys ? "PRAGMA foreign_keys = ON" : "PRAGMA foreign_keys = OFF"))
        // `isReadOnly`, not `configuration.readOnly`: a `mode=ro` URI is read-only too, and
        // setting the journal mode of a read-only database fails.
        if role == .reader {
            // The writer already chose the journal mode; a reader only promises not to write.
            try run(SQL("PRAGMA query_only = ON"))
            return
        }
        guard location.isFileBacked, !isReadOnly else { return }
        // `as String` here and below: `SQL("... \(x)")` alone is an SQL literal that binds `x`
        // as a `?` parameter, and keywords and identifiers cannot be parameters.
        if let journalMode = configuration.journalMode {
            try run(SQL("PRAGMA journal_mode = \(journalMode.rawValue)" as String))
        }
        if let synchronous = configuration.synchronous {
            try run(SQL("PRAGMA synchronous = \(synchronous.rawValue)" as String))
        }
    }

    /// Runs `body` with this connection; lets generic ``DatabaseContext`` code run here.
    public func withConnection<T>(_ body: (Connection) throws -> T) rethrows -> T {
        try body(self)
    }

    // MARK: - State

    /// The rowid of the last row inserted on this connection.
    public var lastInsertRowID: Int64 { sqlite3_last_insert_rowid(handle) }
    /// Rows changed by the last `INSERT`, `UPDATE` or `DELETE` on this connection.
    public var changes: Int { Int(sqlite3_changes64(handle)) }
    /// Rows changed since the connection opened.
    public var totalChanges: Int { Int(sqlite3_total_changes64(handle)) }
    /// Whether the main database refuses writes.
    public var isReadOnly: Bool { sqlite3_db_readonly(handle, "main") == 1 }
    /// Whether a transaction is open (explicit, or a savepoint that started one).
    public var isInsideTransaction: Bool { sqlite3_get_autocommit(handle) == 0 }

    // MARK: - Statements

    /// Prepares a statement that you own: it is not cached and is finalized when released.
    ///
    /// - Parameter sql: Exactly one SQL statement.
    /// - Throws: ``DatabaseError`` with SQLite's message and the SQL when it does not compile,
    ///   or with `.misuse` when `sql` holds more than one statement.
    public func makeStatement(sql: String) throws -> Statement {
        try prepareSingle(sql, persistent: false)
    }

    /// Lends out the cached statement for `sql`, or a fresh one when the cached one is in use
    /// (a nested query of the same SQL); the statement is reset after `body`.
    func withCachedStatement<T>(_ sql: String, _ body: (Statement) throws -> T) throws -> T {
        let statement = try checkOutStatement(forText: sql)
        defer { giveBack(statement) }
        return try body(statement)
    }

    /// The statement for `sql` (see ``withCachedStatement(_:_:)``), marked in use until
    /// ``giveBack(_:)``.
    private func checkOutStatement(forText sql: String) throws -> Statement {
        let statement: Statement
        if authorizer?.isRecordingReads == true {
            // The authorizer only sees statements as they are compiled: record with a fresh one.
            statement = try prepareSingle(sql, persistent: false)
        } else if let cached = statementCache.statement(for: sql) {
            statement = cached.isInUse ? try prepareSingle(sql, persistent: false) : cached
        } else {
            statement = try prepareSingle(sql, persistent: true)
            statementCache.insert(statement, for: sql)
        }
        statement.isInUse = true
        return statement
    }

    /// ``checkOutStatement(forText:)`` for the text of `sql`, found by its literals when it has
    /// them.
    ///
    /// A checkout rather than a closure: a closure over `sql` made the optimizer copy the value
    /// into it and destroy it again, retaining and releasing each of its parts, about a
    /// fifteenth of a fetch of one row by raw SQL.
    // Inlined: see `DatabaseContext.forEachModel(_:sql:allocatingAll:collectingAll:_:)`.
    @inline(__always)
    private func checkOutStatement(for sql: borrowing SQL) throws -> Statement {
        guard authorizer?.isRecordingReads != true, let cached = statementCache.statement(for: sql) else {
            return try checkOutStatement(forText: sql.text)
        }
        let statement = cached.isInUse ? try prepareSingle(sql.text, persistent: false) : cached
        statement.isInUse = true
        return statement
    }

    /// Resets a checked-out statement for its next user.
    private func giveBack(_ statement: Statement) {
        statement.reset()
        statement.forgetArguments()
        statement.isInUse = false
    }

    /// Binds `sql`'s values to `statement` and runs `body`; an error of the statement gets the
    /// arguments, as when the statement keeps them (``Statement/bindWithoutKeeping(_:)``).
    // Inlined: see `DatabaseContext.forEachModel(_:sql:allocatingAll:collectingAll:_:)`.
    @inline(__always)
    private func withBound<T>(_ sql: SQL, to statement: Statement, _ body: (Statement) throws -> T) throws
        -> T
    {
        guard try statement.bindWithoutKeeping(sql) else { return try body(statement) }
        return try naming(sql.arguments, inErrorsOf: statement) { try body(statement) }
    }

    /// Runs `body`, adding `arguments` to the errors of `statement` that come without them.
    ///
    /// Only the statement's own errors: its step (SQLite's error, or the refusal after a
    /// rollback) names its SQL and, the statement not keeping the values it was given, no
    /// arguments.
    func naming<T>(
        _ arguments: @autoclosure () -> StatementArguments, inErrorsOf statement: Statement,
        _ body: () throws -> T
    ) throws -> T {
        do {
            return try body()
        } catch let error as DatabaseError
            where error.arguments == nil && error.backendName == nil && error.sql == statement.sql
        {
            throw DatabaseError(
                resultCode: error.resultCode, message: error.message, sql: error.sql,
                arguments: arguments(),
                sqlState: error.sqlState)
        }
    }

    /// Marks a statement in use for the duration of `body`, then resets it for the next user.
    private func lend<T>(_ statement: Statement, _ body: (Statement) throws -> T) rethrows -> T {
        statement.isInUse = true
        defer {
            statement.reset()
            statement.forgetArguments()
            statement.isInUse = false
        }
        return try body(statement)
    }

    private func prepareSingle(_ sql: String, persistent: Bool) throws -> Statement {
        try Connection.checkNoNUL(in: sql)
        var statementHandle: OpaquePointer?
        var trailingText = false
        let code = sql.withCString { start in
            var tail: UnsafePointer<CChar>?
            let flags = persistent ? UInt32(SQLITE_PREPARE_PERSISTENT) : 0
            let code = sqlite3_prepare_v3(handle, start, -1, flags, &statementHandle, &tail)
            trailingText = tail.map { ScriptScanner.hasStatement(after: $0) } ?? false
            return code
        }
        guard code == SQLITE_OK else {
            throw failure(DatabaseError.fromConnection(handle, code: code, sql: sql))
        }
        guard let statementHandle else {
            throw DatabaseError.misuse("no SQL statement to run", sql: sql)
        }
        let statement = Statement(
            handle: statementHandle, connectionHandle: handle, hooks: hooks,
            transactionState: transactionState,
            sql: sql)
        if trailingText {
            throw DatabaseError.misuse(
                "the SQL holds more than one statement; use execute(sql:) to run a script", sql: sql)
        }
        return statement
    }

    // MARK: - Running SQL

    /// Runs one statement or a script of many, binding the arguments in order across them.
    func execute(_ sql: SQL) throws {
        if let error = sql.conversionError { throw error }
        // One cache lookup: hashing long SQL text is a visible cost on hot paths, and
        // interpolated SQL is found by its literals, without its text.
        guard let cached = statementCache.statement(for: sql) else {
            return try executeScript(sql)
        }
        let statement = cached.isInUse ? try prepareSingle(sql.text, persistent: false) : cached
        try lend(statement) { statement in
            try withBound(sql, to: statement) { try run(countingChanges: $0) }
        }
    }

    /// Runs a statement of ``execute(_:)``, noting in ``lastExecuteChanges`` the rows it
    /// inserted, updated or deleted: `sqlite3_changes` keeps the count of the last such
    /// statement, so a statement that changed nothing (DDL, a `SELECT`) counts 0 by comparing
    /// the total before and after.
    private func run(countingChanges statement: Statement) throws {
        let before = totalChanges
        try statement.run()
        lastExecuteChanges = totalChanges == before ? 0 : changes
    }

    /// Runs one of a model type's fixed statements with `values`, as ``execute(_:)`` would run
    /// `SQL(sql, arguments: StatementArguments(positional: values))`.
    ///
    /// The first run goes through ``execute(_:)`` (same preparation, same errors); the statement
    /// it cached is then kept under `key`, so later rows skip hashing the SQL text.
    func executeModelStatement(_ sql: String, key: ModelStatementKey, values: [DatabaseValue]) throws {
        let arguments = StatementArguments(positional: values)
        guard let entry = modelStatements[key], entry.sql == sql, !entry.statement.isInUse,
            authorizer?.isRecordingReads != true
        else {
            try execute(SQL(sql, arguments: arguments))
            if authorizer?.isRecordingReads != true, let cached = statementCache.statement(for: sql) {
                modelStatements[key] = (sql, cached)
            }
            return
        }
        try lend(entry.statement) { statement in
            try statement.bind(arguments)
            try statement.run()
        }
    }

    /// SQLite reads SQL text as a C string: a NUL character would silently end it early, and
    /// `DELETE FROM t\0 WHERE ...` would run as `DELETE FROM t`.
    private static func checkNoNUL(in sql: String, arguments: StatementArguments? = nil) throws {
        guard sql.utf8.contains(0) else { return }
        throw DatabaseError.misuse(
            "the SQL text holds a NUL character, which would cut it short; bind such values instead",
            sql: sql, arguments: arguments)
    }

    /// Prepares statements one after the other from the text; a single statement is cached so
    /// that the next run of the same SQL skips the parser.
    private func executeScript(_ sql: SQL) throws {
        try Connection.checkNoNUL(in: sql.text, arguments: sql.arguments)
        // Before the first statement runs: a NaN for a later one must not leave a partial write.
        try sql.arguments.refuseNaN()
        var consumer = ArgumentConsumer(sql.arguments)
        try sql.text.withCString { start in
            var cursor = start
            var isFirst = true
            while cursor.pointee != 0 {
                var statementHandle: OpaquePointer?
                var tail: UnsafePointer<CChar>?
                let code = sqlite3_prepare_v2(handle, cursor, -1, &statementHandle, &tail)
                guard code == SQLITE_OK else {
                    throw failure(
                        DatabaseError.fromConnection(
                            handle, code: code, sql: ScriptScanner.excerpt(from: cursor, whole: sql.text),
                            arguments: sql.arguments))
                }
                let next = tail ?? cursor
                defer { cursor = next }
                guard let statementHandle else { continue }  // only spaces or comments
                let text = String(cString: sqlite3_sql(statementHandle))
                let statement = Statement(
                    handle: statementHandle, connectionHandle: handle, hooks: hooks,
                    transactionState: transactionState, sql: text)
                let isLast = !ScriptScanner.hasStatement(after: next)
                let isWholeText = isFirst && isLast
                isFirst = false
                if isWholeText {
                    statementCache.insert(statement, for: sql.text)
                    statement.isInUse = true
                }
                defer {
                    statement.reset()
                    statement.forgetArguments()
                    statement.isInUse = false
                }
                try statement.bind(consuming: &consumer)
                // Values left over are an error before the last statement runs, not after it wrote.
                if isLast { try consumer.finish(sql: sql.text) }
                try run(countingChanges: statement)
            }
        }
        try consumer.finish(sql: sql.text)
    }

    /// Notes a failure to prepare, which can also roll a transaction back (out of memory, I/O).
    private func failure(_ error: DatabaseError) -> DatabaseError {
        transactionState.statementFailed(error, connectionHandle: handle)
        return error
    }

    /// Prepares a single statement from the cache, binds it and hands it to `body` to step.
    func withStatement<T>(_ sql: SQL, _ body: (Statement) throws -> T) throws -> T {
        if let error = sql.conversionError { throw error }
        let statement = try checkOutStatement(for: sql)
        defer { giveBack(statement) }
        if isServingRoutedRead, statement.needsWriter { throw RoutedReadNeedsWriter() }
        return try withBound(sql, to: statement, body)
    }

    // MARK: - Authorizer

    /// Runs `body` and returns the names of the tables its statements read, with the shadow
    /// tables of the virtual tables among them.
    func recordingTablesRead<T>(_ body: () throws -> T) throws -> (T, Set<String>) {
        let authorizer = installAuthorizer()
        authorizer.startRecording()
        let result: T
        do {
            defer { authorizer.stopRecording() }
            result = try body()
        }
        return (result, try addingShadowTables(to: authorizer.tablesRead))
    }

    /// SQLite's update hook never reports a virtual table: an FTS5 or R*Tree table changes
    /// through the shadow tables that hold its data (`docs_data`, `docs_content`, ...), which
    /// the hook does report. So a read of a virtual table counts as a read of its shadow tables.
    /// An external-content FTS5 table kept by triggers changes its shadow tables whenever the
    /// content table changes.
    private func addingShadowTables(to tables: Set<String>) throws -> Set<String> {
        guard !tables.isEmpty else { return tables }
        var shadowTables: [String] = []
        var virtualTables: Set<String> = []
        do {
            // `type` tells shadow tables apart exactly (SQLite 3.37 and later).
            try forEachRow(
                sql: "SELECT name, type FROM pragma_table_list WHERE type IN ('virtual', 'shadow')"
            ) {
                let name = try $0.value(String.self, at: 0)
                if try $0.value(String.self, at: 1) == "virtual" {
                    virtualTables.insert(name)
                } else {
                    shadowTables.append(name)
                }
            }
        } catch let error as DatabaseError where error.primaryResultCode == .error {
            // Older SQLite: shadow tables are those named after a virtual table, `name_suffix`.
            try forEachRow(
                sql: "SELECT name, sql LIKE 'CREATE VIRTUAL TABLE%' FROM sqlite_master WHERE type = 'table'"
            ) {
                let name = try $0.value(String.self, at: 0)
                if try $0.value(Bool.self, at: 1) {
                    virtualTables.insert(name)
                } else {
                    shadowTables.append(name)
                }
            }
        }
        let virtualTablesRead = virtualTables.filter { tables.contains($0) }
        guard !virtualTablesRead.isEmpty else { return tables }
        var expanded = tables
        for shadow in shadowTables where virtualTablesRead.contains(where: { shadow.hasPrefix($0 + "_") }) {
            expanded.insert(shadow)
        }
        return expanded
    }

    /// Makes `DELETE` without `WHERE` delete row by row, so the update hook reports every row
    /// (SQLite's truncate optimization skips the hook). Cached statements are compiled anew.
    func reportEveryDeletedRow() {
        guard authorizer?.preventsTruncateOptimization != true else { return }
        installAuthorizer().preventsTruncateOptimization = true
        modelStatements.removeAll()
        statementCache.removeAll()
    }

    private func installAuthorizer() -> ConnectionAuthorizer {
        if let authorizer { return authorizer }
        let installed = ConnectionAuthorizer(connectionHandle: handle)
        authorizer = installed
        return installed
    }
}

/// Which of a model type's statements: see ``Connection/executeModelStatement(_:key:values:)``.
struct ModelStatementKey: Hashable {
    enum Kind: Hashable {
        case insert, update, upsert
    }

    let model: ObjectIdentifier
    let kind: Kind
}
