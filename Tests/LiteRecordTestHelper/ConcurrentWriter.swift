import Foundation
import LiteRecord

/// A row written by one of several concurrent writer processes.
struct TaggedRow: Model {
    var id: Int64?
    var writer: String
    var sequence: Int
    var payload: String
    static let schema = Schema<TaggedRow>(table: "tagged", indexes: [[\.writer, \.sequence]])
}

/// How many explicit transactions a writer has committed, counted inside those transactions.
struct WriterTally: Model {
    var writer: String
    var transactions: Int
    static let schema = Schema<WriterTally>(table: "tallies", primaryKey: \.writer)
}

/// Inserts `count` rows tagged with `writerID` into a file that other processes write at the
/// same time, relying on the busy timeout (the default 5 s) to wait for their locks.
///
/// Rows go in three ways, in turn: a single insert in its own (autocommit) transaction, a
/// batch of up to 5 rows with `insert(contentsOf:)`, and an explicit immediate transaction that
/// inserts a row and increments the writer's tally (a read-modify-write, hence `.immediate`: a
/// deferred transaction that reads before it writes can fail with `SQLITE_BUSY_SNAPSHOT`
/// when another process commits in between, which no busy timeout can wait out). It prints
/// `done <count> tallied <transactions>` at the end.
struct ConcurrentWriter {
    let path: String
    let writerID: String
    let count: Int
    let waitForGo: Bool
    let meetsHalfway: Bool

    func run() throws {
        let db = try Database(path: path)
        if waitForGo {
            printFlushed("ready")
            _ = readLine()
        }
        var sequence = 0
        var step = 0
        var tallied = 0
        var hasMet = !meetsHalfway
        while sequence < count {
            if !hasMet && sequence >= count / 2 {
                try waitForAnotherWriter(in: db)
                hasMet = true
            }
            switch step % 3 {
            case 0:
                var row = makeRow(sequence)
                try db.insert(&row)
                sequence += 1
            case 1:
                let batch = (sequence..<min(sequence + 5, count)).map(makeRow)
                try db.insert(contentsOf: batch)
                sequence += batch.count
            default:
                try db.transaction(.immediate) { tx in
                    var row = makeRow(sequence)
                    try tx.insert(&row)
                    var tally =
                        try tx.find(WriterTally.self, id: writerID)
                        ?? WriterTally(writer: writerID, transactions: 0)
                    tally.transactions += 1
                    try tx.save(&tally)
                }
                tallied += 1
                sequence += 1
            }
            step += 1
        }
        printFlushed("done \(count) tallied \(tallied)")
    }

    /// Polls until a row of another writer is committed, for at most a minute.
    private func waitForAnotherWriter(in db: Database) throws {
        let deadline = Date().addingTimeInterval(60)
        while try !db.query(TaggedRow.self).where({ $0.writer != writerID }).exists() {
            guard Date() < deadline else {
                throw NoOtherWriter()
            }
            usleep(2_000)
        }
    }

    private func makeRow(_ sequence: Int) -> TaggedRow {
        TaggedRow(id: nil, writer: writerID, sequence: sequence, payload: "\(writerID)-\(sequence)")
    }
}

/// Another writer was expected halfway through, and none wrote within a minute.
struct NoOtherWriter: Error, CustomStringConvertible {
    var description: String { "no other writer wrote a row within 60 s" }
}
