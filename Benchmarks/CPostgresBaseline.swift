import CLibPQ
import Foundation

/// A failed libpq call on the C side of a PostgreSQL benchmark.
///
/// As with ``CBaselineError``, every result status is checked: a baseline that silently did less
/// work than LiteRecord would make every ratio wrong.
struct CPostgresError: Error, CustomStringConvertible {
    /// The libpq function that failed, such as `PQexecParams`.
    let function: String
    /// The server's or libpq's message.
    let message: String
    /// The SQL involved, when there was one.
    let sql: String?

    var description: String {
        var text = "C baseline: \(function) failed: \(message)"
        if let sql { text += " — while executing `\(sql)`" }
        return text
    }
}

/// A libpq connection set up exactly as LiteRecordPostgres sets up each of its connections:
/// client encoding UTF-8, then `SET datestyle = 'ISO'; SET extra_float_digits = 1;
/// SET standard_conforming_strings = on` in one simple query.
final class CPostgresConnection {
    let handle: OpaquePointer

    /// Connects.
    ///
    /// - Parameter url: A libpq connection string or URL.
    /// - Throws: ``CPostgresError`` when the server cannot be reached.
    init(url: String) throws {
        guard let handle = PQconnectdb(url) else {
            throw CPostgresError(function: "PQconnectdb", message: "out of memory", sql: nil)
        }
        guard PQstatus(handle) == CONNECTION_OK else {
            let message = String(cString: PQerrorMessage(handle))
            PQfinish(handle)
            throw CPostgresError(function: "PQconnectdb", message: message, sql: nil)
        }
        self.handle = handle
        _ = PQsetClientEncoding(handle, "UTF8")
        try execute("SET datestyle = 'ISO'; SET extra_float_digits = 1; SET standard_conforming_strings = on")
    }

    deinit {
        PQfinish(handle)
    }

    /// Runs SQL without parameters through the simple-query protocol (`PQexec`), as
    /// LiteRecordPostgres runs SQL that has no arguments, ignoring any rows.
    ///
    /// - Parameter sql: One statement or a script.
    /// - Throws: ``CPostgresError`` when it fails.
    func execute(_ sql: String) throws {
        try query(sql) { _ in }
    }

    /// Runs SQL without parameters (`PQexec`) and reads its result in `body`.
    ///
    /// - Parameters:
    ///   - sql: The query.
    ///   - body: Reads the `PGresult`, which is cleared when it returns.
    /// - Returns: What `body` returns.
    /// - Throws: ``CPostgresError`` when the statement fails; what `body` throws.
    func query<T>(_ sql: String, _ body: (OpaquePointer) throws -> T) throws -> T {
        try consume(PQexec(handle, sql), function: "PQexec", sql: sql, body)
    }

    /// Runs one statement with text parameters (`PQexecParams`: no parameter types, so the
    /// server infers them, text format in and out), as LiteRecordPostgres binds numbers and
    /// strings, and reads its result in `body`.
    ///
    /// - Parameters:
    ///   - sql: The statement, with `$1`, `$2`, ... parameters.
    ///   - parameters: The values, as text.
    ///   - body: Reads the `PGresult`, which is cleared when it returns.
    /// - Returns: What `body` returns.
    /// - Throws: ``CPostgresError`` when the statement fails; what `body` throws.
    func query<T>(_ sql: String, _ parameters: CPostgresParameters, _ body: (OpaquePointer) throws -> T)
        throws -> T
    {
        let result = parameters.withPointers { values, count in
            PQexecParams(handle, sql, count, nil, values, nil, nil, 0)
        }
        return try consume(result, function: "PQexecParams", sql: sql, body)
    }

    /// The names of the statements ``preparedName(_:types:)`` prepared, by SQL text.
    private var prepared: [String: String] = [:]

    /// The name of `sql` prepared on this connection, preparing it on first use, as a program
    /// that runs a statement many times does.
    ///
    /// - Parameters:
    ///   - sql: The statement, with `$n` parameters.
    ///   - types: The parameters' type OIDs (0: inferred by the server).
    /// - Returns: The prepared statement's name.
    /// - Throws: ``CPostgresError`` when the server refuses it.
    func preparedName(_ sql: String, types: [UInt32] = []) throws -> String {
        if let name = prepared[sql] { return name }
        let name = "c_\(prepared.count + 1)"
        try prepare(name, sql, types: types)
        prepared[sql] = name
        return name
    }

    /// Prepares a named statement (`PQprepare`).
    ///
    /// - Parameters:
    ///   - name: The statement's name.
    ///   - sql: The statement, with `$n` parameters.
    ///   - types: The parameters' type OIDs (0: inferred by the server).
    /// - Throws: ``CPostgresError`` when the server refuses it.
    func prepare(_ name: String, _ sql: String, types: [UInt32]) throws {
        let result = types.withUnsafeBufferPointer {
            PQprepare(handle, name, sql, Int32($0.count), $0.baseAddress)
        }
        try consume(result, function: "PQprepare", sql: sql) { _ in }
    }

    /// Runs a prepared statement (`PQexecPrepared`) with parameters already laid out as libpq
    /// takes them, and reads its result in `body`.
    ///
    /// - Parameters:
    ///   - name: The prepared statement's name.
    ///   - values: One pointer per parameter.
    ///   - lengths: The byte count of each (binary parameters).
    ///   - formats: 0 (text) or 1 (binary) per parameter.
    ///   - resultFormat: 0 for text results, 1 for binary.
    ///   - body: Reads the `PGresult`, which is cleared when it returns.
    /// - Returns: What `body` returns.
    /// - Throws: ``CPostgresError`` when the statement fails; what `body` throws.
    @inline(__always)
    func queryPrepared<T>(
        _ name: String, values: UnsafePointer<UnsafePointer<CChar>?>, lengths: UnsafePointer<Int32>?,
        formats: UnsafePointer<Int32>?, count: Int32, resultFormat: Int32, _ body: (OpaquePointer) throws -> T
    ) throws -> T {
        let result = PQexecPrepared(handle, name, count, values, lengths, formats, resultFormat)
        return try consume(result, function: "PQexecPrepared", sql: name, body)
    }

    /// Runs a statement without parameters through the extended protocol with binary results
    /// (`PQexecParams`, resultFormat 1), and reads its result in `body`.
    func queryBinary<T>(_ sql: String, _ body: (OpaquePointer) throws -> T) throws -> T {
        try consume(
            PQexecParams(handle, sql, 0, nil, nil, nil, nil, 1), function: "PQexecParams", sql: sql, body)
    }

    /// Runs `COPY ... FROM STDIN` and sends `data` as its rows (`PQputCopyData` in chunks of
    /// 64 KiB, then `PQputCopyEnd`), checking the command's result.
    ///
    /// - Parameters:
    ///   - sql: The `COPY` statement.
    ///   - data: The rows, in the statement's format.
    /// - Returns: The number of rows copied (`PQcmdTuples`).
    /// - Throws: ``CPostgresError`` when the server refuses the statement or the rows.
    func copyIn(_ sql: String, _ data: [UInt8]) throws -> Int {
        guard let start = PQexec(handle, sql) else {
            throw CPostgresError(
                function: "PQexec", message: String(cString: PQerrorMessage(handle)), sql: sql)
        }
        let status = PQresultStatus(start)
        let startMessage = String(cString: PQresultErrorMessage(start))
        PQclear(start)
        guard status == PGRES_COPY_IN else {
            throw CPostgresError(function: "PQexec", message: startMessage, sql: sql)
        }
        try data.withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return }
            var offset = 0
            while offset < buffer.count {
                let length = min(65_536, buffer.count - offset)
                let sent = UnsafeRawPointer(base + offset).withMemoryRebound(to: CChar.self, capacity: length)
                {
                    PQputCopyData(handle, $0, Int32(length))
                }
                guard sent == 1 else {
                    throw CPostgresError(
                        function: "PQputCopyData", message: String(cString: PQerrorMessage(handle)), sql: sql)
                }
                offset += length
            }
        }
        guard PQputCopyEnd(handle, nil) == 1 else {
            throw CPostgresError(
                function: "PQputCopyEnd", message: String(cString: PQerrorMessage(handle)), sql: sql)
        }
        var copied = 0
        while let result = PQgetResult(handle) {
            defer { PQclear(result) }
            guard PQresultStatus(result) == PGRES_COMMAND_OK else {
                throw CPostgresError(
                    function: "PQgetResult", message: String(cString: PQresultErrorMessage(result)), sql: sql)
            }
            copied = Int(strtol(PQcmdTuples(result), nil, 10))
        }
        return copied
    }

    private func consume<T>(
        _ result: OpaquePointer?, function: String, sql: String, _ body: (OpaquePointer) throws -> T
    ) throws -> T {
        guard let result else {
            throw CPostgresError(
                function: function, message: String(cString: PQerrorMessage(handle)), sql: sql)
        }
        defer { PQclear(result) }
        let status = PQresultStatus(result)
        guard status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK else {
            throw CPostgresError(
                function: function, message: String(cString: PQresultErrorMessage(result)), sql: sql)
        }
        return try body(result)
    }
}

/// Text parameters for `PQexecParams`, NUL-terminated, one after the other in one buffer that
/// is reused from statement to statement (so a row costs no allocation once it has grown).
final class CPostgresParameters {
    private var bytes: [UInt8] = []
    private var offsets: [Int] = []
    private var pointers: [UnsafePointer<CChar>?] = []

    init() {
        bytes.reserveCapacity(1024)
    }

    /// Forgets the previous statement's values.
    @inline(__always)
    func removeAll() {
        bytes.removeAll(keepingCapacity: true)
        offsets.removeAll(keepingCapacity: true)
    }

    /// Appends a text value.
    @inline(__always)
    func append(_ text: String) {
        offsets.append(bytes.count)
        bytes.append(contentsOf: text.utf8)
        bytes.append(0)
    }

    /// Appends UTF-8 bytes (such as `JSONEncoder` output) as a text value.
    @inline(__always)
    func append(utf8 data: Data) {
        offsets.append(bytes.count)
        bytes.append(contentsOf: data)
        bytes.append(0)
    }

    /// Appends bytes (hand-written JSON, a date's text) as a text value.
    @inline(__always)
    func append(bytes value: UnsafeBufferPointer<UInt8>) {
        offsets.append(bytes.count)
        bytes.append(contentsOf: value)
        bytes.append(0)
    }

    /// Appends an integer's decimal digits, written by hand.
    @inline(__always)
    func append(integer value: Int64) {
        offsets.append(bytes.count)
        CDecimal.append(value, to: &bytes)
        bytes.append(0)
    }

    /// Calls `body` with the parameter array and its count, valid for its duration.
    @inline(__always)
    func withPointers<R>(_ body: (UnsafePointer<UnsafePointer<CChar>?>?, Int32) throws -> R) rethrows -> R {
        try bytes.withUnsafeBufferPointer { buffer in
            let base = UnsafeRawPointer(buffer.baseAddress)?.assumingMemoryBound(to: CChar.self)
            pointers.removeAll(keepingCapacity: true)
            for offset in offsets { pointers.append(base.map { $0 + offset }) }
            return try pointers.withUnsafeBufferPointer { try body($0.baseAddress, Int32($0.count)) }
        }
    }
}

/// Reading a text-format `PGresult` field by field, as a hand-written libpq program does.
enum CPostgresField {
    /// The field's bytes (`PQgetvalue`, `PQgetlength`), valid until the result is cleared.
    @inline(__always)
    static func bytes(_ result: OpaquePointer, _ row: Int32, _ column: Int32) -> UnsafeBufferPointer<UInt8> {
        let pointer = UnsafeRawPointer(PQgetvalue(result, row, column))
        return UnsafeBufferPointer(
            start: pointer?.assumingMemoryBound(to: UInt8.self), count: Int(PQgetlength(result, row, column)))
    }

    /// The field as a `String`.
    @inline(__always)
    static func string(_ result: OpaquePointer, _ row: Int32, _ column: Int32) -> String {
        String(decoding: bytes(result, row, column), as: UTF8.self)
    }

    /// The field as an integer (`strtoll`).
    @inline(__always)
    static func int64(_ result: OpaquePointer, _ row: Int32, _ column: Int32) -> Int64 {
        strtoll(PQgetvalue(result, row, column), nil, 10)
    }

    /// The field as a double (`strtod`; PostgreSQL's shortest exact digits read back exactly).
    @inline(__always)
    static func double(_ result: OpaquePointer, _ row: Int32, _ column: Int32) -> Double {
        strtod(PQgetvalue(result, row, column), nil)
    }

    /// A `boolean` field: `t` or `f`.
    @inline(__always)
    static func bool(_ result: OpaquePointer, _ row: Int32, _ column: Int32) -> Bool {
        PQgetvalue(result, row, column)?.pointee == CChar(UInt8(ascii: "t"))
    }

    /// Whether the field is NULL.
    @inline(__always)
    static func isNull(_ result: OpaquePointer, _ row: Int32, _ column: Int32) -> Bool {
        PQgetisnull(result, row, column) != 0
    }

    /// The result's column names, in order.
    static func columnNames(_ result: OpaquePointer) -> [String] {
        (0..<PQnfields(result)).map { String(cString: PQfname(result, $0)) }
    }
}

/// Reading a binary-format `PGresult` field by field, as a hand-written libpq program does:
/// integers and doubles in network byte order, `boolean` one byte, text its UTF-8 bytes,
/// `jsonb` a version byte (1) before its text.
enum CPostgresBinaryField {
    @inline(__always)
    static func pointer(_ result: OpaquePointer, _ row: Int32, _ column: Int32) -> UnsafeRawPointer {
        UnsafeRawPointer(PQgetvalue(result, row, column)!)
    }

    /// An `int8` field.
    @inline(__always)
    static func int64(_ result: OpaquePointer, _ row: Int32, _ column: Int32) -> Int64 {
        Int64(bigEndian: pointer(result, row, column).loadUnaligned(as: Int64.self))
    }

    /// A `float8` field.
    @inline(__always)
    static func double(_ result: OpaquePointer, _ row: Int32, _ column: Int32) -> Double {
        Double(bitPattern: UInt64(bigEndian: pointer(result, row, column).loadUnaligned(as: UInt64.self)))
    }

    /// A `boolean` field.
    @inline(__always)
    static func bool(_ result: OpaquePointer, _ row: Int32, _ column: Int32) -> Bool {
        pointer(result, row, column).load(as: UInt8.self) != 0
    }

    /// A `text` field's bytes, or a `jsonb` field's text after its version byte (`skip` 1).
    @inline(__always)
    static func bytes(_ result: OpaquePointer, _ row: Int32, _ column: Int32, skip: Int = 0)
        -> UnsafeBufferPointer<UInt8>
    {
        let start = pointer(result, row, column).assumingMemoryBound(to: UInt8.self) + skip
        return UnsafeBufferPointer(start: start, count: Int(PQgetlength(result, row, column)) - skip)
    }
}

/// Rows of `COPY ... FROM STDIN` in text format, written into one byte buffer by hand: fields
/// separated by tabs, rows ended by a newline, a backslash, tab, newline or carriage return in a
/// value escaped with a backslash (PostgreSQL's "Text Format" of `COPY`).
struct CCopyText {
    private(set) var bytes: [UInt8] = []

    init(capacity: Int) {
        bytes.reserveCapacity(capacity)
    }

    /// A text value, escaped.
    @inline(__always)
    mutating func append<C: Collection<UInt8>>(text: C) {
        for byte in text {
            switch byte {
            case UInt8(ascii: "\\"):
                bytes.append(UInt8(ascii: "\\"))
                bytes.append(UInt8(ascii: "\\"))
            case 0x09:
                bytes.append(UInt8(ascii: "\\"))
                bytes.append(UInt8(ascii: "t"))
            case 0x0A:
                bytes.append(UInt8(ascii: "\\"))
                bytes.append(UInt8(ascii: "n"))
            case 0x0D:
                bytes.append(UInt8(ascii: "\\"))
                bytes.append(UInt8(ascii: "r"))
            default: bytes.append(byte)
            }
        }
    }

    /// A string, escaped.
    @inline(__always)
    mutating func append(string: String) {
        var string = string
        string.withUTF8 { append(text: $0) }
    }

    /// An integer in decimal.
    @inline(__always)
    mutating func append(integer value: Int64) {
        CDecimal.append(value, to: &bytes)
    }

    /// A double with 17 significant digits (`%.17g`), which reads back as the same double.
    @inline(__always)
    mutating func append(double value: Double) {
        var digits: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
        withUnsafeMutableBytes(of: &digits) { buffer in
            let base = buffer.baseAddress!.assumingMemoryBound(to: CChar.self)
            let count = withVaList([value]) { vsnprintf(base, 32, "%.17g", $0) }
            bytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: buffer[0..<Int(count)]))
        }
    }

    /// Raw bytes that need no escaping (a date's digits and separators).
    @inline(__always)
    mutating func append(raw: UnsafeBufferPointer<UInt8>) {
        bytes.append(contentsOf: raw)
    }

    /// One byte that needs no escaping.
    @inline(__always)
    mutating func append(byte: UInt8) { bytes.append(byte) }

    @inline(__always)
    mutating func endField() { bytes.append(0x09) }

    @inline(__always)
    mutating func endRow() { bytes.append(0x0A) }
}

/// An integer's decimal digits appended to a byte buffer by hand (the digits written backwards
/// into a small stack buffer first).
enum CDecimal {
    @inline(__always)
    static func append(_ value: Int64, to bytes: inout [UInt8]) {
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)  // 24 bytes: 20 digits fit
        withUnsafeMutableBytes(of: &digits) { buffer in
            var magnitude = value.magnitude
            var index = buffer.count
            repeat {
                index -= 1
                buffer[index] = 0x30 &+ UInt8(magnitude % 10)
                magnitude /= 10
            } while magnitude > 0
            if value < 0 { bytes.append(UInt8(ascii: "-")) }
            bytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: buffer[index...]))
        }
    }
}
