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
    @exclusivity(unchecked) var statementCache: StatementCache
    /// The INSERT, UPDATE and upsert of each model type, found by type: looking them up in
    /// ``statementCache`` would hash their SQL text on every row.
    var modelStatements: [ModelStatementKey: (sql: String, statement: Statement)] = [:]
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
