import Foundation
import LiteRecord
import Testing

/// One property read from the column `v`. Each box is a concrete type on purpose: a generic
/// model's `init(from:)` asks for its property through the generic `decode`, which would miss
/// the per-type paths under test.
private protocol Box: Codable, Equatable {
    associatedtype Value
    var v: Value { get }
}

private struct OptionalInt: Box { var v: Int? }
private struct OptionalInt8: Box { var v: Int8? }
private struct OptionalUInt8: Box { var v: UInt8? }
private struct OptionalInt64: Box { var v: Int64? }
private struct OptionalUInt64: Box { var v: UInt64? }
private struct OptionalDouble: Box { var v: Double? }
private struct OptionalFloat: Box { var v: Float? }
private struct OptionalString: Box { var v: String? }
private struct OptionalBool: Box { var v: Bool? }
private struct OptionalDate: Box { var v: Date? }
private struct OptionalStrings: Box { var v: [String]? }
private struct OptionalData: Box { var v: Data? }
private struct PlainInt: Box { var v: Int }
private struct PlainDouble: Box { var v: Double }
private struct PlainString: Box { var v: String }
private struct PlainBool: Box { var v: Bool }
private struct PlainDate: Box { var v: Date }
private struct PlainStrings: Box { var v: [String] }

/// A value of every storage class, and the edge cases of each, one per row of `samples.v`.
private let storedValues: [String] = [
    "NULL", "0", "1", "2", "-5", "3.0", "2.5", "1e300", "9223372036854775807", "'text'", "''",
    "'12'", "'2026-11-30 12:34:56.789'", "'2026-11-30'", "'not a date'", "'[\"a\",\"b\"]'",
    "'[\"a\", 1]'", "'ümlaut'", "X'00FF'", "X''",
]

private func makeSamples() throws -> Database {
    let db = try Database(.inMemory)
    try db.execute(sql: "CREATE TABLE samples(v)")
    for value in storedValues {
        // SQL literals on purpose: each storage class exactly as SQLite stores it.
        try db.execute(sql: SQL("INSERT INTO samples VALUES (" + value + ")"))
    }
    return db
}

/// What decoding gave: the value, or the error's kind and content (the SQL is left out: a
/// copied row has none).
private enum Outcome<Value: Equatable>: Equatable {
    case value(Value)
    case failure(column: String, stored: DatabaseValue?, expected: String, path: [String], kinds: [Bool])

    init(_ body: () throws -> Value) {
        do {
            self = .value(try body())
        } catch let error as RowDecodingError {
            self = .failure(
                column: error.column, stored: error.storedValue, expected: error.expectedType,
                path: error.codingPath,
                kinds: [error.isMissingColumn, error.isNullValue, error.isTypeMismatch, error.isInvalidJSON])
        } catch {
            self = .failure(column: "\(error)", stored: nil, expected: "", path: [], kinds: [])
        }
    }
}

/// The fast paths that read a statement's columns straight from SQLite must decide exactly
/// as the general path over a copied row does: same values, same errors, for every storage
/// class.
@Suite struct DecodingPathParityTests {
    /// Decodes every sample row into `Box<Value>` through a statement and from a copied row.
    private func expectParity<B: Box>(_ type: B.Type) throws {
        let db = try makeSamples()
        let rows = try db.fetchAll(Row.self, sql: "SELECT v FROM samples ORDER BY rowid")
        #expect(rows.count == storedValues.count)
        for (index, row) in rows.enumerated() {
            let rowID = Int64(index + 1)
            let fromStatement = Outcome<B> {
                let boxes = try db.fetchAll(B.self, sql: "SELECT v FROM samples WHERE rowid = \(rowID)")
                return try #require(boxes.first)
            }
            let fromCopiedRow = Outcome<B> { try RowDecoder().decode(B.self, from: row) }
            #expect(fromStatement == fromCopiedRow, "\(B.Value.self) from \(storedValues[index])")
        }
    }

    @Test func optionalIntegers() throws {
        try expectParity(OptionalInt.self)
        try expectParity(OptionalInt8.self)
        try expectParity(OptionalUInt8.self)
        try expectParity(OptionalInt64.self)
        try expectParity(OptionalUInt64.self)
    }

    @Test func optionalDoublesStringsAndBools() throws {
        try expectParity(OptionalDouble.self)
        try expectParity(OptionalFloat.self)
        try expectParity(OptionalString.self)
        try expectParity(OptionalBool.self)
    }

    @Test func optionalDatesArraysAndData() throws {
        try expectParity(OptionalDate.self)
        try expectParity(OptionalStrings.self)
        try expectParity(OptionalData.self)
    }

    @Test func nonOptionalValues() throws {
        try expectParity(PlainInt.self)
        try expectParity(PlainDouble.self)
        try expectParity(PlainString.self)
        try expectParity(PlainBool.self)
        try expectParity(PlainDate.self)
        try expectParity(PlainStrings.self)
    }

    /// The sample values read as a careful user expects, checked by hand for the paths this
    /// change touched (parity alone would accept two paths wrong in the same way).
    @Test func samplesReadAsExpected() throws {
        let db = try makeSamples()
        func read<B: Box>(_ type: B.Type, _ stored: String) throws -> B.Value {
            let rowID = try #require(storedValues.firstIndex(of: stored)) + 1
            let boxes = try db.fetchAll(B.self, sql: "SELECT v FROM samples WHERE rowid = \(rowID)")
            return try #require(boxes.first).v
        }
        #expect(try read(OptionalInt.self, "NULL") == nil)
        #expect(try read(OptionalInt.self, "3.0") == 3)
        #expect(try read(OptionalDouble.self, "-5") == -5)
        #expect(try read(OptionalString.self, "'ümlaut'") == "ümlaut")
        #expect(try read(OptionalBool.self, "1") == true)
        #expect(try read(PlainBool.self, "0") == false)
        #expect(try read(OptionalDate.self, "NULL") == nil)
        #expect(
            try read(OptionalDate.self, "'2026-11-30'") == Date(timeIntervalSince1970: 1_795_996_800))
        let twoAsBool = try #require(throws: RowDecodingError.self) { try read(PlainBool.self, "2") }
        #expect(twoAsBool.isTypeMismatch)
        #expect(twoAsBool.description.contains("expected 0 or 1"))
        let textAsOptionalInt = try #require(throws: RowDecodingError.self) {
            try read(OptionalInt.self, "'text'")
        }
        #expect(textAsOptionalInt.storedValue == .text("text"))
        #expect(textAsOptionalInt.codingPath == ["v"])
        let badDate = try #require(throws: RowDecodingError.self) {
            try read(OptionalDate.self, "'not a date'")
        }
        #expect(badDate.storedValue == .text("not a date"))
    }
}
