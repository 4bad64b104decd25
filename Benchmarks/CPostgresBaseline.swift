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

    /// Calls `body` with the parameter array and its count, valid for its duration.
    @inline(__always)
    func withPointers<R>(_ body: (UnsafePointer<UnsafePointer<CChar>?>?, Int32) -> R) -> R {
        bytes.withUnsafeBufferPointer { buffer in
            let base = UnsafeRawPointer(buffer.baseAddress)?.assumingMemoryBound(to: CChar.self)
            pointers.removeAll(keepingCapacity: true)
            for offset in offsets { pointers.append(base.map { $0 + offset }) }
            return pointers.withUnsafeBufferPointer { body($0.baseAddress, Int32($0.count)) }
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
