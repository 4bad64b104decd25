import CSQLite
import Foundation

/// A prepared SQL statement: bind values, step through rows, read columns, reset, repeat.
///
/// Most code never sees one: `execute`, `fetchAll` and the model layer prepare statements
/// through the connection's cache. Reach for ``Connection/makeStatement(sql:)`` when you want to
/// drive SQLite's prepare–bind–step–reset cycle yourself.
///
/// Parameter indexes are 1-based, as in SQLite; column indexes are 0-based.
/// A statement belongs to its connection: use it only inside the closure that handed you
/// the connection.
///
/// ## Topics
/// - ``bind(_:)``
/// - ``bind(_:toParameter:)``
/// - ``bind(_:named:)``
/// - ``step()``
/// - ``reset()``
/// - ``value(at:)``
/// - ``columnIndex(named:)``
public final class Statement {
    let handle: OpaquePointer
    let connectionHandle: OpaquePointer
    let hooks: ConnectionHooks
    /// The transaction state of the connection, checked before each step.
    let transactionState: TransactionState
    /// The SQL text the statement was prepared from.
    public let sql: String
    /// The arguments bound last, kept for error messages.
    var boundArguments: StatementArguments?
    /// Set while the cache has lent the statement out, so a nested use prepares another.
    var isInUse = false

    /// Parameter names (`:a` → `a`), `nil` for positional ones; read once at prepare time.
    lazy var parameterNames: [String?] = (0..<parameterCount).map { index in
        guard let cName = sqlite3_bind_parameter_name(handle, Int32(index + 1)) else { return nil }
        let name = String(cString: cName)
        guard let prefix = name.first, prefix == ":" || prefix == "@" || prefix == "$" else { return nil }
        return String(name.dropFirst())
    }

    /// Whether any parameter has a name (`:a`, `@a`, `$a`), read at prepare time: binding
    /// checks it on every run, where a lazy property cost a call.
    let hasNamedParameters: Bool

    /// Result column names and a name → index table, read once per statement, and again after
    /// SQLite re-prepared it for a schema change (`SELECT *` after `ALTER TABLE ADD COLUMN`).
    var columns: RowColumns {
        let reprepareCount = sqlite3_stmt_status(handle, SQLITE_STMTSTATUS_REPREPARE, 0)
        if let cachedColumns, reprepareCount == cachedColumnsReprepareCount { return cachedColumns }
        let columns = RowColumns(names: (0..<columnCount).map { columnName(at: $0) })
        cachedColumns = columns
        cachedColumnsReprepareCount = reprepareCount
        return columns
    }
    private var cachedColumns: RowColumns?
    private var cachedColumnsReprepareCount: Int32 = 0

    /// Whether `columns` are this statement's current ``columns``: compared in place, without
    /// taking a reference to them (a retain and a release on every fetch of one row by key).
    func hasColumns(identicalTo columns: RowColumns?) -> Bool {
        guard let columns, columns === cachedColumns else { return false }
        return sqlite3_stmt_status(handle, SQLITE_STMTSTATUS_REPREPARE, 0) == cachedColumnsReprepareCount
    }
    /// What the last fetch learned about decoding its type, kept for the next execution.
    var decodingPlan: DecodingPlan?

    init(
        handle: OpaquePointer, connectionHandle: OpaquePointer, hooks: ConnectionHooks,
        transactionState: TransactionState, sql: String
    ) {
        self.handle = handle
        self.connectionHandle = connectionHandle
        self.hooks = hooks
        self.transactionState = transactionState
        self.sql = sql
        let parameterCount = Int(sqlite3_bind_parameter_count(handle))
        self.parameterCount = parameterCount
        self.hasNamedParameters = (0..<parameterCount).contains { index in
            guard let name = sqlite3_bind_parameter_name(handle, Int32(index + 1)) else { return false }
            // As ``parameterNames`` reads them: `?NNN` is positional.
            let prefix = UInt8(bitPattern: name.pointee)
            return prefix == UInt8(ascii: ":") || prefix == UInt8(ascii: "@") || prefix == UInt8(ascii: "$")
        }
    }

    deinit {
        sqlite3_finalize(handle)
    }

    /// The number of parameters (`?`, `:name`, ...) in the SQL.
    public let parameterCount: Int
    /// The number of result columns (0 for statements that return no rows).
    public var columnCount: Int { Int(sqlite3_column_count(handle)) }
    /// Whether the statement leaves the database unchanged.
    public var isReadOnly: Bool { sqlite3_stmt_readonly(handle) != 0 }

    /// Whether the statement reads or writes only its connection's state, nothing in the file:
    /// a `PRAGMA` (`PRAGMA foreign_keys` read on a reader would not tell the writer's).
    private(set) lazy var isPragma: Bool = {
        let text = sql.utf8.drop { $0 == UInt8(ascii: " ") || (9...13).contains($0) }
        return text.prefix(6).map { $0 | 0x20 }.elementsEqual("pragma".utf8)
    }()

    /// Whether the statement must run on the writer rather than on a reader: it writes, or
    /// reads per-connection state.
    var needsWriter: Bool { !isReadOnly || isPragma }

    /// The name of a result column.
    ///
    /// - Parameter index: A 0-based column index below ``columnCount``.
    public func columnName(at index: Int) -> String {
        guard let cName = sqlite3_column_name(handle, Int32(index)) else { return "" }
        return String(cString: cName)
    }

    /// The 0-based index of a result column, matched exactly, else ignoring ASCII case as SQL does.
    ///
    /// - Parameter name: A result column name.
    /// - Returns: The index, or `nil` when there is no such column.
    public func columnIndex(named name: String) -> Int? {
        columns.index(of: name)
    }
    // MARK: - Stepping

    /// Runs the statement to its next row.
    ///
    /// Inside a transaction closure whose transaction SQLite rolled back after an error (an
    /// `ON CONFLICT ROLLBACK` constraint, `RAISE(ROLLBACK)`, an interrupt, a full disk), the
    /// statement is not run: it would commit on its own.
    ///
    /// - Returns: `true` when a row is available for reading, `false` when the statement is done.
    /// - Throws: ``DatabaseError`` with SQLite's code and message, the SQL and the arguments;
    ///   ``ResultCode/abortRollback`` for a statement refused after SQLite rolled back the
    ///   transaction, naming the error that made it roll back.
    @discardableResult
    public func step() throws -> Bool {
        if transactionState.refusesStatements {
            throw transactionState.refusal(sql: sql, arguments: boundArguments)
        }
        let code = sqlite3_step(handle)
        if hooks.hasPendingCommit {
            hooks.statementFinished(succeeded: code == SQLITE_DONE || code == SQLITE_ROW)
        }
        switch code {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default:
            let error = DatabaseError.fromConnection(
                connectionHandle, code: code, sql: sql, arguments: boundArguments)
            transactionState.statementFailed(error, connectionHandle: connectionHandle)
            throw error
        }
    }

    /// Steps until the statement is done, ignoring any rows.
    ///
    /// - Throws: ``DatabaseError`` as ``step()`` does.
    public func run() throws {
        while try step() {}
    }

    /// Makes the statement ready to run again; bindings are kept.
    ///
    /// SQLite repeats the last step's error here, which ``step()`` already reported, so it is
    /// not reported twice.
    public func reset() {
        let code = sqlite3_reset(handle)
        // A write left before its last row (`fetchOne` of `INSERT ... RETURNING`) commits here,
        // in autocommit mode, not in a step: report that commit now, not after the next step.
        if hooks.hasPendingCommit {
            hooks.statementFinished(succeeded: code == SQLITE_OK)
        }
    }

    // MARK: - Reading the current row

    /// The storage class SQLite holds in a column of the current row (`SQLITE_INTEGER`, ...).
    @inline(__always)
    func storageClass(at index: Int) -> Int32 {
        sqlite3_column_type(handle, Int32(index))
    }

    /// A column of the current row as a 64-bit integer, with SQLite's own conversion.
    @inline(__always)
    func int64(at index: Int) -> Int64 {
        sqlite3_column_int64(handle, Int32(index))
    }

    /// A column of the current row as a double, with SQLite's own conversion.
    @inline(__always)
    func double(at index: Int) -> Double {
        sqlite3_column_double(handle, Int32(index))
    }

    /// A text column of the current row, read with its byte length so NUL characters survive.
    ///
    /// - Returns: `nil` when the bytes are not valid UTF-8.
    @inline(__always)
    func text(at index: Int) -> String? {
        Statement.text(of: sqlite3_column_value(handle, Int32(index)))
    }

    /// The text of a column value, read with its byte length so NUL characters survive.
    ///
    /// - Returns: `nil` when the bytes are not valid UTF-8.
    @inline(__always)
    static func text(of value: OpaquePointer?) -> String? {
        guard let bytes = sqlite3_value_text(value) else { return "" }
        let count = Int(sqlite3_value_bytes(value))
        let buffer = UnsafeBufferPointer(start: bytes, count: count)
        // ASCII is valid UTF-8, and the plain decoding initializer is several times cheaper
        // than the validating one; most stored text is ASCII.
        if Statement.isASCII(buffer) { return String(decoding: buffer, as: UTF8.self) }
        return String(validating: buffer, as: UTF8.self)
    }

    /// Whether every byte is below 0x80, eight bytes at a time.
    @inline(__always)
    static func isASCII(_ buffer: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = buffer.baseAddress else { return true }
        let raw = UnsafeRawPointer(base)
        var offset = 0
        var accumulated: UInt64 = 0
        while offset + 8 <= buffer.count {
            accumulated |= raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
            offset += 8
        }
        while offset < buffer.count {
            accumulated |= UInt64(buffer[offset])
            offset += 1
        }
        return accumulated & 0x8080_8080_8080_8080 == 0
    }

    /// The bytes of a TEXT or BLOB column, for JSON decoding without an intermediate `String`.
    @inline(__always)
    func jsonBytes(at index: Int) -> Data? {
        let type = storageClass(at: index)
        guard type == SQLITE_TEXT || type == SQLITE_BLOB else { return nil }
        return data(at: index)
    }

    /// The bytes of a column of the current row (text or blob).
    @inline(__always)
    func data(at index: Int) -> Data {
        let position = Int32(index)
        guard let bytes = sqlite3_column_blob(handle, position) else { return Data() }
        return Data(bytes: bytes, count: Int(sqlite3_column_bytes(handle, position)))
    }

    /// A column of the current row as a ``DatabaseValue`` of its storage class.
    ///
    /// - Parameter index: A 0-based column index.
    /// - Throws: ``DatabaseError`` with `.range` when there is no such column, or ``ValueConversionError``
    ///   when text is not valid UTF-8 (read it as `Data` instead).
    public func value(at index: Int) throws -> DatabaseValue {
        guard index >= 0, index < columnCount else {
            throw DatabaseError(
                resultCode: .range,
                message: "no column at index \(index): the row has \(columnCount) columns",
                sql: sql)
        }
        switch storageClass(at: index) {
        case SQLITE_NULL: return .null
        case SQLITE_INTEGER: return .integer(int64(at: index))
        case SQLITE_FLOAT: return .real(double(at: index))
        case SQLITE_TEXT:
            guard let text = text(at: index) else {
                throw ValueConversionError(
                    value: .blob(data(at: index)), to: String.self, reason: "the TEXT is not valid UTF-8")
            }
            return .text(text)
        default: return .blob(data(at: index))
        }
    }

    /// A copy of the current row.
    ///
    /// - Throws: ``ValueConversionError`` when a text column is not valid UTF-8.
    public func row() throws -> Row {
        var values: [DatabaseValue] = []
        values.reserveCapacity(columnCount)
        for index in 0..<columnCount {
            values.append(try value(at: index))
        }
        return Row(columns: columns, values: values)
    }
}
