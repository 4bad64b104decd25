import CSQLite

/// A failed `sqlite3_*` call on the C side of a benchmark.
///
/// The C baseline is the yardstick: if it silently did less work than LiteRecord, every ratio
/// would be wrong. So every result code is checked, and a failure stops the whole run.
struct CBaselineError: Error, CustomStringConvertible {
    /// The C function that failed, such as `sqlite3_step`.
    let function: String
    /// Its (extended) result code.
    let code: Int32
    /// SQLite's message for the connection, or our own explanation.
    let message: String
    /// The SQL involved, when there was one.
    let sql: String?

    var description: String {
        var text = "C baseline: \(function) failed with code \(code)"
        if let name = sqlite3_errstr(code) { text += " (\(String(cString: name)))" }
        text += ": \(message)"
        if let sql { text += " — while executing `\(sql)`" }
        return text
    }
}

/// A connection opened exactly the way LiteRecord's default ``Configuration`` opens a file
/// database: read-write, created when missing, no SQLite mutex, extended result codes, a 5 s
/// busy timeout, `foreign_keys = ON`, `journal_mode = WAL`, `synchronous = NORMAL`.
///
/// `PragmaParity` checks at start-up that both sides really end up with the same settings.
final class CDatabase {
    let handle: OpaquePointer

    /// The busy timeout LiteRecord uses by default (`Configuration.busyTimeout`, 5 s).
    static let busyTimeoutMilliseconds: Int32 = 5000

    /// Opens and configures a database file.
    ///
    /// - Parameter path: The file to open; created when missing.
    /// - Throws: ``CBaselineError`` when SQLite cannot open or configure it.
    init(path: String) throws {
        var openedHandle: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX
        let code = sqlite3_open_v2(path, &openedHandle, flags, nil)
        guard let openedHandle else {
            throw CBaselineError(function: "sqlite3_open_v2", code: code, message: "out of memory", sql: nil)
        }
        guard code == SQLITE_OK else {
            let message = String(cString: sqlite3_errmsg(openedHandle))
            sqlite3_close_v2(openedHandle)
            throw CBaselineError(
                function: "sqlite3_open_v2", code: code, message: "\(path): \(message)", sql: nil)
        }
        handle = openedHandle
        sqlite3_extended_result_codes(handle, 1)
        try check(sqlite3_busy_timeout(handle, Self.busyTimeoutMilliseconds), "sqlite3_busy_timeout")
        // The same statements, in the same order, as LiteRecord's `Connection.configure`.
        try execute("SELECT count(*) FROM sqlite_master")
        try execute("PRAGMA foreign_keys = ON")
        try execute("PRAGMA journal_mode = WAL")
        try execute("PRAGMA synchronous = NORMAL")
    }

    deinit {
        // close_v2 also copes with statements that are finalized after it.
        sqlite3_close_v2(handle)
    }

    /// Prepares a statement meant to be reused (`SQLITE_PREPARE_PERSISTENT`, as LiteRecord's
    /// statement cache does).
    ///
    /// - Parameter sql: Exactly one SQL statement.
    /// - Throws: ``CBaselineError`` when it does not compile.
    func prepare(_ sql: String) throws -> CStatement {
        var statementHandle: OpaquePointer?
        let code = sqlite3_prepare_v3(
            handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statementHandle, nil)
        try check(code, "sqlite3_prepare_v3", sql: sql)
        guard let statementHandle else {
            throw CBaselineError(
                function: "sqlite3_prepare_v3", code: SQLITE_MISUSE, message: "no SQL statement", sql: sql)
        }
        return CStatement(handle: statementHandle, database: self, sql: sql)
    }

    /// Prepares, runs to completion and finalizes one statement, ignoring any rows.
    ///
    /// - Parameter sql: Exactly one SQL statement.
    /// - Throws: ``CBaselineError`` when it fails to compile or to run.
    func execute(_ sql: String) throws {
        let statement = try prepare(sql)
        while try statement.step() {}
    }

    /// The first column of the first row of a query, as text (`nil` for NULL or no row).
    ///
    /// - Parameter sql: A query.
    /// - Throws: ``CBaselineError`` when it fails.
    func text(_ sql: String) throws -> String? {
        let statement = try prepare(sql)
        guard try statement.step() else { return nil }
        return statement.text(at: 0)
    }

    /// The first column of the first row of a query, as an integer.
    ///
    /// - Parameter sql: A query that returns at least one row.
    /// - Throws: ``CBaselineError`` when it fails or returns no row.
    func int64(_ sql: String) throws -> Int64 {
        let statement = try prepare(sql)
        guard try statement.step() else {
            throw CBaselineError(function: "sqlite3_step", code: SQLITE_DONE, message: "no row", sql: sql)
        }
        return statement.int64(at: 0)
    }

    /// Runs a script of several statements with `sqlite3_exec` (used to build Northwind).
    ///
    /// - Parameter script: SQL statements separated by semicolons.
    /// - Throws: ``CBaselineError`` for the first statement that fails.
    func executeScript(_ script: String) throws {
        var message: UnsafeMutablePointer<CChar>?
        let code = sqlite3_exec(handle, script, nil, nil, &message)
        defer { sqlite3_free(message) }
        guard code == SQLITE_OK else {
            let text = message.map { String(cString: $0) } ?? String(cString: sqlite3_errmsg(handle))
            throw CBaselineError(function: "sqlite3_exec", code: code, message: text, sql: nil)
        }
    }

    /// The rowid of the last successful insert (`sqlite3_last_insert_rowid`).
    @inline(__always)
    var lastInsertRowID: Int64 { sqlite3_last_insert_rowid(handle) }

    /// The rows changed by the last INSERT, UPDATE or DELETE (`sqlite3_changes`).
    @inline(__always)
    var changes: Int { Int(sqlite3_changes(handle)) }

    /// Throws unless `code` is `SQLITE_OK`.
    @inline(__always)
    func check(_ code: Int32, _ function: @autoclosure () -> String, sql: String? = nil) throws {
        guard code == SQLITE_OK else {
            throw CBaselineError(
                function: function(), code: code, message: String(cString: sqlite3_errmsg(handle)), sql: sql)
        }
    }
}

/// A prepared statement of the C side: bind, step, reset, all checked.
final class CStatement {
    let handle: OpaquePointer
    let database: CDatabase
    let sql: String

    init(handle: OpaquePointer, database: CDatabase, sql: String) {
        self.handle = handle
        self.database = database
        self.sql = sql
    }

    deinit {
        sqlite3_finalize(handle)
    }

    /// Binds an integer to a 1-based parameter.
    @inline(__always)
    func bind(_ value: Int64, at index: Int32) throws {
        try database.check(sqlite3_bind_int64(handle, index, value), "sqlite3_bind_int64", sql: sql)
    }

    /// Binds a double to a 1-based parameter.
    @inline(__always)
    func bind(_ value: Double, at index: Int32) throws {
        try database.check(sqlite3_bind_double(handle, index, value), "sqlite3_bind_double", sql: sql)
    }

    /// Binds text to a 1-based parameter; SQLite copies the UTF-8 bytes (`SQLITE_TRANSIENT`),
    /// as LiteRecord does.
    @inline(__always)
    func bind(_ value: String, at index: Int32) throws {
        var value = value
        let code = value.withUTF8 { bytes in
            let base = bytes.baseAddress.map { UnsafeRawPointer($0) } ?? emptyText
            return sqlite3_bind_text64(
                handle, index, base.assumingMemoryBound(to: CChar.self), sqlite3_uint64(bytes.count),
                literecord_sqlite_transient(), UInt8(SQLITE_UTF8))
        }
        try database.check(code, "sqlite3_bind_text64", sql: sql)
    }

    /// Binds NULL to a 1-based parameter.
    @inline(__always)
    func bindNull(at index: Int32) throws {
        try database.check(sqlite3_bind_null(handle, index), "sqlite3_bind_null", sql: sql)
    }

    /// Binds UTF-8 bytes (such as `JSONEncoder` output) as text to a 1-based parameter; SQLite
    /// copies them (`SQLITE_TRANSIENT`).
    @inline(__always)
    func bindText(_ bytes: UnsafeRawBufferPointer, at index: Int32) throws {
        let base = bytes.baseAddress ?? emptyText
        let code = sqlite3_bind_text64(
            handle, index, base.assumingMemoryBound(to: CChar.self), sqlite3_uint64(bytes.count),
            literecord_sqlite_transient(), UInt8(SQLITE_UTF8))
        try database.check(code, "sqlite3_bind_text64", sql: sql)
    }

    /// The names of the result columns, in order.
    var columnNames: [String] {
        (0..<sqlite3_column_count(handle)).map { index in
            sqlite3_column_name(handle, index).map { String(cString: $0) } ?? ""
        }
    }

    /// Steps once.
    ///
    /// - Returns: `true` for a row, `false` when done.
    /// - Throws: ``CBaselineError`` for any other result.
    @discardableResult
    @inline(__always)
    func step() throws -> Bool {
        let code = sqlite3_step(handle)
        if code == SQLITE_DONE { return false }
        if code == SQLITE_ROW { return true }
        throw CBaselineError(
            function: "sqlite3_step", code: code, message: String(cString: sqlite3_errmsg(database.handle)),
            sql: sql)
    }

    /// Steps a statement that returns no rows (`INSERT`, `UPDATE`, ...).
    ///
    /// - Throws: ``CBaselineError`` when it fails or unexpectedly returns a row.
    @inline(__always)
    func run() throws {
        if try step() {
            throw CBaselineError(
                function: "sqlite3_step", code: SQLITE_ROW, message: "unexpected row", sql: sql)
        }
    }

    /// Makes the statement ready to run again; bindings are kept.
    @inline(__always)
    func reset() throws {
        try database.check(sqlite3_reset(handle), "sqlite3_reset", sql: sql)
    }

    /// A column of the current row as an integer.
    @inline(__always)
    func int64(at index: Int32) -> Int64 {
        sqlite3_column_int64(handle, index)
    }

    /// A column of the current row as a double.
    @inline(__always)
    func double(at index: Int32) -> Double {
        sqlite3_column_double(handle, index)
    }

    /// Whether a column of the current row is NULL.
    @inline(__always)
    func isNull(at index: Int32) -> Bool {
        sqlite3_column_type(handle, index) == SQLITE_NULL
    }

    /// The UTF-8 bytes of a column of the current row (`sqlite3_column_text`, then
    /// `sqlite3_column_bytes`), empty for NULL; valid until the next step or reset.
    @inline(__always)
    func textBytes(at index: Int32) -> UnsafeBufferPointer<UInt8> {
        guard let bytes = sqlite3_column_text(handle, index) else {
            return UnsafeBufferPointer(start: nil, count: 0)
        }
        return UnsafeBufferPointer(start: bytes, count: Int(sqlite3_column_bytes(handle, index)))
    }

    /// A column of the current row as a `String` of its full byte length (NUL characters
    /// included; invalid UTF-8 repaired), empty for NULL.
    @inline(__always)
    func string(at index: Int32) -> String {
        String(decoding: textBytes(at: index), as: UTF8.self)
    }

    /// A column of the current row as text, `nil` for NULL.
    func text(at index: Int32) -> String? {
        guard let bytes = sqlite3_column_text(handle, index) else { return nil }
        return String(cString: bytes)
    }
}

/// A valid address for zero bytes of text (an empty buffer may have no base address, which
/// SQLite would bind as NULL).
private var emptyText: UnsafeRawPointer { UnsafeRawPointer(("" as StaticString).utf8Start) }
