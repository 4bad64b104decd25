import Foundation
import LiteRecord

/// One row of a numbered transaction. Transaction `n` inserts ``parts(of:)`` rows numbered `n`.
///
/// The kill test (Tests/LiteRecordTests/Reliability/KillTests.swift) checks the rows against the
/// same formulas: keep ``parts(of:)`` and ``payload(number:part:)`` in sync with it.
struct KillEntry: Model {
    var id: Int64?
    var number: Int
    var part: Int
    var payload: String

    static let schema = Schema<KillEntry>(table: "entries", indexes: [[\.number]])
        .uniqueTogether([\.number, \.part])

    /// Rows per transaction: 3, and 40 every 50th transaction, so that some transactions span
    /// many pages and the write-ahead log grows past its checkpoint threshold.
    static func parts(of number: Int) -> Int {
        number % 50 == 0 ? 40 : 3
    }

    /// A payload of 0 to 2,999 bytes, different for every row, that can be checked exactly.
    static func payload(number: Int, part: Int) -> String {
        let length = (number &* 7919 &+ part &* 104_729) % 3000
        let letter = Character(UnicodeScalar(UInt8(97 + (number + part) % 26)))
        return "\(number).\(part):" + String(repeating: letter, count: length)
    }
}

/// The single row that counts the transactions; updated in every transaction.
struct KillProgress: Model {
    var id: Int64?
    var lastNumber: Int
    static let schema = Schema<KillProgress>(table: "progress")
}

/// Writes numbered transactions until it is killed.
///
/// It uses the default configuration: WAL journal with `synchronous = NORMAL`. NORMAL skips the
/// fsync at each commit, which can lose the last commits on a power loss or OS crash, but not
/// when only the process dies: a commit has been written to the WAL file (in the OS page cache)
/// before `COMMIT` returns, and the OS keeps those writes when the process is SIGKILLed. So every
/// commit acknowledged with `committed <n>` must survive the kill.
struct KillWriter {
    let path: String

    func run() throws {
        let db = try Database(path: path)
        try db.migrate(KillEntry.self)
        try db.migrate(KillProgress.self)
        var number = (try db.fetchOne(Int.self, sql: "SELECT coalesce(max(number), 0) FROM entries") ?? 0) + 1
        printFlushed("ready \(number)")
        while true {
            try db.transaction { tx in
                for part in 0..<KillEntry.parts(of: number) {
                    var entry = KillEntry(
                        id: nil, number: number, part: part,
                        payload: KillEntry.payload(number: number, part: part))
                    try tx.insert(&entry)
                }
                var progress = KillProgress(id: 1, lastNumber: number)
                try tx.save(&progress)
            }
            printFlushed("committed \(number)")
            number += 1
        }
    }
}
