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
    private(set) var boundArguments: StatementArguments?
    /// Set while the cache has lent the statement out, so a nested use prepares another.
    var isInUse = false

    /// Parameter names (`:a` → `a`), `nil` for positional ones; read once at prepare time.
    private lazy var parameterNames: [String?] = (0..<parameterCount).map { index in
        guard let cName = sqlite3_bind_parameter_name(handle, Int32(index + 1)) else { return nil }
        let name = String(cString: cName)
        guard let prefix = name.first, prefix == ":" || prefix == "@" || prefix == "$" else { return nil }
        return String(name.dropFirst())
    }

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

    // MARK: - Binding

    /// Binds all parameters at once, checking that every parameter gets exactly one value.
    ///
    /// - Parameter arguments: Positional values for `?` parameters, named values for the others.
    /// - Throws: ``DatabaseError`` with `.misuse` when a parameter has no value or a value has no
    ///   parameter; ``DatabaseError`` from SQLite when a value cannot be bound.
    public func bind(_ arguments: StatementArguments) throws {
        if arguments.named.isEmpty && !hasNamedParameters {
            try bind(positional: arguments)
            return
        }
        var consumer = ArgumentConsumer(arguments)
        try bind(consuming: &consumer)
        try consumer.finish(sql: sql)
    }

    /// The common case, positional values for `?` parameters, without the bookkeeping that
    /// scripts and named parameters need.
    private func bind(positional arguments: StatementArguments) throws {
        let values = arguments.positional
        guard values.count == parameterCount else {
            throw DatabaseError.misuse(
                "wrong number of arguments: \(values.count) positional values for \(parameterCount) parameters",
                sql: sql, arguments: arguments)
        }
        boundArguments = arguments
        for (index, value) in values.enumerated() {
            try bind(value, toParameter: index + 1)
        }
    }

    /// Binds the values of interpolated SQL straight from where the interpolation keeps them,
    /// as ``bind(_:)`` would bind `sql.arguments`, without keeping them for error messages:
    /// the caller, which holds `sql` while the statement runs, adds them to an error (see
    /// `Connection.withBound`). Copying the values into the statement on every run cost more
    /// than binding them.
    ///
    /// - Returns: Whether the values were bound that way; `false` when they were kept, as
    ///   ``bind(_:)`` keeps them (named parameters).
    // Inlined: see `DatabaseContext.forEachModel(_:sql:allocatingAll:collectingAll:_:)`.
    @inline(__always)
    func bindWithoutKeeping(_ sql: SQL) throws -> Bool {
        // The statement's parameters first: reading `sql.named` before that call made the
        // compiler retain and release the dictionary around it, twice per run.
        guard !hasNamedParameters, sql.named.isEmpty else {
            try bind(sql.arguments)
            return false
        }
        guard sql.values.count == parameterCount else {
            throw DatabaseError.misuse(
                "wrong number of arguments: \(sql.values.count) positional values for \(parameterCount) parameters",
                sql: self.sql, arguments: sql.arguments)
        }
        forgetArguments()
        try sql.values.bind(to: self)
        return true
    }

    /// Whether any parameter has a name (`:a`, `@a`, `$a`), read at prepare time: binding
    /// checks it on every run, where a lazy property cost a call.
    private let hasNamedParameters: Bool

    /// Binds the parameters this statement needs from `consumer`, leaving the rest for the next
    /// statement of a script.
    func bind(consuming consumer: inout ArgumentConsumer) throws {
        boundArguments = consumer.arguments
        for index in 0..<parameterCount {
            let value: DatabaseValue
            if let name = parameterNames[index] {
                guard let named = consumer.take(named: name) else {
                    throw DatabaseError.misuse(
                        "missing value for named parameter :\(name)", sql: sql, arguments: consumer.arguments)
                }
                value = named
            } else {
                guard let positional = consumer.takePositional() else {
                    throw DatabaseError.misuse(
                        "wrong number of arguments: the SQL has more parameters than the "
                            + "\(consumer.arguments.positional.count) positional values given",
                        sql: sql, arguments: consumer.arguments)
                }
                value = positional
            }
            try bind(value, toParameter: index + 1)
        }
    }

    /// Binds one value.
    ///
    /// - Parameters:
    ///   - value: The value; text and blobs are copied by SQLite, NUL characters included.
    ///   - index: The 1-based parameter index.
    /// - Throws: ``DatabaseError`` (`.range` for an index out of bounds, `.tooBig` for a value
    ///   over SQLite's length limit).
    public func bind(_ value: DatabaseValue, toParameter index: Int) throws {
        let position = Int32(index)
        let code: Int32
        switch value {
        case .null:
            code = sqlite3_bind_null(handle, position)
        case .integer(let integer):
            code = sqlite3_bind_int64(handle, position, integer)
        case .real(let real):
            // SQLite would store NULL for NaN, silently.
            guard !real.isNaN else { throw ValueConversionError.nanParameter("\(index)") }
            code = sqlite3_bind_double(handle, position, real)
        case .text(let text):
            code = bind(text: text, at: position)
        case .blob(let data):
            code = data.withUnsafeBytes { bytes in
                guard let base = bytes.baseAddress else { return sqlite3_bind_zeroblob(handle, position, 0) }
                return sqlite3_bind_blob64(
                    handle, position, base, sqlite3_uint64(bytes.count), literecord_sqlite_transient())
            }
        }
        if code != SQLITE_OK {
            throw DatabaseError.fromConnection(connectionHandle, code: code, sql: sql)
        }
    }

    /// Binds text, NUL characters included; returns SQLite's code.
    @inline(__always)
    func bind(text: String, at position: Int32) -> Int32 {
        // Native text is read in place; only other text (bridged) is copied to be contiguous,
        // which `withUTF8` needs a mutable copy for, and that copy cost a retain and a release.
        if let code = text.utf8.withContiguousStorageIfAvailable({ bind(utf8: $0, at: position) }) {
            return code
        }
        var text = text
        return text.withUTF8 { bind(utf8: $0, at: position) }
    }

    @inline(__always)
    private func bind(utf8 bytes: UnsafeBufferPointer<UInt8>, at position: Int32) -> Int32 {
        // An empty buffer may have no base address, which SQLite would bind as NULL.
        let base = bytes.baseAddress.map { UnsafeRawPointer($0) } ?? emptyBytes
        return sqlite3_bind_text64(
            handle, position, base.assumingMemoryBound(to: CChar.self), sqlite3_uint64(bytes.count),
            literecord_sqlite_transient(), UInt8(SQLITE_UTF8))
    }

    /// Binds one value to a named parameter.
    ///
    /// - Parameters:
    ///   - value: The value.
    ///   - name: The parameter name with or without its `:`, `@` or `$` prefix.
    /// - Throws: ``DatabaseError`` with `.misuse` when the SQL has no such parameter.
    public func bind(_ value: DatabaseValue, named name: String) throws {
        let bare = name.first.map { ":@$".contains($0) } == true ? String(name.dropFirst()) : name
        guard let index = parameterNames.firstIndex(of: bare) else {
            throw DatabaseError.misuse("no parameter named :\(bare)", sql: sql)
        }
        try bind(value, toParameter: index + 1)
    }

    /// Drops the arguments kept for error messages, so that a cached statement does not keep a
    /// caller's values (a large blob, private text) alive after the call that bound them.
    func forgetArguments() {
        // Usually nothing is kept: assigning nil anyway released two nil references per run.
        if boundArguments != nil { boundArguments = nil }
    }

    /// Sets every parameter back to NULL.
    public func clearBindings() {
        sqlite3_clear_bindings(handle)
        boundArguments = nil
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

/// A valid address for zero bytes of text.
private var emptyBytes: UnsafeRawPointer { UnsafeRawPointer(("" as StaticString).utf8Start) }

/// Hands out the values of a ``StatementArguments`` to the statements of a script, in order,
/// and reports the ones left over.
struct ArgumentConsumer {
    let arguments: StatementArguments
    private var nextPositional = 0
    private var usedNames: Set<String> = []

    init(_ arguments: StatementArguments) {
        self.arguments = arguments
    }

    mutating func takePositional() -> DatabaseValue? {
        guard nextPositional < arguments.positional.count else { return nil }
        defer { nextPositional += 1 }
        return arguments.positional[nextPositional]
    }

    mutating func take(named name: String) -> DatabaseValue? {
        guard let value = arguments.named[name] else { return nil }
        usedNames.insert(name)
        return value
    }

    /// Throws when values were given that no parameter used.
    func finish(sql: String) throws {
        if nextPositional < arguments.positional.count {
            throw DatabaseError.misuse(
                "wrong number of arguments: \(arguments.positional.count) positional values for "
                    + "\(nextPositional) parameters", sql: sql, arguments: arguments)
        }
        let unused = Set(arguments.named.keys).subtracting(usedNames)
        if !unused.isEmpty {
            throw DatabaseError.misuse(
                "no parameter for named values: " + unused.sorted().map { ":" + $0 }.joined(separator: ", "),
                sql: sql, arguments: arguments)
        }
    }
}
