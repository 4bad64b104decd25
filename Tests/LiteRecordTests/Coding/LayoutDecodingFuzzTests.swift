import Foundation
import LiteRecord
import Testing

/// Every leaf type layout decoding writes in place.
private struct Leaves: Codable, Equatable {
    var int: Int
    var int8: Int8
    var int16: Int16
    var int32: Int32
    var int64: Int64
    var uint: UInt
    var uint8: UInt8
    var uint16: UInt16
    var uint32: UInt32
    var uint64: UInt64
    var double: Double
    var float: Float
    var bool: Bool
    var string: String
    var data: Data
    var date: Date
    var strings: [String]
}

/// The same leaves, optional.
private struct OptionalLeaves: Codable, Equatable {
    var int: Int?
    var int8: Int8?
    var int16: Int16?
    var int32: Int32?
    var int64: Int64?
    var uint: UInt?
    var uint8: UInt8?
    var uint16: UInt16?
    var uint32: UInt32?
    var uint64: UInt64?
    var double: Double?
    var float: Float?
    var bool: Bool?
    var string: String?
    var data: Data?
    var date: Date?
    var strings: [String]?
}

/// Decodes `Value` through its own `init(from:)` and keeps the outcome, so that one pass over
/// the table gives every row's outcome (an error does not stop the fetch). A struct holding a
/// non-leaf property is never decoded in place: this is today's path.
private struct Attempt<Value: Decodable & Equatable>: Decodable {
    var outcome: Outcome<Value>
    init(from decoder: any Decoder) throws {
        outcome = Outcome { try Value(from: decoder) }
    }
}

/// What decoding gave: the value, or the error's kind and content (all but the decoded type's
/// name and the SQL, which the reference side has its own of).
private enum Outcome<Value: Equatable>: Equatable {
    case value(Value?)
    case failure(
        column: String, stored: DatabaseValue?, expected: String, path: [String], kinds: [Bool])
    case otherFailure(String)

    init(_ body: () throws -> Value?) {
        do {
            self = .value(try body())
        } catch let error as RowDecodingError {
            self = .failure(
                column: error.column, stored: error.storedValue, expected: error.expectedType,
                path: error.codingPath,
                kinds: [error.isMissingColumn, error.isNullValue, error.isTypeMismatch, error.isInvalidJSON])
        } catch {
            self = .otherFailure("\(error)")
        }
    }
}

private let columnNames = [
    "int", "int8", "int16", "int32", "int64", "uint", "uint8", "uint16", "uint32", "uint64", "double",
    "float", "bool", "string", "data", "date", "strings",
]

/// Random SQL literals for a column: mostly a valid value of the column's type (with its
/// extremes), sometimes anything at all (NULL, another storage class, out of range, text that
/// is not UTF-8, not a date or not JSON).
private struct ValueMaker {
    var generator: SplitMix

    mutating func literal(for column: String) -> String {
        if generator.next() % 24 == 0 { return anything() }
        return valid(for: column)
    }

    private mutating func pick(_ choices: [String]) -> String {
        choices[Int(generator.next() % UInt64(choices.count))]
    }

    private mutating func integer(_ low: Int64, _ high: Int64) -> String {
        switch generator.next() % 4 {
        case 0: return String(low)
        case 1: return String(high)
        default:
            let span = UInt64(bitPattern: high &- low)
            let offset = span == .max ? generator.next() : generator.next() % (span + 1)
            return String(low &+ Int64(bitPattern: offset))
        }
    }

    private mutating func valid(for column: String) -> String {
        switch column {
        case "int", "int64": return integer(.min, .max)
        case "int8": return integer(Int64(Int8.min), Int64(Int8.max))
        case "int16": return integer(Int64(Int16.min), Int64(Int16.max))
        case "int32": return integer(Int64(Int32.min), Int64(Int32.max))
        case "uint", "uint64": return integer(0, .max)
        case "uint8": return integer(0, Int64(UInt8.max))
        case "uint16": return integer(0, Int64(UInt16.max))
        case "uint32": return integer(0, Int64(UInt32.max))
        case "double", "float":
            let value = Double(bitPattern: generator.next())
            return value.isFinite ? "\(value)" : pick(["1e308", "-1e308", "0.0", "-0.0", "3"])
        case "bool": return pick(["0", "1"])
        case "string": return pick(["''", "'a'", "'ümlaut é'", "'😀'", "'it''s'", "'x' || char(0) || 'y'"])
        case "data": return pick(["x''", "x'00ff'", "randomblob(3)"])
        case "date":
            return pick([
                "'2026-11-30 12:34:56.789'", "'2026-11-30'", "'1969-12-31T23:59:59Z'",
                "'2000-02-29 00:00:00.0625'",
            ])
        default: return pick(["'[]'", #"'["a","b"]'"#, #"'["é","x\"y"]'"#, #"'[""]'"#])
        }
    }

    private mutating func anything() -> String {
        pick([
            "NULL", "0", "1", "2", "-1", "256", "-129", "65536", "4294967296", "9223372036854775807",
            "-9223372036854775808", "1.5", "3.0", "-0.0", "1e300", "'text'", "''", "'12'", "'not a date'",
            "'[1,2]'", "'{\"a\":1}'", "CAST(x'ff' AS TEXT)", "x'00'", "'2026-11-30'", "'[\"a\"]'",
        ])
    }
}

private struct SplitMix {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Layout decoding must give what `init(from:)` gives, row for row: the same value, or the same
/// error (kind, column, stored value, expected type, path and SQL).
@Suite struct LayoutDecodingFuzzTests {
    static let rowsPerType = 50_000

    /// Fills a table with random rows, then decodes each row both ways on the same statement row.
    private func compare<Value: Decodable & Equatable>(_ type: Value.Type, seed: UInt64) throws -> (
        values: Int, errors: Int
    ) {
        #expect(RowDecoder.decodesInPlace(Value.self))
        #expect(!RowDecoder.decodesInPlace(Attempt<Value>.self))
        let db = try Database(.inMemory)
        try db.execute(sql: SQL(verbatim: "CREATE TABLE fuzz(\(columnNames.joined(separator: ", ")))"))
        var maker = ValueMaker(generator: SplitMix(state: seed))
        try db.transaction { tx in
            // Literals on purpose: each storage class exactly as SQLite stores it (text that is
            // not UTF-8 included); 500 rows per statement.
            for _ in 0..<(Self.rowsPerType / 500) {
                let rows = (0..<500).map { _ in
                    "(" + columnNames.map { maker.literal(for: $0) }.joined(separator: ", ") + ")"
                }
                try tx.execute(sql: SQL(verbatim: "INSERT INTO fuzz VALUES " + rows.joined(separator: ", ")))
            }
        }
        // Through init(from:), every row in one pass.
        let expected = try db.fetchAll(Attempt<Value>.self, sql: "SELECT * FROM fuzz ORDER BY rowid").map(
            \.outcome)
        #expect(expected.count == Self.rowsPerType)
        var mismatches: [String] = []
        func record(_ row: Int, _ actual: Outcome<Value>, _ expected: Outcome<Value>) {
            if actual != expected && mismatches.count < 5 {
                mismatches.append("row \(row): \(actual) vs init(from:) \(expected)")
            }
        }
        // Rows init(from:) decodes: all at once through the fast path (bound as one JSON list).
        let decodedRows = expected.indices.filter {
            if case .value = expected[$0] { return true } else { return false }
        }
        let rowList = "[" + decodedRows.map { String($0 + 1) }.joined(separator: ",") + "]"
        let fast = try db.fetchAll(
            Value.self,
            sql: "SELECT * FROM fuzz WHERE rowid IN (SELECT value FROM json_each(\(rowList))) ORDER BY rowid")
        #expect(fast.count == decodedRows.count)
        for (row, value) in zip(decodedRows, fast) {
            record(row + 1, .value(value), expected[row])
        }
        // Rows init(from:) rejects: one at a time, so that each error is seen.
        let decodedSet = Set(decodedRows)
        for row in expected.indices where !decodedSet.contains(row) {
            let actual = Outcome {
                try db.fetchOne(Value.self, sql: "SELECT * FROM fuzz WHERE rowid = \(row + 1)")
            }
            record(row + 1, actual, expected[row])
        }
        let counts = (values: decodedRows.count, errors: expected.count - decodedRows.count)
        #expect(mismatches.isEmpty, "\(mismatches)")
        return counts
    }

    @Test func plainLeavesDecodeAsInitFromDecoder() throws {
        let counts = try compare(Leaves.self, seed: 1)
        // Both kinds of row are exercised in quantity.
        #expect(counts.values > 1_000)
        #expect(counts.errors > 1_000)
    }

    @Test func optionalLeavesDecodeAsInitFromDecoder() throws {
        let counts = try compare(OptionalLeaves.self, seed: 2)
        #expect(counts.values > 1_000)
        #expect(counts.errors > 1_000)
    }
}
