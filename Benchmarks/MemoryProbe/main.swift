// LiteRecordMemoryProbe: one child process of the benchmark's `peak-memory` workload.
//
// Usage: LiteRecordMemoryProbe CONTENDER ROWS PATH, where CONTENDER is floor, c, fetchAll or
// forEach. Fetches every row of the ten-integer table at PATH (none for floor), checks the count
// and a checksum against the ROWS rows the benchmark wrote, and prints its `VmHWM` line from
// /proc/self/status. A program of its own rather than the benchmark started again: the
// benchmark links libpq and its dependencies, about 5 MB a SQLite-only application never loads,
// which would be in every contender's peak.

import CSQLite
import Foundation
import LiteRecord
import TenIntsFixture

/// A failure of the probe, printed on standard error.
struct ProbeError: Error, CustomStringConvertible {
    let description: String
}

/// Fetches the rows the contender's way: the count and the checksum of what it read.
func fetch(_ contender: String, rows: Int, path: String) throws -> (count: Int, checksum: Int) {
    switch contender {
    case "floor":
        return (0, 0)
    case "c":
        return try fetchC(rows: rows, path: path)
    case "fetchAll":
        let fetched = try Database(path: path).fetchAll(TenInts.self, sql: SQL(verbatim: TenInts.select))
        return (fetched.count, fetched.reduce(0) { $0 &+ $1.checksum })
    case "forEach":
        var count = 0
        var sum = 0
        try Database(path: path).forEach(TenInts.self, sql: SQL(verbatim: TenInts.select)) { row in
            count += 1
            sum &+= row.checksum
        }
        return (count, sum)
    default:
        throw ProbeError(description: "unknown contender \(contender): floor, c, fetchAll or forEach")
    }
}

/// The hand-written C side: the benchmark's `fetch-10-int` loop, reserving the rows it knows
/// it stored, on a connection set up with the pragmas the benchmark's C side runs.
func fetchC(rows: Int, path: String) throws -> (count: Int, checksum: Int) {
    var connection: OpaquePointer?
    let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX
    guard sqlite3_open_v2(path, &connection, flags, nil) == SQLITE_OK, let connection else {
        throw ProbeError(description: "cannot open \(path)")
    }
    defer { sqlite3_close_v2(connection) }
    let pragmas = "PRAGMA foreign_keys = ON; PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL"
    guard sqlite3_exec(connection, pragmas, nil, nil, nil) == SQLITE_OK else {
        throw ProbeError(description: String(cString: sqlite3_errmsg(connection)))
    }
    var statement: OpaquePointer?
    guard sqlite3_prepare_v2(connection, TenInts.select, -1, &statement, nil) == SQLITE_OK, let statement
    else {
        throw ProbeError(description: String(cString: sqlite3_errmsg(connection)))
    }
    defer { sqlite3_finalize(statement) }
    var values: [TenInts] = []
    values.reserveCapacity(rows)
    var code = sqlite3_step(statement)
    while code == SQLITE_ROW {
        values.append(TenInts(columnsOf: statement))
        code = sqlite3_step(statement)
    }
    guard code == SQLITE_DONE else {
        throw ProbeError(description: String(cString: sqlite3_errmsg(connection)))
    }
    return (values.count, values.reduce(0) { $0 &+ $1.checksum })
}

/// Runs the probe and returns its exit status.
func main() -> Int32 {
    let arguments = CommandLine.arguments.dropFirst()
    guard arguments.count == 3, let rows = Int(arguments[arguments.startIndex + 1]), rows >= 0 else {
        FileHandle.standardError.write(
            Data("usage: LiteRecordMemoryProbe floor|c|fetchAll|forEach ROWS PATH\n".utf8))
        return 2
    }
    let contender = arguments[arguments.startIndex]
    do {
        let (count, checksum) = try fetch(contender, rows: rows, path: arguments[arguments.startIndex + 2])
        let expectedCount = contender == "floor" ? 0 : rows
        let expectedChecksum = (0..<expectedCount).reduce(0) { $0 &+ TenInts(index: $1).checksum }
        guard count == expectedCount, checksum == expectedChecksum else {
            throw ProbeError(
                description: "\(contender) fetched \(count) rows, checksum \(checksum); "
                    + "expected \(expectedCount), checksum \(expectedChecksum)")
        }
        let status = try String(contentsOfFile: "/proc/self/status", encoding: .utf8)
        guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }) else {
            throw ProbeError(description: "no VmHWM line in /proc/self/status")
        }
        print(line)
        return 0
    } catch {
        FileHandle.standardError.write(Data("error: \(error)\n".utf8))
        return 1
    }
}

exit(main())
