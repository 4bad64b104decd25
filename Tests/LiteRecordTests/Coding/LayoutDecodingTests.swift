import Foundation
import LiteRecord
import Testing

// MARK: - Types that qualify

private struct Ints: Codable, Equatable {
    var a: Int
    var b: Int64
    var c: Int32
    var d: UInt8
}

private struct Mixed: Codable, Equatable {
    var id: Int64?
    var name: String
    var ratio: Double
    var flag: Bool
    var when: Date
    var tags: [String]
    var note: String?
    var bytes: Data?
}

/// Renamed keys, declared in another order than the properties: still a plain mapping.
private struct Renamed: Codable, Equatable {
    var first: Int
    var second: String
    enum CodingKeys: String, CodingKey {
        case second = "s_col"
        case first = "f_col"
    }
}

// MARK: - Types that keep init(from:)

/// Rejects negative scores.
private struct Validating: Codable, Equatable {
    var score: Int
    init(score: Int) { self.score = score }
    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        score = try container.decode(Int.self, forKey: .score)
        guard score >= 0 else {
            throw DecodingError.dataCorruptedError(
                forKey: .score, in: container, debugDescription: "negative")
        }
    }
}

/// Lowercases its name.
private struct Lowercasing: Codable, Equatable {
    var name: String
    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        name = try container.decode(String.self, forKey: .name).lowercased()
    }
}

/// Clamps to 0...100.
private struct Clamping: Codable, Equatable {
    var level: Int
    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        level = min(100, max(0, try container.decode(Int.self, forKey: .level)))
    }
}

/// Reads NULL as 7.
private struct Defaulting: Codable, Equatable {
    var count: Int?
    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        count = try container.decodeIfPresent(Int.self, forKey: .count) ?? 7
    }
}

/// One property from two columns.
private struct Summing: Codable, Equatable {
    var total: Int
    var other: Int
    enum CodingKeys: String, CodingKey { case x, y }
    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let x = try container.decode(Int.self, forKey: .x)
        let y = try container.decode(Int.self, forKey: .y)
        total = x + y
        other = y
    }
    func encode(to encoder: any Encoder) throws {}
}

/// A property that no column fills.
private struct Constant: Codable, Equatable {
    var value: Int
    var version: Int = 3
    enum CodingKeys: String, CodingKey { case value }
}

private final class Reference: Codable {
    var value: Int = 0
}

private struct Nested: Codable, Equatable {
    var value: Int
    var inner: Ints
}

private enum Team: String, Codable { case red, blue }

private struct WithEnum: Codable {
    var team: Team
}

@Suite struct LayoutDecodingTests {
    @Test func plainStructsAreDecodedInPlace() {
        #expect(RowDecoder.decodesInPlace(Ints.self))
        #expect(RowDecoder.decodesInPlace(Mixed.self))
        #expect(RowDecoder.decodesInPlace(Renamed.self))
    }

    @Test func initializersThatChangeValuesKeepTheirPath() {
        #expect(!RowDecoder.decodesInPlace(Validating.self))
        #expect(!RowDecoder.decodesInPlace(Lowercasing.self))
        #expect(!RowDecoder.decodesInPlace(Clamping.self))
        #expect(!RowDecoder.decodesInPlace(Defaulting.self))
        #expect(!RowDecoder.decodesInPlace(Summing.self))
        #expect(!RowDecoder.decodesInPlace(Constant.self))
    }

    @Test func typesWithoutAPlainLayoutKeepInitFromDecoder() {
        #expect(!RowDecoder.decodesInPlace(Reference.self))
        #expect(!RowDecoder.decodesInPlace(Nested.self))
        #expect(!RowDecoder.decodesInPlace(WithEnum.self))
        #expect(!RowDecoder.decodesInPlace(Int.self))
        #expect(!RowDecoder.decodesInPlace([Int].self))
    }

    @Test func valuesReadInPlaceAreTheStoredOnes() throws {
        let db = try Database(.inMemory)
        let rows: [Mixed] = try db.fetchAll(
            Mixed.self,
            sql: """
                SELECT 1 AS id, 'Ünïcode 😀' AS name, 2.5 AS ratio, 1 AS flag, \
                '2026-11-30 12:34:56.789' AS "when", '["a","b"]' AS tags, NULL AS note, x'00ff' AS bytes \
                UNION ALL SELECT NULL, '', 3, 0, '2026-11-30', '[]', 'n', NULL
                """)
        #expect(
            rows == [
                Mixed(
                    id: 1, name: "Ünïcode 😀", ratio: 2.5, flag: true,
                    when: try DateStorage.text.date(from: .text("2026-11-30 12:34:56.789")),
                    tags: ["a", "b"],
                    note: nil, bytes: Data([0, 255])),
                Mixed(
                    id: nil, name: "", ratio: 3, flag: false,
                    when: try DateStorage.text.date(from: .text("2026-11-30")), tags: [], note: "n",
                    bytes: nil),
            ])
        let renamed = try db.fetchAll(Renamed.self, sql: "SELECT 'x' AS s_col, 4 AS f_col")
        #expect(renamed == [Renamed(first: 4, second: "x")])
    }

    @Test func aValidatingInitializerStillRejectsBadRows() throws {
        let db = try Database(.inMemory)
        #expect(try db.fetchAll(Validating.self, sql: "SELECT 5 AS score") == [Validating(score: 5)])
        // The type's own error, as `init(from:)` throws it.
        #expect(throws: DecodingError.self) {
            try db.fetchAll(Validating.self, sql: "SELECT -1 AS score")
        }
        let lowered = try db.fetchAll(Lowercasing.self, sql: "SELECT 'MiXed' AS name")
        #expect(lowered.map(\.name) == ["mixed"])
        let defaulted = try db.fetchAll(Defaulting.self, sql: "SELECT NULL AS count")
        #expect(defaulted.map(\.count) == [7])
    }

    /// A row the in-place read declines, after it wrote text into the row's memory, is decoded
    /// by `init(from:)`: the same error, and the rows before and after it unchanged.
    @Test func declinedRowsGiveTheInitializersErrors() throws {
        let db = try Database(.inMemory)
        try db.execute(sql: "CREATE TABLE t(id, name, ratio, flag, \"when\", tags, note, bytes)")
        try db.execute(
            sql: """
                INSERT INTO t VALUES (1, 'a', 1.0, 0, '2026-01-01', '[]', 'x', NULL), \
                (2, 'b', 1.0, 2, '2026-01-01', '["q"]', 'y', NULL), \
                (3, 'c', 1.0, 1, 'not a date', '[]', NULL, NULL), \
                (4, 'd', NULL, 1, '2026-01-01', '[]', NULL, NULL), \
                (5, 'e', 'text', 1, '2026-01-01', '[]', NULL, NULL), \
                (9223372036854775807, 'f', 1, 1, '2026-01-01', '[1]', NULL, NULL)
                """)
        let first = try db.fetchOne(Mixed.self, sql: "SELECT * FROM t WHERE id = 1")
        #expect(first?.name == "a")
        func failure(_ id: Int64) -> RowDecodingError? {
            do {
                _ = try db.fetchAll(Mixed.self, sql: "SELECT * FROM t WHERE id IN (1, \(id)) ORDER BY id")
                return nil
            } catch {
                return error as? RowDecodingError
            }
        }
        let badBool = failure(2)
        #expect(badBool?.column == "flag")
        #expect(badBool?.isTypeMismatch == true)
        let badDate = failure(3)
        #expect(badDate?.column == "when")
        let null = failure(4)
        #expect(null?.column == "ratio")
        #expect(null?.isNullValue == true)
        let text = failure(5)
        #expect(text?.column == "ratio")
        #expect(text?.isTypeMismatch == true)
        let json = try? db.fetchAll(Mixed.self, sql: "SELECT * FROM t WHERE name = 'f'")
        #expect(json == nil)
    }

    @Test func missingColumnsGoThroughInitFromDecoder() throws {
        let db = try Database(.inMemory)
        #expect(throws: RowDecodingError.self) {
            try db.fetchAll(Ints.self, sql: "SELECT 1 AS a, 2 AS b, 3 AS c")
        }
        let partial = try db.fetchAll(
            Mixed.self,
            sql: """
                SELECT 1 AS id, 'n' AS name, 1 AS ratio, 0 AS flag, '2026-01-01' AS "when", '[]' AS tags
                """)
        #expect(partial.first?.note == nil)
        #expect(partial.first?.bytes == nil)
    }
}
