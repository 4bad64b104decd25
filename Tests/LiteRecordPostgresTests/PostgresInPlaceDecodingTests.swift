import Foundation
import LiteRecord
import LiteRecordPostgres
import LiteRecordTestSupport
import Testing

// Rows decoded straight from the PGresult (issue 32, item 3): a struct that decodes in place on
// SQLite is built from the result's values here too. Each test runs a query once and decodes
// its one PGresult both ways, in place and through copied rows and `init(from:)`, which must
// agree on every value and every error; the query runs three times, so that both the text
// results of its first run and the binary results of its prepared form are compared.

/// Every property type layout decoding writes, plain and optional.
struct InPlaceLeaves: Model, Equatable {
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
    var optionalInt: Int?
    var optionalDouble: Double?
    var optionalFloat: Float?
    var optionalBool: Bool?
    var optionalString: String?
    var optionalData: Data?
    var optionalDate: Date?
    var optionalStrings: [String]?
    static let schema = Schema<InPlaceLeaves>(table: "in_place_leaves")

    /// Whether two values are the same bit for bit (`-0.0` is not `0.0`).
    func isIdentical(to other: InPlaceLeaves) -> Bool {
        self == other && double.bitPattern == other.double.bitPattern
            && float.bitPattern == other.float.bitPattern
            && optionalDouble?.bitPattern == other.optionalDouble?.bitPattern
            && optionalFloat?.bitPattern == other.optionalFloat?.bitPattern
            && date.timeIntervalSinceReferenceDate.bitPattern
                == other.date.timeIntervalSinceReferenceDate.bitPattern
    }
}

/// A read-only shape over SQL-made columns, for values a model's own table never holds.
struct InPlaceProbe: Decodable, Equatable {
    var number: Int8
    var text: String
    var ratio: Double
    var flag: Bool
    var when: Date
    var tags: [String]
    var note: String?
}

@Suite(.enabled(if: PostgresTestServer.isAvailable, PostgresTestServer.skipMessage), .offCooperativePool)
struct PostgresInPlaceDecodingTests {
    @Test func everyLeafTypeDecodesInPlace() {
        #expect(RowDecoder.decodesInPlace(InPlaceLeaves.self))
        #expect(RowDecoder.decodesInPlace(InPlaceProbe.self))
    }

    @Test func randomRowsOfEveryLeafReadTheSameBothWays() throws {
        let pg = try PostgresTestServer.freshDatabase()
        var generator = InPlaceSplitMix(seed: 32)
        var stored: [InPlaceLeaves] = []
        for index in 0..<300 {
            var row = Self.randomRow(index, using: &generator)
            try pg.insert(&row)
            stored.append(row)
        }
        let decoder = try pg.rowDecoder(for: InPlaceLeaves.self)
        let sql: SQL = #"SELECT * FROM "in_place_leaves" ORDER BY "id""#
        for _ in 0..<3 {
            let (inPlace, copied, builtInPlace) = try pg.decodeBothWays(
                InPlaceLeaves.self, sql: sql, decoder: decoder)
            let fast = try inPlace.get()
            let reference = try copied.get()
            #expect(builtInPlace)
            #expect(fast.count == stored.count)
            let sameAsCopied = zip(fast, reference).allSatisfy { $0.isIdentical(to: $1) }
            let sameAsStored = zip(fast, stored).allSatisfy { $0.isIdentical(to: $1) }
            #expect(sameAsCopied)
            #expect(sameAsStored)
        }
        // The public paths read the same rows.
        let all = try pg.fetchAll(InPlaceLeaves.self)
        let allSame = all.count == stored.count && zip(all, stored).allSatisfy { $0.isIdentical(to: $1) }
        #expect(allSame)
        let queried = try pg.query(InPlaceLeaves.self).order({ $0.id.ascending }).fetchAll()
        let queriedSame =
            queried.count == stored.count && zip(queried, stored).allSatisfy { $0.isIdentical(to: $1) }
        #expect(queriedSame)
        for row in stored.prefix(20) {
            let found = try #require(try pg.find(InPlaceLeaves.self, id: row.id))
            #expect(found.isIdentical(to: row))
        }
    }

    @Test func stringArraysThatNeedTheJSONDecoderReadTheSameBothWays() throws {
        let pg = try PostgresTestServer.freshDatabase()
        var generator = InPlaceSplitMix(seed: 7)
        var row = Self.randomRow(0, using: &generator)
        row.strings = ["a \"quoted\" word", "back\\slash", "tab\tand\nnewline", "\u{1}"]
        row.optionalStrings = []
        try pg.insert(&row)
        let decoder = try pg.rowDecoder(for: InPlaceLeaves.self)
        for _ in 0..<3 {
            let (inPlace, copied, builtInPlace) = try pg.decodeBothWays(
                InPlaceLeaves.self, sql: #"SELECT * FROM "in_place_leaves""#, decoder: decoder)
            // Escapes are for `JSONDecoder`: the row is declined, then read through `init(from:)`.
            #expect(!builtInPlace)
            let fast = try inPlace.get()
            let reference = try copied.get()
            #expect(fast == reference)
            #expect(fast == [row])
            // A find's one row, declined, reads the same through `init(from:)`.
            let found = try pg.find(InPlaceLeaves.self, id: row.id)
            #expect(found == row)
        }
    }

    /// SQL-made rows: each value either reads the same both ways or fails the same way.
    @Test(arguments: [
        // Read in place.
        "SELECT 7::int8 AS number, 'é ✓ 𝄞' AS text, '-0'::float8 AS ratio, true AS flag, "
            + "'2024-05-17 13:45:30.25' AS \"when\", '[\"a\", \"b\"]'::jsonb AS tags, NULL AS note",
        "SELECT -128::int2 AS number, '' AS text, 'Infinity'::float8 AS ratio, false AS flag, "
            + "'2024-05-17T13:45:30Z' AS \"when\", '[]'::jsonb AS tags, 'n' AS note",
        "SELECT 127::int4 AS number, 'x' AS text, 3::int8 AS ratio, 1::int8 AS flag, "
            + "'1970-01-01' AS \"when\", '[\"x\"]'::text AS tags, '' AS note",
        // Declined, then read (or refused) by `init(from:)`.
        "SELECT 7::int8 AS number, 'x' AS text, 1.5::numeric AS ratio, true AS flag, "
            + "'2024-05-17' AS \"when\", '[\"a\\\\u0041\"]'::jsonb AS tags, NULL AS note",
        "SELECT 128::int8 AS number, 'x' AS text, 1.5::float8 AS ratio, true AS flag, "
            + "'2024-05-17' AS \"when\", '[]'::jsonb AS tags, NULL AS note",
        "SELECT NULL::int8 AS number, 'x' AS text, 1.5::float8 AS ratio, true AS flag, "
            + "'2024-05-17' AS \"when\", '[]'::jsonb AS tags, NULL AS note",
        "SELECT 1::int8 AS number, 5 AS text, 1.5::float8 AS ratio, true AS flag, "
            + "'2024-05-17' AS \"when\", '[]'::jsonb AS tags, NULL AS note",
        "SELECT 1::int8 AS number, 'x' AS text, 'x' AS ratio, true AS flag, "
            + "'2024-05-17' AS \"when\", '[]'::jsonb AS tags, NULL AS note",
        "SELECT 1::int8 AS number, 'x' AS text, 1.5::float8 AS ratio, 2::int8 AS flag, "
            + "'2024-05-17' AS \"when\", '[]'::jsonb AS tags, NULL AS note",
        "SELECT 1::int8 AS number, 'x' AS text, 1.5::float8 AS ratio, true AS flag, "
            + "'2024-13-17' AS \"when\", '[]'::jsonb AS tags, NULL AS note",
        "SELECT 1::int8 AS number, 'x' AS text, 1.5::float8 AS ratio, true AS flag, "
            + "'1700000000' AS \"when\", '[]'::jsonb AS tags, NULL AS note",
        "SELECT 1::int8 AS number, 'x' AS text, 1.5::float8 AS ratio, true AS flag, "
            + "'2024-05-17' AS \"when\", '[1, 2]'::jsonb AS tags, NULL AS note",
        "SELECT 1::int8 AS number, 'x' AS text, 1.5::float8 AS ratio, true AS flag, "
            + "'2024-05-17' AS \"when\", '{\"a\": 1}'::jsonb AS tags, NULL AS note",
        "SELECT 1::int8 AS number, 'x' AS text, 1.5::float8 AS ratio, true AS flag, "
            + "'2024-05-17' AS \"when\", NULL::jsonb AS tags, NULL AS note",
        "SELECT 1::int8 AS number, 'x' AS text, 1.5::float8 AS ratio, true AS flag, "
            + "'2024-05-17' AS \"when\", '[]'::jsonb AS tags",
        "SELECT 1::int8 AS number, 'x' AS text, 1.5::float8 AS ratio, true AS flag, '[]'::jsonb AS tags",
        "SELECT 1::int8 AS number, '\\x41'::bytea AS text, 1.5::float8 AS ratio, true AS flag, "
            + "'2024-05-17' AS \"when\", '[]'::jsonb AS tags, NULL AS note",
        "SELECT 1.0::float8 AS number, 'x' AS text, 1.5::float4 AS ratio, 'true' AS flag, "
            + "'2024-05-17' AS \"when\", '[]'::jsonb AS tags, NULL AS note",
    ])
    func sqlMadeValuesReadOrFailTheSameBothWays(_ select: String) throws {
        let pg = try PostgresTestServer.freshDatabase()
        let sql = SQL(verbatim: select)
        // Two rows, the second the first: a decline on any row sends every row one way.
        let twice = SQL(
            verbatim: "SELECT * FROM (\(select)) AS once UNION ALL SELECT * FROM (\(select)) AS again")
        for query in [sql, twice] {
            for _ in 0..<3 {
                let (inPlace, copied, _) = try pg.decodeBothWays(
                    InPlaceProbe.self, sql: query, decoder: RowDecoder())
                switch (inPlace, copied) {
                case (.success(let fast), .success(let reference)):
                    #expect(fast == reference)
                    let fastBits = fast.map(\.ratio.bitPattern)
                    #expect(fastBits == reference.map(\.ratio.bitPattern))
                case (.failure(let fast), .failure(let reference)):
                    let fastError = fast as? RowDecodingError
                    let referenceError = reference as? RowDecodingError
                    #expect(fastError != nil)
                    #expect(String(describing: fast) == String(describing: reference))
                    #expect(fastError?.isNullValue == referenceError?.isNullValue)
                    #expect(fastError?.isTypeMismatch == referenceError?.isTypeMismatch)
                    #expect(fastError?.isInvalidJSON == referenceError?.isInvalidJSON)
                    #expect(fastError?.isMissingColumn == referenceError?.isMissingColumn)
                    #expect(fastError?.column == referenceError?.column)
                default:
                    Issue.record("in place: \(inPlace), copied: \(copied)")
                }
            }
        }
    }

    // MARK: - Random rows

    static func randomRow(_ index: Int, using generator: inout InPlaceSplitMix) -> InPlaceLeaves {
        func pick<T>(_ choices: [T]) -> T { choices[Int(generator.next() % UInt64(choices.count))] }
        func integer<T: FixedWidthInteger>(_ type: T.Type, upTo limit: T = T.max) -> T {
            pick([T.min, limit, 0, 1, T(truncatingIfNeeded: generator.next()) & limit])
        }
        let doubles: [Double] = [
            0, -0.0, 1, -1, .infinity, -.infinity, .greatestFiniteMagnitude, -.greatestFiniteMagnitude,
            .leastNonzeroMagnitude, .ulpOfOne, 0.1, 1e300, -2.5e-300,
            Double(bitPattern: generator.next() & 0x7FEF_FFFF_FFFF_FFFF),
        ]
        let floats: [Float] = [
            0, -0.0, 1.5, .infinity, -.infinity, .greatestFiniteMagnitude, .leastNonzeroMagnitude, 0.1,
        ]
        let strings = ["", "plain", "é ✓ 𝄞 日本", "quote \" and \\ backslash", "line\nbreak", "'single'", "☃️👩‍👩‍👧"]
        let arrays: [[String]] = [
            [], ["a"], ["é", "𝄞", ""], ["x", "y z", "ü"], [String](repeating: "r", count: 20),
        ]
        let datas: [Data] = [Data(), Data([0]), Data([0xFF, 0, 0x41]), Data((0..<64).map { UInt8($0 * 4) })]
        let dates: [Date] = [
            Date(timeIntervalSinceReferenceDate: 0), Date(timeIntervalSinceReferenceDate: -1_000_000_000.5),
            Date(timeIntervalSinceReferenceDate: 800_000_000.25),
            Date(timeIntervalSinceReferenceDate: Double(generator.next() % 2_000_000_000)),
        ]
        func isNull() -> Bool { generator.next() % 3 == 0 }
        return InPlaceLeaves(
            id: nil,
            int: integer(Int.self), int8: integer(Int8.self), int16: integer(Int16.self),
            int32: integer(Int32.self), int64: integer(Int64.self),
            uint: pick([0, 1, UInt(Int.max), UInt(generator.next() >> 1)]), uint8: integer(UInt8.self),
            uint16: integer(UInt16.self), uint32: integer(UInt32.self),
            uint64: pick([0, 1, UInt64(Int64.max), generator.next() >> 1]),
            double: pick(doubles), float: pick(floats), bool: generator.next() % 2 == 0,
            string: pick(strings) + String(index), data: pick(datas), date: pick(dates),
            strings: pick(arrays),
            optionalInt: isNull() ? nil : integer(Int.self), optionalDouble: isNull() ? nil : pick(doubles),
            optionalFloat: isNull() ? nil : pick(floats),
            optionalBool: isNull() ? nil : generator.next() % 2 == 0,
            optionalString: isNull() ? nil : pick(strings), optionalData: isNull() ? nil : pick(datas),
            optionalDate: isNull() ? nil : pick(dates), optionalStrings: isNull() ? nil : pick(arrays))
    }
}

/// A small seeded generator, so that a failure can be replayed.
struct InPlaceSplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
