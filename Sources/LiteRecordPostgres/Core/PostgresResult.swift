import CLibPQ
import Foundation
import LiteRecord

/// The rows of one statement, copied out of a `PGresult` as LiteRecord's ``DatabaseValue``s,
/// so that LiteRecord's own row decoder reads them exactly as it reads SQLite's.
///
/// Values arrive as text and are converted by the column's type: integers to `.integer`,
/// floating point to `.real`, `boolean` to `.integer` 0/1 (as SQLite stores a `Bool`),
/// `bytea` to `.blob`, a whole `numeric` in `Int64`'s range to `.integer`, everything else
/// (text, other `numeric`s, `jsonb`, dates) to `.text`.
struct PostgresResult {
    let columnNames: [String]
    let rows: [[DatabaseValue]]
    /// The number of rows an INSERT, UPDATE or DELETE changed.
    let changes: Int
    /// Whether the statement was an INSERT, UPDATE, DELETE or MERGE, whose ``changes`` are rows
    /// changed (a SELECT's are rows returned).
    let isDataChange: Bool

    /// The result itself, kept when the statement was run for decoding straight from it
    /// (``PostgresRawResult``); ``columnNames`` and ``rows`` are then empty.
    let raw: PostgresRawResult?

    /// - Parameters:
    ///   - binary: Whether the values are in binary format (the statement was run with
    ///     resultFormat 1, which ``PostgresStatement/binaryResults`` allows only when every
    ///     column's type is one ``ValueKind/binary(oid:)`` knows).
    ///   - keepingResult: Whether to keep the `PGresult` for decoding straight from it
    ///     (``raw``) instead of copying its rows into ``rows``.
    init(
        consuming result: OpaquePointer, connection: OpaquePointer, sql: SQL, binary: Bool = false,
        keepingResult: Bool = false
    ) throws {
        // Owned from here on: cleared when the last reference to it goes.
        let owner = PostgresRawResult(result, sql: sql, binary: binary)
        let status = PQresultStatus(result)
        guard status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK || status == PGRES_EMPTY_QUERY else {
            throw PostgresErrorMapping.error(from: result, connection: connection, sql: sql)
        }
        // A fetch decoding the kept result reads rows, not changes: the tag's count is not
        // parsed for it (a find would pay that at every call).
        changes =
            keepingResult && status == PGRES_TUPLES_OK
            ? Int(PQntuples(result)) : Self.count(PQcmdTuples(result))
        isDataChange = Self.isDataChange(tag: PQcmdStatus(result))
        if keepingResult && status == PGRES_TUPLES_OK {
            raw = owner
            columnNames = []
            rows = []
        } else {
            raw = nil
            (columnNames, rows) = try owner.copiedRows()
        }
    }

    /// The number `PQcmdTuples` spells (as `Int(String(cString:))` reads it, 0 for none), read
    /// in place: no `String` made at every update.
    private static func count(_ text: UnsafePointer<CChar>?) -> Int {
        guard var cursor = text, cursor.pointee != 0 else { return 0 }
        var value = 0
        while cursor.pointee != 0 {
            let digit = Int(cursor.pointee) - 48
            guard (0...9).contains(digit) else { return 0 }
            let (times, overflow) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflowAgain) = times.addingReportingOverflow(digit)
            guard !overflow, !overflowAgain else { return 0 }
            value = sum
            cursor += 1
        }
        return value
    }

    /// Whether a command tag is an INSERT's, UPDATE's, DELETE's or MERGE's, compared in place.
    private static func isDataChange(tag: UnsafePointer<CChar>?) -> Bool {
        guard let tag else { return false }
        return strncmp(tag, "INSERT ", 7) == 0 || strncmp(tag, "UPDATE ", 7) == 0
            || strncmp(tag, "DELETE ", 7) == 0 || strncmp(tag, "MERGE ", 6) == 0
    }

    /// The column list of ``lrRows``, kept by the statement from one result to the next;
    /// `nil` builds one for this result.
    var columns: RowColumns?

    /// The rows as LiteRecord ``Row``s sharing one column list.
    var lrRows: [Row] {
        Row.backendRows(columns: columns ?? RowColumns(names: columnNames), values: rows)
    }

    /// How a column's text (or binary value) is read, by its type's OID (see `pg_type`).
    enum ValueKind {
        case integer, real, boolean, bytes, text
        /// `numeric`: a whole number in `Int64`'s range is an integer (PostgreSQL sums and
        /// averages `bigint`s as `numeric`: `SELECT SUM(score)` then decodes into an `Int`, as on
        /// SQLite); any other stays text, exact for a `Decimal`.
        case numeric
        /// Binary format: a big-endian integer of 2, 4 or 8 bytes, a big-endian `float8`, a
        /// `boolean` byte, `bytea`'s bytes, text's UTF-8 bytes, `jsonb`'s version byte and text.
        case binaryInt2, binaryInt4, binaryInt8, binaryFloat8, binaryBoolean, binaryBytes, binaryText
        case binaryJSONB

        /// The binary reading of a type whose binary form gives the very value its text does;
        /// `nil` for the others (`float4`'s binary value widened to a double differs from its
        /// shortest text read as one; dates, `numeric`, arrays have binary forms of their own).
        static func binary(oid: UInt32) -> ValueKind? {
            switch oid {
            case 21: .binaryInt2
            case 23: .binaryInt4
            case 20: .binaryInt8
            case 701: .binaryFloat8
            case 16: .binaryBoolean
            case 17: .binaryBytes
            case 25, 1043, 1042, 19, 114: .binaryText  // text, varchar, char(n), name, json
            case 3802: .binaryJSONB
            default: nil
            }
        }

        init(oid: UInt32) {
            switch oid {
            case 20, 21, 23, 26: self = .integer  // int8, int2, int4, oid
            case 700, 701: self = .real  // float4, float8
            case 16: self = .boolean
            case 17: self = .bytes
            case 1700: self = .numeric
            default: self = .text
            }
        }

        func value(of bytes: UnsafeRawBufferPointer, column: String, sql: SQL) throws -> DatabaseValue {
            if let value = read(bytes) { return value }
            let text: String
            switch self {
            case .binaryInt2: text = "int2"
            case .binaryInt4: text = "int4"
            case .binaryInt8: text = "int8"
            case .binaryFloat8: text = "float8"
            case .binaryJSONB: text = "jsonb"
            case .bytes: text = "bytea"
            default: text = String(decoding: bytes, as: UTF8.self)
            }
            throw unreadable(text, column: column, sql: sql)
        }

        /// The value of a column's bytes; `nil` when they are not a value of the type (what
        /// ``value(of:column:sql:)`` reports). The one reading both the copied rows and the
        /// in-place decoding (``PostgresLayoutBinding``) use.
        @inline(__always)
        func read(_ bytes: UnsafeRawBufferPointer) -> DatabaseValue? {
            switch self {
            case .binaryInt2:
                guard bytes.count == 2 else { return nil }
                return .integer(Int64(Int16(bigEndian: bytes.loadUnaligned(as: Int16.self))))
            case .binaryInt4:
                guard bytes.count == 4 else { return nil }
                return .integer(Int64(Int32(bigEndian: bytes.loadUnaligned(as: Int32.self))))
            case .binaryInt8:
                guard bytes.count == 8 else { return nil }
                return .integer(Int64(bigEndian: bytes.loadUnaligned(as: Int64.self)))
            case .binaryFloat8:
                guard bytes.count == 8 else { return nil }
                return .real(Double(bitPattern: UInt64(bigEndian: bytes.loadUnaligned(as: UInt64.self))))
            case .binaryBoolean:
                return .integer(bytes.first == 0 ? 0 : 1)
            case .binaryBytes:
                return .blob(Data(bytes))
            case .binaryText:
                return .text(String(decoding: bytes, as: UTF8.self))
            case .binaryJSONB:
                guard bytes.first == 1 else { return nil }
                return .text(
                    String(decoding: UnsafeRawBufferPointer(rebasing: bytes.dropFirst()), as: UTF8.self))
            case .bytes:
                return PostgresResult.bytea(hex: bytes).map { .blob($0) }
            case .integer, .real, .boolean, .text, .numeric:
                break
            }
            let text = String(decoding: bytes, as: UTF8.self)
            switch self {
            case .integer:
                return Int64(text).map { .integer($0) }
            case .real:
                switch text {
                case "NaN": return .real(.nan)
                case "Infinity": return .real(.infinity)
                case "-Infinity": return .real(-.infinity)
                default: return Double(text).map { .real($0) }
                }
            case .boolean:
                return .integer(text == "t" ? 1 : 0)
            case .numeric:
                // `Int64("1.0")` and `Int64("1e3")` are nil: only a whole number's text is read.
                return .some(Int64(text).map { .integer($0) } ?? .text(text))
            default:
                return .text(text)
            }
        }

        private func unreadable(_ text: String, column: String, sql: SQL) -> DatabaseError {
            DatabaseError(
                backendName: "PostgreSQL",
                resultCode: .mismatch,
                message: "column \(column): cannot read PostgreSQL's \(self) text \(text)",
                sql: sql.text)
        }
    }

    /// Decodes `bytea`'s hex output format: `\x` then two hex digits per byte.
    static func bytea(hex bytes: UnsafeRawBufferPointer) -> Data? {
        guard bytes.count >= 2, bytes[0] == UInt8(ascii: "\\"), bytes[1] == UInt8(ascii: "x") else {
            return nil
        }
        func nibble(_ digit: UInt8) -> UInt8? {
            switch digit {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit - UInt8(ascii: "A") + 10
            default: nil
            }
        }
        guard bytes.count % 2 == 0 else { return nil }
        var data = Data(capacity: (bytes.count - 2) / 2)
        var index = 2
        while index < bytes.count {
            guard let high = nibble(bytes[index]), let low = nibble(bytes[index + 1]) else { return nil }
            data.append(high << 4 | low)
            index += 2
        }
        return data
    }
}

/// SQLSTATE codes mapped onto the ``ResultCode`` families SQLite's errors use, so that code
/// matching `.constraintUnique` works on both backends.
package enum PostgresErrorMapping {
    static func error(from result: OpaquePointer, connection: OpaquePointer, sql: SQL) -> DatabaseError {
        func field(_ code: Character) -> String? {
            guard let ascii = code.asciiValue, let pointer = PQresultErrorField(result, Int32(ascii)) else {
                return nil
            }
            return String(cString: pointer)
        }
        let state = field("C") ?? ""
        let message =
            field("M")
            ?? String(cString: PQerrorMessage(connection)).trimmingCharacters(in: .whitespacesAndNewlines)
        let constraint = field("n")
        var text = message
        if let table = field("t"), let column = field("c") {
            text += ": \(table).\(column)"
        } else if let constraint {
            text += ": constraint \(constraint)"
        }
        return DatabaseError(
            backendName: "PostgreSQL",
            resultCode: resultCode(sqlState: state, constraint: constraint), message: text, sql: sql.text,
            arguments: sql.arguments.isEmpty ? nil : sql.arguments, sqlState: state.isEmpty ? nil : state)
    }

    /// The ``ResultCode`` of an SQLSTATE.
    ///
    /// - Parameters:
    ///   - state: The five-character SQLSTATE.
    ///   - constraint: The violated constraint's name, if any (`..._pkey` is the primary key).
    /// - Returns: The code.
    package static func resultCode(sqlState state: String, constraint: String?) -> ResultCode {
        switch state {
        case "23505":
            return constraint?.hasSuffix("_pkey") == true ? .constraintPrimaryKey : .constraintUnique
        case "23503": return .constraintForeignKey
        case "23502": return .constraintNotNull
        case "23514": return .constraintCheck
        case "40001", "40P01": return .busy  // serialization failure, deadlock: retry the transaction
        case "55P03": return .locked  // lock not available
        case "57014": return .interrupt  // query canceled
        case "25006": return .readOnly  // read-only transaction
        case "42501", "28000", "28P01": return .permission
        case "53100": return .full
        case "53200": return .noMemory
        case "54000", "54001": return .tooBig
        // Out of range (an integer overflow) and division by zero: what SQLite reports as
        // SQLITE_ERROR for the same query (`integer overflow`, `division by zero`).
        case "22003", "22012": return .error
        default: break
        }
        switch state.prefix(2) {
        case "23": return .constraint
        case "22": return .mismatch  // data exceptions: a value the column cannot hold
        case "08": return .ioError  // connection exceptions
        case "57", "58": return .ioError
        default: return .error
        }
    }
}
