import Foundation
import LiteRecord
import Testing

private struct OverflowCounter: Model, Equatable {
    var id: Int64?
    var n: Int
    var d: Int

    static let schema = Schema<OverflowCounter>(table: "counters")
}

@Suite struct QueryOverflowTests {
    private func fixture(_ values: [(Int, Int)]) throws -> (Database, [OverflowCounter]) {
        let db = try Database(.inMemory)
        var rows: [OverflowCounter] = []
        for (n, d) in values {
            var row = OverflowCounter(id: nil, n: n, d: d)
            try db.insert(&row)
            rows.append(row)
        }
        return (db, rows)
    }

    @Test func overflowInAnUpdateThrowsAndChangesNothing() throws {
        let (db, rows) = try fixture([(1, 1), (Int.max, 1), (5, 1)])
        let error = #expect(throws: DatabaseError.self) {
            try db.query(OverflowCounter.self).updateAll { [$0.n.set(to: $0.n + 1)] }
        }
        #expect(error?.message.contains("overflow") == true, "\(String(describing: error))")
        #expect(try db.query(OverflowCounter.self).order { $0.id.ascending }.fetchAll() == rows)
        #expect(throws: DatabaseError.self) {
            try db.query(OverflowCounter.self).updateAll { [$0.n.set(to: $0.n * 2)] }
        }
        let (minimum, _) = try fixture([(Int.min, 1)])
        #expect(throws: DatabaseError.self) {
            try minimum.query(OverflowCounter.self).updateAll { [$0.n.set(to: $0.n - 1)] }
        }
        #expect(try minimum.query(OverflowCounter.self).fetchAll().map(\.n) == [Int.min])
        // Without overflow the same update works.
        #expect(
            try db.query(OverflowCounter.self).where { $0.n < 10 }.updateAll { [$0.n.set(to: $0.n + 1)] } == 2
        )
        #expect(
            try db.query(OverflowCounter.self).order { $0.id.ascending }.fetchAll().map(\.n) == [
                2, Int.max, 6,
            ])
    }

    @Test func overflowInAConditionThrows() throws {
        let (db, _) = try fixture([(1, 1), (Int.max, 1)])
        let error = #expect(throws: DatabaseError.self) {
            try db.query(OverflowCounter.self).where { $0.n + 1 > 0 }.fetchAll()
        }
        #expect(error?.message.contains("overflow") == true, "\(String(describing: error))")
        #expect(throws: DatabaseError.self) {
            try db.query(OverflowCounter.self).where { $0.n * 3 > 0 }.count()
        }
    }
}

private struct NarrowCounter: Model, Equatable {
    var id: Int64?
    var small: Int8
    var count: UInt32
    var size: UInt

    static let schema = Schema<NarrowCounter>(table: "narrow_counters")
}

@Suite struct QueryNarrowIntegerOverflowTests {
    /// Swift traps where a result does not fit the column's type; SQL must not store it (the
    /// row could no longer be read).
    @Test func resultsOutsideANarrowTypeThrowAndChangeNothing() throws {
        let db = try Database(.inMemory)
        var row = NarrowCounter(id: nil, small: 127, count: 0, size: 3)
        try db.insert(&row)
        let all = db.query(NarrowCounter.self)
        for (name, update) in [
            ("Int8 + 1", { try all.updateAll { [$0.small.set(to: $0.small + 1)] } }),
            ("UInt32 - 1", { try all.updateAll { [$0.count.set(to: $0.count - 1)] } }),
            ("UInt - 5", { try all.updateAll { [$0.size.set(to: $0.size - 5)] } }),
        ] as [(String, () throws -> Int)] {
            let error = #expect(throws: DatabaseError.self, "\(name)") { _ = try update() }
            #expect(error?.message.contains("overflow") == true, "\(name): \(String(describing: error))")
        }
        #expect(try all.fetchAll() == [row])
        #expect(try all.where { $0.small - 1 == 126 && $0.size - 3 == 0 }.count() == 1)
        #expect(try all.updateAll { [$0.small.set(to: $0.small - 28), $0.count.set(to: $0.count + 7)] } == 1)
        #expect(try all.fetchOne().map { [Int($0.small), Int($0.count)] } == [99, 7])
    }
}
