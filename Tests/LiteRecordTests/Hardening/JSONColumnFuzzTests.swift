import Foundation
import LiteRecord
import Testing

/// One JSON column, decoded as a property (`SELECT ? AS value`).
private struct JSONColumnValue<T: Decodable>: Decodable {
    var value: T
}

/// A type that reads JSON columns through nested containers and a super decoder, the way
/// hand-written `init(from:)` does, instead of decoding each column as one value.
private struct NestedReader: Decodable, Equatable {
    var wins: Int
    var label: String?
    var first: Double?
    var extra: [String: Int]

    enum Keys: String, CodingKey { case stats, list, extra }
    enum StatsKeys: String, CodingKey { case wins, label }

    init(wins: Int, label: String?, first: Double?, extra: [String: Int]) {
        (self.wins, self.label, self.first, self.extra) = (wins, label, first, extra)
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Keys.self)
        let stats = try container.nestedContainer(keyedBy: StatsKeys.self, forKey: .stats)
        wins = try stats.decode(Int.self, forKey: .wins)
        label = try stats.decodeIfPresent(String.self, forKey: .label)
        var list = try container.nestedUnkeyedContainer(forKey: .list)
        first = list.isAtEnd ? nil : try list.decode(Double?.self)
        extra = try [String: Int](from: container.superDecoder(forKey: .extra))
    }
}

/// A model whose JSON columns are queried with JSON paths, `contains`, `count` and subscripts.
private struct JSONHolder: Model {
    var id: Int64?
    var stats: FuzzInner
    var tags: [String]
    var scores: [String: Int]
    static let schema = Schema<JSONHolder>(table: "json_holders", primaryKey: \.id)
}

private struct HolderID: Decodable {
    var id: Int64
}

extension Hardening {
    /// Seeded fuzzing of JSON columns: random JSON-ish text and bytes (valid JSON of the right and of
    /// other shapes, random edits, escapes, lone surrogates, huge numbers, nesting 100,000 deep)
    /// decoded into JSON-stored types, read through nested containers, and queried in SQL. Nothing
    /// may crash; each outcome must be the documented one.
    @Suite struct JSONColumnFuzzTests {
        /// JSON text or bytes for a column: often a valid encoding of `T`, else JSON-ish noise.
        private static func jsonValue(
            _ source: inout FuzzSource, valid: (inout FuzzSource) -> DatabaseValue
        ) -> DatabaseValue {
            switch source.int(0...9) {
            case 0...3: valid(&source)
            case 4: .blob(Data(JSONFuzz.text(&source).utf8))
            case 5: source.databaseValue()
            default: .text(JSONFuzz.text(&source))
            }
        }

        /// Decodes batches of one-column rows into `T` and compares with a plain `JSONDecoder`
        /// (the JSON types here hold no dates, the one setting the library's decoder adds).
        private func fuzzValues<T: Codable & Equatable & Sendable>(
            _ type: T.Type, seed: UInt64, cases: Int, valid: @escaping (inout FuzzSource) -> T
        ) throws -> (decoded: Int, failed: Int) {
            let db = try Database(.inMemory)
            var source = FuzzSource(seed: seed)
            var counts = (decoded: 0, failed: 0)
            let batch = 100
            for _ in 0..<(cases / batch) {
                var values: [DatabaseValue] = []
                for _ in 0..<batch {
                    values.append(
                        Self.jsonValue(&source) { source in
                            (try? JSONEncoder().encode(valid(&source))).map {
                                .text(String(decoding: $0, as: UTF8.self))
                            }
                                ?? .null
                        })
                }
                let sql = SQL(
                    Array(repeating: "SELECT ? AS value", count: batch).joined(separator: " UNION ALL "),
                    arguments: StatementArguments(positional: values))
                let rows = try db.fetchAll(Row.self, sql: sql)
                for (value, row) in zip(values, rows) {
                    let expected: T?? =
                        switch value {
                        case .text(let text): .some(try? JSONDecoder().decode(T.self, from: Data(text.utf8)))
                        case .blob(let bytes): .some(try? JSONDecoder().decode(T.self, from: bytes))
                        default: nil  // NULL, INTEGER, REAL: not JSON
                        }
                    do {
                        let decoded = try RowDecoder().decode(JSONColumnValue<T>.self, from: row).value
                        counts.decoded += 1
                        if expected != .some(.some(decoded)) {
                            Issue.record(
                                "\(value) decoded as \(decoded), JSONDecoder says \(String(describing: expected))"
                            )
                        }
                    } catch let error as RowDecodingError {
                        counts.failed += 1
                        let kindIsRight: Bool =
                            switch value {
                            case .null: error.isNullValue
                            case .integer, .real: error.isTypeMismatch
                            default: error.isInvalidJSON && expected == .some(nil)
                            }
                        if !kindIsRight || error.column != "value" {
                            Issue.record(
                                "\(value) failed with \(error); JSONDecoder says \(String(describing: expected))"
                            )
                        }
                    } catch {
                        Issue.record("\(value) threw \(error), not a RowDecodingError")
                    }
                }
            }
            return counts
        }

        /// Arrays, dictionaries and sets (50,000 cases).
        @Test func randomJSONCollectionsDecodeExactlyAsJSONDecoderSays() throws {
            var total = (decoded: 0, failed: 0)
            func add(_ counts: (decoded: Int, failed: Int)) {
                total = (total.decoded + counts.decoded, total.failed + counts.failed)
            }
            add(
                try fuzzValues([String].self, seed: 1, cases: 20_000) { source in
                    (0..<source.int(0...3)).map { _ in source.text() }
                })
            add(
                try fuzzValues([String: Int].self, seed: 2, cases: 20_000) { source in
                    [source.unicodeText(maxLength: 3): Int(truncatingIfNeeded: source.integer())]
                })
            add(
                try fuzzValues(Set<Int8>.self, seed: 6, cases: 10_000) { source in
                    Set((0..<source.int(0...4)).map { _ in Int8(truncatingIfNeeded: source.integer()) })
                })
            #expect(total.decoded > 10_000 && total.failed > 10_000, "\(total)")
        }

        /// Nested structs, enums with associated values and recursive enums (50,000 cases).
        @Test func randomJSONStructuresDecodeExactlyAsJSONDecoderSays() throws {
            var total = (decoded: 0, failed: 0)
            func add(_ counts: (decoded: Int, failed: Int)) {
                total = (total.decoded + counts.decoded, total.failed + counts.failed)
            }
            add(
                try fuzzValues(FuzzInner.self, seed: 3, cases: 20_000) { source in
                    FuzzInner(
                        wins: source.int(-9...9), label: source.chance(0.5) ? source.text() : nil,
                        values: [source.real()].filter(\.isFinite))
                })
            add(
                try fuzzValues(FuzzShapeEnum.self, seed: 4, cases: 15_000) { source in
                    source.pick([
                        .none, .circle(radius: source.real()),
                        .rectangle(width: source.int(-9...9), height: 0),
                    ])
                })
            add(
                try fuzzValues(FuzzTree.self, seed: 5, cases: 15_000) { source in
                    .node([
                        .leaf(source.int(0...9)), .node([.leaf(Int(truncatingIfNeeded: source.integer()))]),
                    ])
                })
            #expect(total.decoded > 10_000 && total.failed > 10_000, "\(total)")
        }

        /// Columns read through `nestedContainer`, `nestedUnkeyedContainer` and `superDecoder`: a
        /// valid encoding reads back exactly; anything else decodes or throws a decoding error.
        @Test func nestedContainersReadValidJSONAndRejectTheRest() throws {
            let db = try Database(.inMemory)
            var source = FuzzSource(seed: 0x4E57)
            var counts = (valid: 0, decoded: 0, failed: 0)
            for _ in 0..<20_000 {
                let expected = NestedReader(
                    wins: Int(truncatingIfNeeded: source.integer()),
                    label: source.chance(0.5) ? source.text() : nil,
                    first: source.chance(0.5) ? source.real() : nil,
                    extra: [source.unicodeText(maxLength: 4): source.int(-9...9)])
                let valid = source.chance(0.4)
                func column(_ json: @autoclosure () -> String) -> DatabaseValue {
                    valid ? .text(json()) : Self.jsonValue(&source) { _ in .text(json()) }
                }
                func encoded(_ value: some Encodable) -> String {
                    (try? JSONEncoder().encode(value)).map { String(decoding: $0, as: UTF8.self) } ?? "null"
                }
                struct Stats: Encodable {
                    var wins: Int
                    var label: String?
                }
                let values = [
                    column(encoded(Stats(wins: expected.wins, label: expected.label))),
                    column(expected.first.map { encoded([$0]) } ?? "[]"), column(encoded(expected.extra)),
                ]
                let sql = SQL(
                    "SELECT ? AS stats, ? AS list, ? AS extra",
                    arguments: StatementArguments(positional: values))
                do {
                    let decoded = try db.fetchOne(NestedReader.self, sql: sql)
                    counts.decoded += 1
                    if valid && decoded != expected && !(expected.first?.isNaN ?? false) {
                        Issue.record("\(values) read as \(String(describing: decoded)), expected \(expected)")
                    }
                } catch is RowDecodingError, is DecodingError {
                    counts.failed += 1
                    if valid && expected.first?.isFinite != false {
                        Issue.record("valid \(values) failed to decode")
                    }
                } catch {
                    Issue.record("\(values) threw \(error)")
                }
                counts.valid += valid ? 1 : 0
            }
            #expect(counts.decoded > 5_000 && counts.failed > 5_000, "\(counts)")
        }

        /// JSON conditions over columns holding random JSON-ish text: SQLite either answers or
        /// reports malformed JSON as a ``DatabaseError``; on JSON that decodes, the answer is the
        /// one Swift gives on the decoded value.
        @Test func jsonConditionsOnRandomTextAnswerOrThrowDatabaseErrors() throws {
            let db = try Database(.inMemory)
            try db.migrate(JSONHolder.self)
            let before = try schemaSnapshot(db)
            var source = FuzzSource(seed: 0x5A1)
            let rows = 2_500
            var texts: [(stats: DatabaseValue, tags: DatabaseValue, scores: DatabaseValue)] = []
            try db.transaction { tx in
                for id in 1...rows {
                    let rawStats = Self.jsonValue(&source) { source in
                        JSONShape.encoded(FuzzInner(wins: source.int(-3...3), label: nil, values: []))
                    }
                    let rawTags = Self.jsonValue(&source) { source in
                        JSONShape.encoded([source.pick(["a", "b", "a\u{1}", "é"])])
                    }
                    let rawScores = Self.jsonValue(&source) { source in
                        JSONShape.encoded(["k": source.int(0...2)])
                    }
                    // The columns are NOT NULL: a NULL stands for JSON null there.
                    func orNull(_ value: DatabaseValue) -> DatabaseValue { value.isNull ? "null" : value }
                    let (stats, tags, scores) = (orNull(rawStats), orNull(rawTags), orNull(rawScores))
                    texts.append((stats, tags, scores))
                    try tx.execute(
                        sql:
                            "INSERT INTO json_holders(id, stats, tags, scores) VALUES (\(id), \(stats), \(tags), \(scores))"
                    )
                }
            }
            func decode<T: Decodable>(_ type: T.Type, _ value: DatabaseValue) -> T? {
                switch value {
                case .text(let text): try? JSONDecoder().decode(T.self, from: Data(text.utf8))
                case .blob(let bytes): try? JSONDecoder().decode(T.self, from: bytes)
                default: nil
                }
            }
            var answered = 0
            var malformed = 0
            for (index, row) in texts.enumerated() {
                let id = Int64(index + 1)
                let query = db.query(JSONHolder.self).where { $0.id == id }
                let conditions: [(String, Query<JSONHolder>, Bool?)] = [
                    (
                        "stats.wins >= 0", query.where { $0.stats.wins >= 0 },
                        decode(FuzzInner.self, row.stats).map { $0.wins >= 0 }
                    ),
                    (
                        "tags.contains", query.where { $0.tags.contains("a") },
                        decode([String].self, row.tags).map { $0.contains("a") }
                    ),
                    (
                        "tags.count > 0", query.where { $0.tags.count > 0 },
                        decode([String].self, row.tags).map { $0.count > 0 }
                    ),
                    (
                        "scores[k] == 1", query.where { $0.scores["k"] == 1 },
                        decode([String: Int].self, row.scores).map { $0["k"] == 1 }
                    ),
                ]
                for (name, condition, swift) in conditions {
                    do {
                        let matched = try !condition.select(HolderID.self).fetchAll().isEmpty
                        answered += 1
                        if let swift, swift != matched {
                            Issue.record(
                                "\(name) on row \(id) (\(row)) is \(matched) in SQL, \(swift) in Swift")
                        }
                    } catch let error as DatabaseError {
                        malformed += 1
                        if swift != nil {
                            Issue.record("\(name) on row \(id) (\(row)), valid JSON, failed: \(error)")
                        }
                    }
                }
            }
            #expect(answered > rows && malformed > rows / 10, "answered \(answered), malformed \(malformed)")
            #expect(try schemaSnapshot(db) == before)
            #expect(try db.fetchOne(String.self, sql: "PRAGMA integrity_check") == "ok")
        }
    }
}
