import Foundation
import LiteRecord
import Testing

// Integer sums on both backends are Swift's: the exact total when it fits the column's Swift
// type, whatever order the rows come in (SQLite's own `sum` fails as soon as a partial sum
// overflows: `[Int.max, 1, -2]` failed in one order and not in another); an overflow error,
// never a wrapped value or a decoding error, when the total itself does not fit. The same holds
// for every form a sum takes: `sum(_:)` of a column, of an optional column, of a JSON member,
// of an expression, and the per-group `$0.score.sum` of a projection.

struct SumStats: Codable, Equatable, Sendable {
    var points: Int
}

struct SumRow: Model, Equatable {
    var id: Int64?
    var team: Int
    var score: Int
    var bonus: Int?
    var small: Int32
    var stats: SumStats
    static let schema = Schema<SumRow>(table: "sum_rows")
}

/// Integer types narrower than the 64 bits both backends store.
struct SumBytes: Model, Equatable {
    var id: Int64?
    var unsigned: UInt8
    var signed: Int8?
    static let schema = Schema<SumBytes>(table: "sum_bytes")
}

struct SumByteTotals: Decodable, Equatable {
    var unsigned: UInt8
    var signed: Int8
}

struct SumTotals: Decodable, Equatable {
    var team: Int
    var score: Int
    var bonus: Int
    var small: Int32
}

enum SumParityChecks {
    /// Every order of `values`.
    static func permutations<T>(_ values: [T]) -> [[T]] {
        guard let first = values.first else { return [[]] }
        return permutations(Array(values.dropFirst())).flatMap { rest in
            (0...rest.count).map { index in
                var order = rest
                order.insert(first, at: index)
                return order
            }
        }
    }

    /// Replaces the table's rows with one row per value, in this order (so in rowid order).
    static func store(_ db: some ModelContext, _ values: [Int], small: [Int32]) throws {
        _ = try db.query(SumRow.self).deleteAll()
        for (value, narrow) in zip(values, small) {
            var row = SumRow(
                id: nil, team: 1, score: value, bonus: value, small: narrow, stats: SumStats(points: value))
            try db.insert(&row)
        }
        var empty = SumRow(id: nil, team: 1, score: 0, bonus: nil, small: 0, stats: SumStats(points: 0))
        try db.insert(&empty)
    }

    /// The per-team sums of a projection.
    static func groupedTotals(_ query: Query<SumRow>) throws -> [SumTotals] {
        try query.group(by: \.team).select(SumTotals.self) {
            [
                $0.team.as("team"), $0.score.sum.as("score"), $0.bonus.sum.as("bonus"),
                $0.small.sum.as("small"),
            ]
        }.fetchAll()
    }

    /// A total that fits is exact in every row order, in every form of the sum.
    static func partialOverflow(_ db: some ModelContext, _ backend: ParityBackend) throws {
        let values = [Int.max, 1, -2, Int.min + 5]
        let small: [Int32] = [.max, 1, -2, .min + 5]
        let total = Int.max - 1 + (Int.min + 5)
        let smallTotal = Int32.max - 1 + (Int32.min + 5)
        for order in permutations(Array(zip(values, small))) {
            try store(db, order.map(\.0), small: order.map(\.1))
            let label = "\(backend.name): \(order.map(\.0))"
            let query = db.query(SumRow.self)
            #expect(try query.sum { $0.score } == total, "\(label)")
            #expect(try query.sum { $0.bonus } == total, "\(label)")
            #expect(try query.sum { $0.small } == smallTotal, "\(label)")
            #expect(try query.sum { $0.stats.points } == total, "\(label)")
            #expect(try query.where { $0.score != 0 }.sum { $0.score - 0 } == total, "\(label)")
            let totals = try groupedTotals(query)
            #expect(
                totals == [SumTotals(team: 1, score: total, bonus: total, small: smallTotal)], "\(label)")
        }
    }

    /// A total that does not fit fails with an overflow error in every row order and form, on
    /// both backends the same kind of error.
    static func totalOverflow(_ db: some ModelContext, _ backend: ParityBackend) throws {
        let cases: [(values: [Int], small: [Int32])] = [
            ([Int.max, Int.max, -1], [1, 1, 1]),
            ([Int.min, Int.min, 1], [1, 1, 1]),
            ([1, 1, 1], [.max, .max, -1]),
            ([1, 1, 1], [.min, -1, 0]),
        ]
        for (values, small) in cases {
            for order in permutations(Array(zip(values, small))) {
                try store(db, order.map(\.0), small: order.map(\.1))
                let label = "\(backend.name): \(order)"
                let query = db.query(SumRow.self)
                let narrow = values == [1, 1, 1]
                var sums: [(String, () throws -> Void)] = [
                    ("small", { _ = try query.sum { $0.small } }),
                    ("grouped small", { _ = try groupedTotals(query) }),
                ]
                if !narrow {
                    sums = [
                        ("score", { _ = try query.sum { $0.score } }),
                        ("bonus", { _ = try query.sum { $0.bonus } }),
                        ("member", { _ = try query.sum { $0.stats.points } }),
                        ("grouped", { _ = try groupedTotals(query) }),
                    ]
                }
                for (name, sum) in sums {
                    let error = #expect(throws: DatabaseError.self, "\(label): \(name)") { try sum() }
                    #expect(
                        ["overflow", "out of range"].contains { error?.message.contains($0) == true },
                        "\(label): \(name): \(String(describing: error))")
                    // One `catch` serves both backends, as for arithmetic.
                    #expect(error?.resultCode == .error, "\(label): \(name): \(String(describing: error))")
                }
            }
        }
    }
}

extension SumParityChecks {
    /// The sum of a narrow type fits or fails as Swift's `reduce(0, +)` of the values, with an
    /// overflow error rather than a decoding error.
    static func narrowTypes(_ db: some ModelContext, _ backend: ParityBackend) throws {
        for (unsigned, signed) in [(UInt8(200), Int8(100)), (55, 27)] {
            var row = SumBytes(id: nil, unsigned: unsigned, signed: signed)
            try db.insert(&row)
        }
        let query = db.query(SumBytes.self)
        #expect(try query.sum { $0.unsigned } == 255, "\(backend.name)")
        #expect(try query.sum { $0.signed } == 127, "\(backend.name)")
        #expect(
            try query.select(SumByteTotals.self) {
                [$0.unsigned.sum.as("unsigned"), $0.signed.sum.as("signed")]
            }
            .fetchAll() == [SumByteTotals(unsigned: 255, signed: 127)], "\(backend.name)")
        var more = SumBytes(id: nil, unsigned: 1, signed: 1)
        try db.insert(&more)
        let sums: [(String, () throws -> Void)] = [
            ("unsigned", { _ = try query.sum { $0.unsigned } }),
            ("signed", { _ = try query.sum { $0.signed } }),
            (
                "projection",
                {
                    _ = try query.select(SumByteTotals.self) {
                        [$0.unsigned.sum.as("unsigned"), $0.signed.sum.as("signed")]
                    }.fetchAll()
                }
            ),
        ]
        for (name, sum) in sums {
            let error = #expect(throws: DatabaseError.self, "\(backend.name): \(name)") { try sum() }
            #expect(
                error?.message.contains("integer overflow") == true,
                "\(backend.name): \(name): \(String(describing: error))")
        }
    }
}

@Suite(.offCooperativePool) struct SQLiteSumParityTests {
    let backend = ParityBackend.sqliteMemory
    @Test func partialOverflow() throws { try backend.run { try SumParityChecks.partialOverflow($0, $1) } }
    @Test func totalOverflow() throws { try backend.run { try SumParityChecks.totalOverflow($0, $1) } }
    @Test func narrowTypes() throws { try backend.run { try SumParityChecks.narrowTypes($0, $1) } }
}

@Suite(.offCooperativePool) struct SQLiteFileSumParityTests {
    let backend = ParityBackend.sqliteFile
    @Test func partialOverflow() throws { try backend.run { try SumParityChecks.partialOverflow($0, $1) } }
    @Test func totalOverflow() throws { try backend.run { try SumParityChecks.totalOverflow($0, $1) } }
    @Test func narrowTypes() throws { try backend.run { try SumParityChecks.narrowTypes($0, $1) } }
}

@Suite(.enabled(if: PostgresTestServer.isAvailable, PostgresTestServer.skipMessage), .offCooperativePool)
struct PostgresSumParityTests {
    let backend = ParityBackend.postgres
    @Test func partialOverflow() throws { try backend.run { try SumParityChecks.partialOverflow($0, $1) } }
    @Test func totalOverflow() throws { try backend.run { try SumParityChecks.totalOverflow($0, $1) } }
    @Test func narrowTypes() throws { try backend.run { try SumParityChecks.narrowTypes($0, $1) } }
}
