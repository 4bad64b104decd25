import Foundation
import LiteRecord
import Testing

private struct Memo: Model, Equatable {
    var id: Int64?
    var title: String
    var weight: Double
    var tags: [String]
    static let schema = Schema<Memo>(table: "memos")
}

private struct Number: Decodable, Equatable {
    var value: Int
    var label: String
}

/// A database whose `numbers` table the tests fill with ``fillNumbers(_:count:)``.
private func numbersDatabase() throws -> Database {
    let db = try Database(.inMemory)
    try db.execute(sql: "CREATE TABLE numbers(value INTEGER NOT NULL, label TEXT NOT NULL)")
    return db
}

/// Replaces the rows of `numbers` with `count` rows: value `i`, label `label i`.
private func fillNumbers(_ db: Database, count: Int) throws {
    try db.execute(sql: "DELETE FROM numbers")
    try db.execute(
        sql: """
            WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i + 1 < \(count))
            INSERT INTO numbers SELECT i, 'label ' || i FROM n WHERE \(count) > 0
            """)
}

/// `fetchAll` builds rows of a type decoded in place straight into the array's memory, sized
/// from the statement's previous fetch: it must hold every row whatever the count did since.
@Suite struct FetchAllInPlaceTests {
    private func note(_ index: Int) -> Memo {
        Memo(id: nil, title: "note \(index) é", weight: Double(index) / 4, tags: ["t\(index)"])
    }

    @Test func repeatedFetchesFollowTheRowCountUpAndDown() throws {
        #expect(RowDecoder.decodesInPlace(Memo.self))
        let db = try Database(.inMemory)
        var expected: [Memo] = []
        for count in [0, 1, 3, 40, 17, 200, 2, 0, 65] {
            _ = try db.query(Memo.self).deleteAll()
            expected = []
            for index in 0..<count {
                var added = note(index)
                try db.insert(&added)
                expected.append(added)
            }
            #expect(try db.fetchAll(Memo.self) == expected)
            #expect(try db.query(Memo.self).order { $0.id }.fetchAll() == expected)
            #expect(try db.fetchAll(Memo.self, sql: "SELECT * FROM memos ORDER BY id") == expected)
            // Counted by SQL, not by the decoded array.
            #expect(try db.fetchOne(Int.self, sql: "SELECT count(*) FROM memos") == count)
        }
    }

    /// A row that fails after rows holding strings and arrays were built: the error is the
    /// row's, and the next fetch on the same statement is whole.
    @Test func aFailingRowAfterBuiltRowsThrowsItsErrorAndTheNextFetchIsWhole() throws {
        let db = try Database(.inMemory)
        for index in 0..<50 {
            var added = note(index)
            try db.insert(&added)
        }
        try db.execute(sql: "UPDATE memos SET weight = 'heavy' WHERE id = 30")
        do {
            _ = try db.fetchAll(Memo.self)
            Issue.record("expected the row with text in `weight` to fail")
        } catch let error as RowDecodingError {
            #expect(error.column == "weight")
            #expect(error.isTypeMismatch)
        }
        try db.execute(sql: "UPDATE memos SET weight = 7.5 WHERE id = 30")
        let all = try db.fetchAll(Memo.self)
        #expect(all.count == 50)
        #expect(all[29].weight == 7.5)
        #expect(all[49].tags == ["t49"])
    }

    /// Once a statement's decoding plan is made, a fetch builds its rows without a decoding
    /// session: a row the in-place read declines, in a later fetch, is still decoded by
    /// `init(from:)` (the session made on demand), to the same value or the same error, and
    /// the rows around it are intact.
    @Test func aDeclinedRowInALaterFetchIsDecodedByItsInitializer() throws {
        let db = try Database(.inMemory)
        for index in 0..<40 {
            var added = note(index)
            try db.insert(&added)
        }
        let sql: SQL = "SELECT * FROM memos ORDER BY id"
        let first = try db.fetchAll(Memo.self, sql: sql)
        #expect(first.count == 40)
        // JSON as another tool writes it, with spaces and an escape: the in-place read leaves
        // it to the general parser.
        try db.execute(sql: #"UPDATE memos SET tags = '[ "a\u00e9" , "b" ]' WHERE id IN (3, 25)"#)
        var expected = first
        expected[2].tags = ["aé", "b"]
        expected[24].tags = ["aé", "b"]
        #expect(try db.fetchAll(Memo.self, sql: sql) == expected)

        try db.execute(sql: "UPDATE memos SET weight = 'heavy' WHERE id = 30")
        do {
            _ = try db.fetchAll(Memo.self, sql: sql)
            Issue.record("expected the row with text in `weight` to fail")
        } catch let error as RowDecodingError {
            #expect(error.column == "weight")
            #expect(error.isTypeMismatch)
            #expect("\(error)".contains("Memo"))
        }
        #expect(try db.fetchAll(Memo.self, sql: "SELECT * FROM memos WHERE id <> 30 ORDER BY id").count == 39)
    }

    /// Row counts at, just below and just above each size the array grows to (16, 32, 64, ...),
    /// each fetched right after a different count: every row is kept once, in order, and a
    /// result much smaller than the previous one does not keep the previous one's capacity.
    @Test func rowCountsAroundEachGrowthKeepEveryRowOnce() throws {
        let db = try numbersDatabase()
        #expect(RowDecoder.decodesInPlace(Number.self))
        for count in [16, 0, 15, 16, 17, 31, 32, 33, 64, 5_000, 3, 65, 1_024, 1_025, 1] {
            try fillNumbers(db, count: count)
            let numbers = try db.fetchAll(Number.self, sql: "SELECT value, label FROM numbers ORDER BY value")
            let expected = (0..<count).map { Number(value: $0, label: "label \($0)") }
            #expect(numbers == expected, "\(count) rows")
            // No more than the doubling leaves spare, whatever the previous fetch returned.
            #expect(numbers.capacity <= max(2 * count, 512), "\(count) rows")
        }
    }

    /// A row that fails after the array grew several times: the error is the row's, and the
    /// rows already moved to the larger memory are destroyed once (the address sanitizer
    /// run of this suite checks the memory).
    @Test func aFailingRowAfterSeveralGrowthsThrowsItsError() throws {
        let db = try Database(.inMemory)
        for index in 0..<1_500 {
            var added = note(index)
            try db.insert(&added)
        }
        try db.execute(sql: "UPDATE memos SET weight = 'heavy' WHERE id = 1000")
        do {
            _ = try db.fetchAll(Memo.self, sql: "SELECT * FROM memos WHERE id > 0")
            Issue.record("expected the row with text in `weight` to fail")
        } catch let error as RowDecodingError {
            #expect(error.column == "weight")
            #expect(error.isTypeMismatch)
        }
        try db.execute(sql: "UPDATE memos SET weight = 7.5 WHERE id = 1000")
        let all = try db.fetchAll(Memo.self, sql: "SELECT * FROM memos WHERE id > 0")
        #expect(all.count == 1_500)
        #expect(all[999].weight == 7.5)
        #expect(all[1_499].tags == ["t1499"])
    }

    /// Past its first megabyte a fetch keeps rows in blocks mapped from the system, then moves
    /// them once into an array of the exact count: every row once, in order, with strings
    /// intact, at each count around the threshold and across several blocks, whatever the
    /// previous fetch returned.
    @Test func rowsPastTheFirstMegabyteMoveOnceIntoAnArrayOfTheirCount() throws {
        let db = try numbersDatabase()
        #expect(RowDecoder.decodesInPlace(Number.self))
        let stride = MemoryLayout<Number>.stride
        let rowsPerMegabyte = (1 << 20) / stride
        // The first fetch starts from 16 rows and doubles: the array is full at a power of two.
        var firstFullArray = 16
        while firstFullArray < rowsPerMegabyte { firstFullArray *= 2 }
        let counts = [
            firstFullArray - 1, firstFullArray, firstFullArray + 1, 3 * rowsPerMegabyte + 7, 10,
            5 * rowsPerMegabyte, 5 * rowsPerMegabyte + 1, 40,
        ]
        for count in counts {
            try fillNumbers(db, count: count)
            let numbers = try db.fetchAll(Number.self, sql: "SELECT value, label FROM numbers ORDER BY value")
            #expect(numbers.count == count)
            #expect(numbers == (0..<count).map { Number(value: $0, label: "label \($0)") }, "\(count) rows")
            // The allocator rounds a large array up to its page at most.
            #expect(numbers.capacity - numbers.count <= max(4096 / stride + 1, count), "\(count) rows")
            if count > 2 * rowsPerMegabyte {
                #expect(numbers.capacity - numbers.count <= 4096 / stride + 1, "\(count) rows")
            }
        }
    }

    /// A row that fails after rows went to overflow blocks: the error is the row's, and the
    /// rows in the blocks are destroyed once (the address sanitizer run checks the memory).
    @Test func aFailingRowInTheOverflowBlocksThrowsItsError() throws {
        let db = try numbersDatabase()
        let count = 4 * (1 << 20) / MemoryLayout<Number>.stride
        try fillNumbers(db, count: count)
        try db.execute(sql: "UPDATE numbers SET value = 'many' WHERE value = \(count - 100)")
        let sql: SQL = "SELECT value, label FROM numbers ORDER BY rowid"
        do {
            _ = try db.fetchAll(Number.self, sql: sql)
            Issue.record("expected the row with text in `value` to fail")
        } catch let error as RowDecodingError {
            #expect(error.column == "value")
            #expect(error.isTypeMismatch)
        }
        try db.execute(sql: "UPDATE numbers SET value = \(count - 100) WHERE value = 'many'")
        let all = try db.fetchAll(Number.self, sql: sql)
        #expect(all.count == count)
        #expect(all.last == Number(value: count - 1, label: "label \(count - 1)"))
    }
}
