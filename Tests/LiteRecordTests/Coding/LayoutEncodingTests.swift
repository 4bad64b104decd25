import Foundation
import LiteRecord
import Testing

/// Every leaf type layout encoding binds in place, with a rowid key.
private struct EncodedLeaves: Model, Equatable {
    var id: Int64?
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

    static let schema = Schema<EncodedLeaves>(table: "encoded_leaves")
}

/// The same leaves, optional, with dates stored as Unix milliseconds in one column.
private struct EncodedOptionals: Model, Equatable {
    var id: Int64?
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
    var millis: Date?
    var strings: [String]?

    static let schema = Schema<EncodedOptionals>(table: "encoded_optionals")
        .dateStorage(.unixMilliseconds, for: \.millis)
}

/// Upper-cases its name when encoding: must keep `encode(to:)`.
private struct Shouting: Model, Equatable {
    var id: Int64?
    var name: String

    static let schema = Schema<Shouting>(table: "shouting")

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(id, forKey: .id)
        try container.encode(name.uppercased(), forKey: .name)
    }
}

/// Writes its two columns swapped: must keep `encode(to:)`.
private struct Swapping: Model, Equatable {
    var id: Int64?
    var first: String
    var second: String

    static let schema = Schema<Swapping>(table: "swapping")

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(id, forKey: .id)
        try container.encode(second, forKey: .first)
        try container.encode(first, forKey: .second)
    }
}

/// A text key that SQLite does not assign: nil must be refused as before.
private struct TextKeyed: Model, Equatable {
    var code: String?
    var score: Int

    static let schema = Schema<TextKeyed>(table: "text_keyed", primaryKey: \.code)
}

/// Random values at and around the edges of each leaf.
private struct EdgeMaker {
    var state: UInt64

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    mutating func pick<T>(_ values: [T]) -> T { values[Int(next() % UInt64(values.count))] }
    mutating func chance(_ percent: UInt64) -> Bool { next() % 100 < percent }

    mutating func integer<T: FixedWidthInteger>(_ type: T.Type) -> T {
        if chance(30) { return pick([T.min, T.max, 0, 1, T.min / 2]) }
        return T(truncatingIfNeeded: next() >> (next() % 64))
    }

    mutating func double() -> Double {
        if chance(2) { return .nan }
        if chance(30) {
            return pick([
                0, -0.0, .infinity, -.infinity, .leastNonzeroMagnitude, .greatestFiniteMagnitude, 0.1,
            ])
        }
        let any = Double(bitPattern: next())
        return any.isNaN ? 1.5 : any
    }

    mutating func string() -> String {
        let alphabet = Array("aZ 9\"\\\t\u{0}éß€😀👩‍👩‍👧中\n")
        return String((0..<Int(next() % 12)).map { _ in pick(alphabet) })
    }

    mutating func strings() -> [String] {
        if chance(20) { return [] }
        // Mostly plain words (bound in place), sometimes text that needs JSON escaping.
        return (0..<Int(next() % 4)).map { _ in
            chance(20) ? string() : pick(["a", "", "é", "😀", "two words"])
        }
    }

    mutating func date() -> Date {
        if chance(1) { return Date(timeIntervalSinceReferenceDate: .infinity) }
        if chance(2) { return Date(timeIntervalSinceReferenceDate: 3e11) }  // after the year 9999
        let edges: [Double] = [
            0, -0.5, 0.1, 1e-7, -63_145_526_400, 252_423_993_599.999, -1e-9, 700_000_000.0625,
        ]
        if chance(30) { return Date(timeIntervalSinceReferenceDate: pick(edges)) }
        return Date(
            timeIntervalSinceReferenceDate: Double(Int64(next() % 400_000_000_000) - 200_000_000_000) / 1000)
    }

    mutating func data() -> Data {
        Data((0..<Int(next() % 6)).map { _ in UInt8(truncatingIfNeeded: next()) })
    }

    mutating func leaves() -> EncodedLeaves {
        EncodedLeaves(
            id: nil, int: integer(Int.self), int8: integer(Int8.self), int16: integer(Int16.self),
            int32: integer(Int32.self), int64: integer(Int64.self), uint: integer(UInt.self),
            uint8: integer(UInt8.self), uint16: integer(UInt16.self), uint32: integer(UInt32.self),
            uint64: integer(UInt64.self), double: double(), float: Float(double()), bool: chance(50),
            string: string(), data: data(), date: date(), strings: strings())
    }

    mutating func maybe<T>(_ value: T) -> T? { chance(25) ? nil : value }

    mutating func optionals() -> EncodedOptionals {
        EncodedOptionals(
            id: nil, int: maybe(integer(Int.self)), int8: maybe(integer(Int8.self)),
            int16: maybe(integer(Int16.self)), int32: maybe(integer(Int32.self)),
            int64: maybe(integer(Int64.self)), uint: maybe(integer(UInt.self)),
            uint8: maybe(integer(UInt8.self)), uint16: maybe(integer(UInt16.self)),
            uint32: maybe(integer(UInt32.self)), uint64: maybe(integer(UInt64.self)),
            double: maybe(double()), float: maybe(Float(double())), bool: maybe(chance(50)),
            string: maybe(string()), data: maybe(data()), date: maybe(date()), millis: maybe(date()),
            strings: maybe(strings()))
    }
}

/// What a write gave: nothing thrown, or the error's type and description.
private func outcome(_ body: () throws -> Void) -> String {
    do {
        try body()
        return "written"
    } catch {
        return "\(type(of: error)): \(error)"
    }
}

/// Inserts and updates through the in-place path (the model's own table) and through the
/// Codable path (`RowEncoder`'s values bound by `execute` to a copy of the table), then
/// compares the stored bytes, the storage classes and every refusal.
@Suite struct LayoutEncodingDifferentialTests {
    static let rows = 3_000

    private func compare<M: Model>(
        _ type: M.Type, seed: UInt64, encoder: RowEncoder, make: (inout EdgeMaker) -> M,
        rekey: (M, Int64) -> M
    ) throws -> (written: Int, refused: Int) {
        #expect(RowEncoder.encodesInPlace(M.self))
        let db = try Database(.inMemory)
        try db.migrate(M.self)
        let table = try #require(
            try db.fetchOne(
                String.self,
                sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name <> 'sqlite_sequence'"))
        let ddl = try #require(
            try db.fetchOne(String.self, sql: "SELECT sql FROM sqlite_master WHERE name = \(table)"))
        try db.execute(
            sql: SQL(verbatim: ddl.replacingOccurrences(of: "\"\(table)\"", with: "\"reference\"")))
        let columns = try db.fetchAll(
            String.self, sql: "SELECT name FROM pragma_table_info(\(table)) ORDER BY cid")
        let quoted = columns.map { "\"\($0)\"" }
        let insert =
            "INSERT INTO reference (\(quoted.joined(separator: ", "))) VALUES ("
            + columns.map { _ in "?" }.joined(separator: ", ") + ")"
        let update =
            "UPDATE reference SET " + quoted.dropFirst().map { "\($0) = ?" }.joined(separator: ", ")
            + " WHERE \"id\" = ?"
        var maker = EdgeMaker(state: seed)
        var mismatches: [String] = []
        var counts = (written: 0, refused: 0)
        var keys: [Int64] = []
        try db.transaction { tx in
            for row in 0..<Self.rows {
                var model = make(&maker)
                let reference = outcome {
                    let encoded = try encoder.encode(model)
                    _ = try tx.execute(sql: insert, arguments: StatementArguments(positional: encoded.values))
                }
                let actual = outcome { try tx.insert(&model) }
                if actual != reference, mismatches.count < 5 {
                    mismatches.append("insert \(row): \(actual) vs \(reference)")
                }
                if actual == "written" {
                    counts.written += 1
                    keys.append(try tx.fetchOne(Int64.self, sql: "SELECT last_insert_rowid()") ?? -1)
                } else {
                    counts.refused += 1
                }
            }
            for key in keys {
                let model = rekey(make(&maker), key)
                let reference = outcome {
                    let values = try encoder.encode(model).values
                    _ = try tx.execute(
                        sql: update,
                        arguments: StatementArguments(positional: Array(values.dropFirst()) + [values[0]]))
                }
                let actual = outcome { try tx.update(model) }
                if actual != reference, mismatches.count < 5 {
                    mismatches.append("update \(key): \(actual) vs \(reference)")
                }
            }
        }
        let dump = columns.map { "quote(\"\($0)\") || ':' || typeof(\"\($0)\")" }.joined(
            separator: " || ',' || ")
        let stored = try db.fetchAll(
            String.self, sql: SQL(verbatim: "SELECT \(dump) FROM \"\(table)\" ORDER BY id"))
        let expected = try db.fetchAll(
            String.self, sql: SQL(verbatim: "SELECT \(dump) FROM reference ORDER BY id"))
        #expect(stored.count == counts.written)
        for (index, (left, right)) in zip(stored, expected).enumerated()
        where left != right && mismatches.count < 5 {
            mismatches.append("row \(index + 1): \(left) vs \(right)")
        }
        #expect(stored == expected)
        #expect(mismatches.isEmpty, "\(mismatches)")
        return counts
    }

    @Test func leavesStoreTheCodableBytes() throws {
        let counts = try compare(
            EncodedLeaves.self, seed: 11, encoder: RowEncoder(), make: { $0.leaves() },
            rekey: { model, key in
                var copy = model
                copy.id = key
                return copy
            })
        // Both kinds of row are exercised in quantity.
        #expect(counts.written > 1_000)
        #expect(counts.refused > 100)
    }

    @Test func optionalLeavesStoreTheCodableBytes() throws {
        let counts = try compare(
            EncodedOptionals.self, seed: 12,
            encoder: RowEncoder(columnDateStorage: ["millis": .unixMilliseconds]), make: { $0.optionals() },
            rekey: { model, key in
                var copy = model
                copy.id = key
                return copy
            })
        #expect(counts.written > 1_000)
        #expect(counts.refused > 50)
    }
}

@Suite struct LayoutEncodingTests {
    @Test func customEncodeKeepsTheCodablePath() throws {
        #expect(!RowEncoder.encodesInPlace(Shouting.self))
        #expect(!RowEncoder.encodesInPlace(Swapping.self))
        let db = try Database(.inMemory)
        for name in ["ada", "grace", "barbara"] {
            var model = Shouting(id: nil, name: name)
            try db.insert(&model)
            var swapped = Swapping(id: nil, first: name, second: "x")
            try db.insert(&swapped)
        }
        let names = try db.fetchAll(String.self, sql: "SELECT name FROM shouting ORDER BY id")
        #expect(names == ["ADA", "GRACE", "BARBARA"])
        let firsts = try db.fetchAll(String.self, sql: "SELECT first FROM swapping ORDER BY id")
        #expect(firsts == ["x", "x", "x"])
        try db.update(Shouting(id: 2, name: "hopper"))
        #expect(try db.fetchOne(String.self, sql: "SELECT name FROM shouting WHERE id = 2") == "HOPPER")
    }

    @Test func plainModelsEncodeInPlace() {
        #expect(RowEncoder.encodesInPlace(EncodedLeaves.self))
        #expect(RowEncoder.encodesInPlace(EncodedLeaves.self, dateStorage: .julianDay))
        #expect(RowEncoder.encodesInPlace(TextKeyed.self))
    }

    @Test func nilTextKeyIsStillRefused() throws {
        let db = try Database(.inMemory)
        try db.insert(TextKeyed(code: "a", score: 1))
        try db.insert(TextKeyed(code: "b", score: 2))
        let refusal = outcome { try db.insert(TextKeyed(code: nil, score: 3)) }
        #expect(refusal.contains("PersistenceError"))
        #expect(refusal.contains("nothing was written"))
        #expect(try db.count(TextKeyed.self) == 2)
    }

    @Test func refusalsNameTheValueAsBefore() throws {
        let db = try Database(.inMemory)
        var first = EncodingFixture.plain
        try db.insert(&first)
        var nan = EncodingFixture.plain
        nan.double = .nan
        let expected = outcome { _ = try RowEncoder().encode(nan) }
        #expect(expected.contains("NaN"))
        #expect(outcome { try db.insert(&nan) } == expected)
        var late = EncodingFixture.plain
        late.date = Date(timeIntervalSinceReferenceDate: 3e11)
        let lateExpected = outcome { _ = try RowEncoder().encode(late) }
        #expect(lateExpected.contains("0000...9999"))
        #expect(outcome { try db.insert(&late) } == lateExpected)
        // Nothing but the first row was written.
        #expect(try db.count(EncodedLeaves.self) == 1)
        // A constraint error still carries the row's arguments.
        try db.execute(sql: "CREATE UNIQUE INDEX one_name ON encoded_leaves(string)")
        var duplicate = EncodingFixture.plain
        let error = try #require(throws: DatabaseError.self) { try db.insert(&duplicate) }
        #expect(error.resultCode == .constraintUnique)
        #expect(error.arguments?.positional.count == 18)
    }

    /// A constraint error names the refused row's own values, not those of an earlier row the
    /// cached statement ran for through the Codable path.
    @Test func aConstraintErrorCarriesTheRefusedRowsOwnArguments() throws {
        let db = try Database(.inMemory)
        try db.migrate(EncodedLeaves.self)
        try db.execute(sql: "CREATE UNIQUE INDEX one_name ON encoded_leaves(string)")
        // The first insert and update prepare and cache the statements.
        var first = EncodingFixture.plain
        try db.insert(&first)
        try db.update(first)
        var second = EncodingFixture.plain
        second.string = "second"
        try db.insert(&second)
        var duplicate = EncodingFixture.plain
        duplicate.string = "second"
        duplicate.int = 777
        let insertError = try #require(throws: DatabaseError.self) { try db.insert(&duplicate) }
        #expect(insertError.resultCode == .constraintUnique)
        let inserted = try #require(insertError.arguments?.positional)
        // The INSERT's columns start with the rowid key, NULL for SQLite to assign.
        #expect(Array(inserted.prefix(2)) == [.null, .integer(777)])
        #expect(inserted.contains(.text("second")))
        #expect(!inserted.contains(.text("plain")))
        second.string = "plain"
        second.int = 555
        let updateError = try #require(throws: DatabaseError.self) { try db.update(second) }
        #expect(updateError.resultCode == .constraintUnique)
        let updated = try #require(updateError.arguments?.positional)
        #expect(updated.first == .integer(555))
        #expect(updated.last == .integer(second.id ?? 0))
        #expect(try db.count(EncodedLeaves.self) == 2)
    }

    @Test func updateOfAMissingRowIsReported() throws {
        let db = try Database(.inMemory)
        var model = EncodingFixture.plain
        try db.insert(&model)
        model.string = "changed"
        try db.update(model)
        #expect(try db.fetchOne(String.self, sql: "SELECT string FROM encoded_leaves") == "changed")
        model.id = 99
        let error = try #require(throws: PersistenceError.self) { try db.update(model) }
        #expect(error.isRowNotFound)
    }
}

private enum EncodingFixture {
    static let plain = EncodedLeaves(
        id: nil, int: 1, int8: 2, int16: 3, int32: 4, int64: 5, uint: 6, uint8: 7, uint16: 8, uint32: 9,
        uint64: 10, double: 1.5, float: 2.5, bool: true, string: "plain", data: Data([1, 2]),
        date: Date(timeIntervalSinceReferenceDate: 0), strings: ["a", "b"])
}
