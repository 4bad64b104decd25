import CLibPQ
import Foundation
import LiteRecord

/// Rows in the text format of `COPY ... FROM STDIN`, written as the INSERT path's parameters
/// are: every value as the text the column's input function reads (the INSERT path sends the
/// same text as a parameter of unknown type, which the server reads with the same function),
/// escaped for `COPY`.
///
/// A value that the INSERT path refuses, or sends otherwise than as that text, is not written
/// (``append(_:column:)`` returns `false`), so that the caller can leave the whole batch to the
/// INSERT path, which refuses or stores it as it always did.
struct PostgresCopyText {
    /// The rows, each ending with a newline.
    private(set) var bytes: [UInt8] = []
    /// Where each row starts in ``bytes``; a row ends where the next starts (the last at the end).
    private(set) var rowStarts: [Int] = []
    /// Whether the row being written has a value yet (the next is then preceded by a tab).
    private var rowHasValue = false

    init(rows: Int) {
        bytes.reserveCapacity(rows * 64)
        rowStarts.reserveCapacity(rows)
    }

    var rowCount: Int { rowStarts.count }

    /// Forgets the rows, keeping the memory for the next ones.
    mutating func removeAll() {
        bytes.removeAll(keepingCapacity: true)
        rowStarts.removeAll(keepingCapacity: true)
    }

    mutating func beginRow() {
        rowStarts.append(bytes.count)
        rowHasValue = false
    }

    mutating func endRow() {
        bytes.append(UInt8(ascii: "\n"))
    }

    /// The bytes of one row, its newline included.
    func row(_ index: Int) -> ArraySlice<UInt8> {
        bytes[rowStarts[index]..<(index + 1 < rowStarts.count ? rowStarts[index + 1] : bytes.count)]
    }

    /// Appends one value of the row.
    ///
    /// - Parameters:
    ///   - value: The value.
    ///   - column: The column it is stored in: a blob goes only to a column LiteRecord
    ///     declares as one (`bytea`), where its text form reads as the bytes the INSERT path
    ///     sends in binary.
    /// - Returns: `false` for a value this format does not carry as the INSERT path does: NaN
    ///   and text with NUL (which the INSERT path refuses, with its own errors), a blob for a
    ///   column that is not `bytea`.
    mutating func append(_ value: DatabaseValue, column: BackendTable.Column) -> Bool {
        if rowHasValue { bytes.append(UInt8(ascii: "\t")) }
        rowHasValue = true
        switch value {
        case .null:
            bytes.append(UInt8(ascii: "\\"))
            bytes.append(UInt8(ascii: "N"))
        case .integer(let integer):
            Self.appendDecimal(integer, to: &bytes)
        case .real(let real):
            guard !real.isNaN else { return false }
            var text = PostgresParameters.text(of: real)
            text.withUTF8 { bytes.append(contentsOf: $0) }
        case .text(let text):
            var text = text
            return text.withUTF8 { appendEscaped($0) }
        case .blob(let data):
            guard column.declaredType == .blob else { return false }
            // `\x` and hex digits, the backslash doubled for COPY's own unescaping.
            bytes.append(UInt8(ascii: "\\"))
            bytes.append(UInt8(ascii: "\\"))
            bytes.append(UInt8(ascii: "x"))
            let digits: StaticString = "0123456789abcdef"
            digits.withUTF8Buffer { digits in
                for byte in data {
                    bytes.append(digits[Int(byte >> 4)])
                    bytes.append(digits[Int(byte & 0x0F)])
                }
            }
        }
        return true
    }

    /// Appends text with COPY's escapes for backslash, tab, newline and carriage return;
    /// `false` for text with NUL, which PostgreSQL text cannot hold.
    private mutating func appendEscaped(_ text: UnsafeBufferPointer<UInt8>) -> Bool {
        var start = 0
        for index in text.indices {
            let escape: UInt8
            switch text[index] {
            case 0: return false
            case UInt8(ascii: "\\"): escape = UInt8(ascii: "\\")
            case 0x09: escape = UInt8(ascii: "t")
            case 0x0A: escape = UInt8(ascii: "n")
            case 0x0D: escape = UInt8(ascii: "r")
            default: continue
            }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: text[start..<index]))
            bytes.append(UInt8(ascii: "\\"))
            bytes.append(escape)
            start = index + 1
        }
        bytes.append(contentsOf: UnsafeBufferPointer(rebasing: text[start...]))
        return true
    }

    /// Appends an integer's decimal digits (`String(integer)`'s text, without the string).
    static func appendDecimal(_ value: Int64, to bytes: inout [UInt8]) {
        if value < 0 { bytes.append(UInt8(ascii: "-")) }
        var magnitude = value.magnitude
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)  // 24 bytes: UInt64's 20 digits fit
        withUnsafeMutableBytes(of: &digits) { buffer in
            var position = buffer.count
            repeat {
                position -= 1
                buffer[position] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
            } while magnitude > 0
            bytes.append(contentsOf: buffer[position...])
        }
    }
}

extension PostgresConnection {
    /// Runs `COPY ... FROM STDIN` (text format) in a savepoint of the open transaction and
    /// sends it the data `write` produces, or rolls it back when `write` gives up.
    ///
    /// The savepoint and its release are sent in one query with the `COPY`: no round trip of
    /// their own, but for a `COPY` that `write` gives up, rolled back to leave the transaction
    /// as it was.
    ///
    /// - Parameters:
    ///   - sql: The `COPY` statement, without parameters.
    ///   - refusedLine: Called with the line (from 1) of the row the server refused, when its
    ///     error names one; returns the statement to name in the error instead of the `COPY`.
    ///   - write: Produces the data, calling its argument with each piece in order (which
    ///     returns `false` once sending failed); returns `false` to give up the `COPY`.
    /// - Returns: The number of rows the server copied; `nil` when `write` gave up, and nothing
    ///   was copied.
    /// - Throws: ``LiteRecord/DatabaseError`` as ``execute(_:)`` (a constraint violation with
    ///   its SQLSTATE's ``LiteRecord/ResultCode``), ``PostgresConnectionLoss`` for a lost
    ///   connection, what `write` throws; nothing is copied then.
    func copyIn(
        _ sql: SQL, refusedLine: (Int) -> SQL?,
        write: ((UnsafeRawBufferPointer) -> Bool) throws -> Bool
    ) throws -> Int? {
        try sendPendingBegin()
        statementLog?.append(sql)
        let savepoint = "literecord_copy"
        let query = "SAVEPOINT \(savepoint); \(sql.text); RELEASE SAVEPOINT \(savepoint)"
        guard let started = PQexec(handle, query) else {
            _ = try result(of: nil, sql: sql)
            return nil
        }
        guard PQresultStatus(started) == PGRES_COPY_IN else {
            // An error (the table is missing, a view cannot take COPY...): thrown as any
            // statement's.
            let result = try result(of: started, sql: sql)
            throw DatabaseError(
                backendName: "PostgreSQL", resultCode: .error,
                message: "COPY did not start (\(result.changes) rows)", sql: sql.text)
        }
        PQclear(started)
        var sent = true
        var completed = false
        var thrown: (any Error)?
        do {
            completed = try write { piece in
                guard sent, let base = piece.baseAddress, !piece.isEmpty else { return sent }
                sent =
                    PQputCopyData(handle, base.assumingMemoryBound(to: CChar.self), Int32(piece.count)) == 1
                return sent
            }
        } catch {
            thrown = error
        }
        // A COPY given up (or whose data could not be sent) ends with an error of the
        // client's: the server copies nothing, and skips the savepoint's release.
        let abandoned = !sent || !completed
        let ended = PQputCopyEnd(handle, abandoned ? "LiteRecord gave up the COPY" : nil) == 1
        var copied: Int?
        var failure: (any Error)?
        while let next = PQgetResult(handle) {
            guard failure == nil, !abandoned else {
                PQclear(next)
                continue
            }
            let statement = Self.refusedLine(of: next, sql: sql).flatMap(refusedLine) ?? sql
            do {
                let changes = try result(of: next, sql: statement).changes
                copied = copied ?? changes  // the COPY's; the release's comes after it
            } catch {
                failure = error
            }
        }
        if let failure { throw failure }
        guard sent, ended else {
            if PQstatus(handle) != CONNECTION_OK {
                throw PostgresConnectionLoss.error(reason: nil, connection: handle, sql: sql)
            }
            throw DatabaseError(
                backendName: "PostgreSQL", resultCode: .ioError,
                message: String(cString: PQerrorMessage(handle)).trimmingCharacters(
                    in: .whitespacesAndNewlines),
                sql: sql.text)
        }
        if abandoned {
            _ = try execute(
                SQL(verbatim: "ROLLBACK TO SAVEPOINT \(savepoint); RELEASE SAVEPOINT \(savepoint)"))
            if let thrown { throw thrown }
            return nil
        }
        return copied
    }

    /// The line of the row a failed `COPY` refused, read from the error's context
    /// (`COPY name, line 12...`) when the server writes it in English; `nil` otherwise.
    private static func refusedLine(of result: OpaquePointer, sql: SQL) -> Int? {
        guard PQresultStatus(result) == PGRES_FATAL_ERROR,
            let context = PQresultErrorField(result, Int32(UInt8(ascii: "W")))
        else { return nil }
        let text = String(cString: context)
        // The COPY's own target, as the server names it: `COPY "t" (...)` targets t.
        guard text.hasPrefix("COPY "), let marker = text.range(of: ", line ") else { return nil }
        return Int(text[marker.upperBound...].prefix { $0.isASCII && $0.isNumber })
    }

    /// The statement that takes `count` keys from the sequence of a table's automatic key:
    /// `nextval` once per row, as the column's default would have, so that writers sharing the
    /// sequence never get the same key. The sequence is looked up once, in a subquery: called
    /// in every row, `pg_get_serial_sequence` made the statement five times slower. A table
    /// with rules gets no key (so the batch goes through INSERT statements): COPY skips rules.
    static let keyReservation = SQL(
        verbatim: "SELECT nextval(s.sequence) FROM (SELECT pg_get_serial_sequence($1, $2)::regclass "
            + "AS sequence OFFSET 0) AS s, generate_series(1, $3::int8) "
            + "WHERE NOT (SELECT relhasrules FROM pg_class WHERE oid = $1::regclass)")

    /// Sends ``keyReservation`` without waiting for its keys (``reservedKeys(count:)`` reads
    /// them), so that the server takes them while the client encodes the rows.
    ///
    /// - Parameters:
    ///   - table: The table's name.
    ///   - column: The key column's name.
    ///   - count: How many keys.
    func sendKeyReservation(table: String, column: String, count: Int) throws {
        try sendPendingBegin()
        let sql = Self.keyReservation
        let values: [DatabaseValue] = [
            .text(SQL.quoteIdentifier(table)), .text(column), .integer(Int64(count)),
        ]
        let parameters = try PostgresParameters(values, sql: sql)
        let sent = parameters.withCArrays { types, pointers, lengths, formats in
            // Binary results: 8 big-endian bytes per key, nothing to parse.
            PQsendQueryParams(handle, sql.text, Int32(values.count), types, pointers, lengths, formats, 1)
        }
        guard sent == 1 else {
            _ = try result(of: nil, sql: sql)
            return
        }
    }

    /// Whether the result of a statement sent is still on its way (read what arrived without
    /// waiting); `false` also for a broken connection, whose result then says so.
    var isAwaitingResult: Bool {
        PQconsumeInput(handle) == 1 && PQisBusy(handle) == 1
    }

    /// The keys ``sendKeyReservation(table:column:count:)`` asked for, in the order the
    /// sequence gave them; `nil` when the column has no sequence of its own (its default is
    /// something else, which only the INSERT path runs) or the table has rules.
    ///
    /// - Throws: The statement's error (the result is read to its end in every case).
    func reservedKeys(count: Int) throws -> [Int64]? {
        let sql = Self.keyReservation
        var keys: [Int64]? = nil
        var failure: (any Error)?
        while let next = PQgetResult(handle) {
            guard failure == nil, keys == nil else {
                PQclear(next)
                continue
            }
            guard PQresultStatus(next) == PGRES_TUPLES_OK else {
                do { _ = try result(of: next, sql: sql) } catch { failure = error }
                continue
            }
            defer { PQclear(next) }
            guard PQntuples(next) == count, PQnfields(next) == 1, PQftype(next, 0) == 20 else { continue }
            var read: [Int64] = []
            read.reserveCapacity(count)
            for row in 0..<Int32(count) {
                guard PQgetisnull(next, row, 0) == 0, PQgetlength(next, row, 0) == 8,
                    let value = PQgetvalue(next, row, 0)
                else { break }
                read.append(Int64(bigEndian: UnsafeRawPointer(value).loadUnaligned(as: Int64.self)))
            }
            if read.count == count { keys = read }
        }
        if let failure { throw failure }
        if keys == nil, PQstatus(handle) != CONNECTION_OK {
            throw PostgresConnectionLoss.error(reason: nil, connection: handle, sql: sql)
        }
        return keys
    }
}
