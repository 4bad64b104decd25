import Foundation
import LiteRecord
import Testing

/// A deterministic generator (SplitMix64), so a failure reproduces from its seed.
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

private enum Mood: String, Codable, Equatable, CaseIterable { case calm, busy, asleep }
private enum Level: Int, Codable, Equatable, CaseIterable {
    case low = -1
    case mid = 0
    case high = 7
}
private enum Shape: Codable, Equatable {
    case circle(radius: Double)
    case rectangle(width: Int, height: Int)
    case none
}
private indirect enum Tree: Codable, Equatable {
    case leaf(Int)
    case node([Tree])
}
private struct Inner: Codable, Equatable {
    var label: String
    var values: [Int]
    var when: Date
}

/// One property of every supported kind.
private struct Everything: Codable, Equatable {
    var id: Int64
    var int: Int
    var int8: Int8
    var int16: Int16
    var int32: Int32
    var uint: UInt
    var uint8: UInt8
    var uint16: UInt16
    var uint32: UInt32
    var uint64: UInt64
    var bool: Bool
    var double: Double
    var float: Float
    var string: String
    var data: Data
    var date: Date
    var uuid: UUID
    var url: URL
    var decimal: Decimal
    var mood: Mood
    var level: Level
    var optionalInt: Int?
    var optionalString: String?
    var optionalDate: Date?
    var optionalMood: Mood?
    var optionalInner: Inner?
    var strings: [String]
    var set: Set<String>
    var byName: [String: Int]
    var byNumber: [Int: String]
    var inner: Inner
    var shape: Shape
    var tree: Tree
}

private struct Generator {
    var random: SeededGenerator

    mutating func int<T: FixedWidthInteger>(_ type: T.Type) -> T {
        switch Int.random(in: 0..<4, using: &random) {
        case 0: return .min
        case 1: return .max
        case 2: return 0
        default: return T.random(in: .min ... .max, using: &random)
        }
    }

    mutating func double() -> Double {
        switch Int.random(in: 0..<8, using: &random) {
        case 0: return .infinity
        case 1: return -.infinity
        case 2: return .greatestFiniteMagnitude
        case 3: return .leastNonzeroMagnitude
        case 4: return -0.0
        default:
            var value: Double
            repeat { value = Double(bitPattern: random.next()) } while value.isNaN
            return value
        }
    }

    mutating func string(maxLength: Int = 40) -> String {
        let alphabets: [[Character]] = [
            Array("abcXYZ019 _%'\"\\;--"), ["\u{0}", "\u{1}", "\n", "\t"],
            ["é", "ß", "中", "👍🏽", "👨‍👩‍👧", "\u{202E}", "e\u{301}"],
        ]
        let length = Int.random(in: 0...maxLength, using: &random)
        return String(
            (0..<length).map { _ in alphabets.randomElement(using: &random)!.randomElement(using: &random)! })
    }

    mutating func date() -> Date {
        switch Int.random(in: 0..<4, using: &random) {
        case 0: return Date()
        case 1: return Date(timeIntervalSinceReferenceDate: 0)
        default:
            return Date(
                timeIntervalSince1970: Double.random(in: -62_000_000_000...253_000_000_000, using: &random))
        }
    }

    mutating func tree(depth: Int) -> Tree {
        // A chain 50 deep, then small random branches: deep JSON without a huge tree.
        if depth > 10 { return .node([tree(depth: depth - 1)]) }
        guard depth > 0, Bool.random(using: &random) else { return .leaf(int(Int.self)) }
        return .node((0..<Int.random(in: 1...2, using: &random)).map { _ in tree(depth: depth - 1) })
    }

    mutating func inner() -> Inner {
        Inner(
            label: string(), values: (0..<Int.random(in: 0...5, using: &random)).map { _ in int(Int.self) },
            when: date())
    }

    mutating func everything(id: Int64) -> Everything {
        Everything(
            id: id, int: int(Int.self), int8: int(Int8.self), int16: int(Int16.self), int32: int(Int32.self),
            uint: UInt.random(in: 0...UInt(Int64.max), using: &random), uint8: int(UInt8.self),
            uint16: int(UInt16.self), uint32: int(UInt32.self),
            uint64: UInt64.random(in: 0...UInt64(Int64.max), using: &random),
            bool: Bool.random(using: &random), double: double(),
            float: Float(Double.random(in: -1e30...1e30, using: &random)),
            string: Int.random(in: 0..<200, using: &random) == 0
                ? String(repeating: "λ", count: 500_000) : string(),
            data: Data(
                (0..<Int.random(in: 0...64, using: &random)).map { _ in
                    UInt8.random(in: 0...255, using: &random)
                }),
            date: date(), uuid: UUID(),
            url: URL(string: "https://example.com/\(Int.random(in: 0...999, using: &random))?q=a%20b")!,
            decimal: Decimal(
                string:
                    "\(Int.random(in: -999_999...999_999, using: &random)).\(Int.random(in: 0...99_999, using: &random))"
            )!,
            mood: Mood.allCases.randomElement(using: &random)!,
            level: Level.allCases.randomElement(using: &random)!,
            optionalInt: Bool.random(using: &random) ? int(Int.self) : nil,
            optionalString: Bool.random(using: &random) ? string() : nil,
            optionalDate: Bool.random(using: &random) ? date() : nil,
            optionalMood: Bool.random(using: &random) ? Mood.allCases.randomElement(using: &random) : nil,
            optionalInner: Bool.random(using: &random) ? inner() : nil,
            strings: (0..<Int.random(in: 0...4, using: &random)).map { _ in string(maxLength: 8) },
            set: Set((0..<Int.random(in: 0...4, using: &random)).map { _ in string(maxLength: 8) }),
            byName: Dictionary(
                uniqueKeysWithValues: (0..<Int.random(in: 0...3, using: &random)).map {
                    ("k\($0)\(string(maxLength: 3))", int(Int.self))
                }),
            byNumber: Dictionary(
                uniqueKeysWithValues: (0..<Int.random(in: 0...3, using: &random)).map {
                    ($0 * 7 - 5, string(maxLength: 5))
                }),
            inner: inner(),
            shape: [
                Shape.circle(radius: Double.random(in: 0...10, using: &random)),
                .rectangle(width: 3, height: -4), .none,
            ]
            .randomElement(using: &random)!,
            tree: tree(depth: 60))
    }
}

@Suite struct RoundTripPropertyTests {
    /// Builds an INSERT from the encoded columns, with quoted identifiers and bound values.
    private func insert(_ value: Everything, into db: Database) throws {
        let row = try RowEncoder().encode(value)
        let columns = row.columns.map(SQL.quoteIdentifier).joined(separator: ", ")
        let placeholders = Array(repeating: "?", count: row.values.count).joined(separator: ", ")
        try db.execute(
            sql: "INSERT INTO everything(\(columns)) VALUES (\(placeholders))",
            arguments: StatementArguments(positional: row.values))
    }

    @Test func randomValuesSurviveARealDatabase() throws {
        let db = try Database(.inMemory)
        var generator = Generator(random: SeededGenerator(seed: 20_261_129))
        let sample = generator.everything(id: 0)
        let columns = try RowEncoder().encode(sample).columns.map(SQL.quoteIdentifier)
        try db.execute(sql: SQL("CREATE TABLE everything(" + columns.joined(separator: ", ") + ")"))
        var expected: [Everything] = []
        try db.transaction { _ in
            for id in 1...3_000 {
                let value = generator.everything(id: Int64(id))
                expected.append(value)
                try insert(value, into: db)
            }
        }
        let fetched = try db.fetchAll(Everything.self, sql: "SELECT * FROM everything ORDER BY id")
        #expect(fetched.count == expected.count)
        for (got, want) in zip(fetched, expected) where got != want {
            Issue.record("row \(want.id) differs: \(got) vs \(want)")
            break
        }
    }

    @Test func hugeBlobsAndStringsSurvive() throws {
        struct Big: Codable, Equatable {
            var blob: Data
            var text: String
        }
        var random = SeededGenerator(seed: 5)
        let blob = Data((0..<5_000_000).map { _ in UInt8.random(in: 0...255, using: &random) })
        let big = Big(blob: blob, text: String(repeating: "a\u{0}👍", count: 400_000))
        let db = try Database(.inMemory)
        try db.execute(sql: "CREATE TABLE big(blob BLOB, text TEXT)")
        let row = try RowEncoder().encode(big)
        try db.execute(
            sql: "INSERT INTO big(blob, text) VALUES (?, ?)",
            arguments: StatementArguments(positional: row.values))
        #expect(try db.fetchOne(Big.self, sql: "SELECT * FROM big") == big)
        #expect(try db.fetchOne(Int.self, sql: "SELECT length(blob) FROM big") == 5_000_000)
    }
}
