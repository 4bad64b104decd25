import Foundation
import LiteRecord
import LiteRecordTestSupport
import Testing

/// A running total per author, kept in the same transaction as the author's notes.
private struct Tally: Model, Equatable {
    var id: Int64
    var count: Int

    static let schema = Schema<Tally>(table: "tallies", primaryKey: \.id)
}

@Suite("Concurrency stress", .offCooperativePool)
struct StressTests {
    static let taskCount = 8
    static let operationsPerTask = 5_000

    /// 8 tasks × 5,000 mixed operations on one file database. Each task owns the notes of its
    /// author number and keeps that author's tally in the same transaction as its notes, so
    /// any snapshot must show every tally equal to its author's note count.
    @Test func mixedOperationsFromConcurrentTasksStayConsistent() async throws {
        try await withTemporaryDirectory { dir in
            let db = try Database(path: dir.file("stress.sqlite"))
            try await db.write { connection in
                try connection.migrate(Note.self)
                for author in 0..<Self.taskCount {
                    try connection.insert(Tally(id: Int64(author), count: 0))
                }
            }
            let expectedCounts = try await withThrowingTaskGroup(of: (Int, Int).self) { group in
                for author in 0..<Self.taskCount {
                    group.addTask { (author, try await Self.work(on: db, author: author)) }
                }
                var counts: [Int: Int] = [:]
                for try await (author, count) in group { counts[author] = count }
                return counts
            }
            for author in 0..<Self.taskCount {
                let notes = try await db.query(Note.self).where { $0.author == author }.count()
                #expect(notes == expectedCounts[author])
                #expect(try await db.find(Tally.self, id: author)?.count == expectedCounts[author])
            }
            #expect(try await db.count(Note.self) == expectedCounts.values.reduce(0, +))
            let integrity = try await db.read {
                try $0.firstValue(String.self, sql: "PRAGMA integrity_check")
            }
            #expect(integrity == "ok")
        }
    }

    /// Runs one task's operations and returns how many notes its author should have.
    private static func work(on db: Database, author: Int) async throws -> Int {
        var random = StressRandom(seed: UInt64(author) &* 0x9E37_79B9 &+ 1)
        var expected = 0
        for step in 0..<operationsPerTask {
            switch random.next() % 100 {
            case 0..<35:
                try await db.write { connection in
                    try connection.insert(Note(id: nil, author: author, body: "note \(step)"))
                    try connection.execute(sql: "UPDATE tallies SET count = count + 1 WHERE id = \(author)")
                }
                expected += 1
            case 35..<50:
                try await db.write { connection in
                    guard var note = try connection.query(Note.self).where({ $0.author == author }).fetchOne()
                    else {
                        return
                    }
                    note.body = "updated \(step)"
                    try connection.update(note)
                }
            case 50..<60:
                let deleted = try await db.write { connection in
                    guard let note = try connection.query(Note.self).where({ $0.author == author }).fetchOne()
                    else {
                        return false
                    }
                    try connection.delete(note)
                    try connection.execute(sql: "UPDATE tallies SET count = count - 1 WHERE id = \(author)")
                    return true
                }
                if deleted { expected -= 1 }
            case 60..<85:
                // Every author's tally matches its notes in one snapshot, whatever others do.
                let consistent = try await db.read { connection in
                    let tallies = try connection.fetchAll(Tally.self)
                    let counts = try connection.fetchAll(
                        Row.self, sql: "SELECT author, count(*) FROM notes GROUP BY author")
                    var notesByAuthor: [Int64: Int] = [:]
                    for row in counts {
                        notesByAuthor[try row.value(Int64.self, at: 0)] = try row.value(Int.self, at: 1)
                    }
                    return tallies.allSatisfy { notesByAuthor[$0.id, default: 0] == $0.count }
                }
                #expect(consistent, "inconsistent snapshot at step \(step) of task \(author)")
            default:
                // This task's own committed writes are visible to its next read.
                let count = try await db.query(Note.self).where { $0.author == author }.count()
                #expect(count == expected, "task \(author) step \(step)")
            }
        }
        return expected
    }
}

/// SplitMix64: every run performs the same operations.
private struct StressRandom: RandomNumberGenerator {
    var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var mixed = state
        mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
        mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
        return mixed ^ (mixed >> 31)
    }
}
