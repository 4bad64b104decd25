import Foundation
import LiteRecord
import Testing

// Differential tests: every predicate must select exactly the rows for which the same condition,
// evaluated in Swift on the decoded models, is true (DESIGN.md's promise).
//
// Known differences, kept out of the generated data and tested on their own elsewhere:
// - SQL compares strings by UTF-8 bytes, Swift by canonical equivalence (hasPrefix, hasSuffix and
//   contains follow Swift's grapheme clusters where the bytes match: GraphemeParityChecks tests
//   them). Generated text is NFC, and never joins two parts into one cluster (no modifiers, no
//   combining marks, no "\r\n"): there both agree, ordering included.
// - `String.contains("")` is `false` with Foundation imported (`true` without), and so is the
//   query's; the needles of `contains` are never empty here, where every shape must match some
//   rows (QueryStringPredicateTests and QueryOptionalDifferentialTests cover the empty needle).
// - The case-insensitive variants ignore the case of ASCII letters only; their Swift oracle
//   lowercases ASCII letters only (equal to `lowercased()` on ASCII text).
// - SQLite 3.40's JSON functions cut strings at an escaped NUL (`\u0000`): JSON strings here
//   never hold NUL (column text does).

private enum DiffColor: String, Codable, CaseIterable, Sendable { case red, green, blue }

private struct DiffInner: Codable, Equatable, Sendable {
    var depth: Int
    var code: String
}

private struct DiffDetail: Codable, Equatable, Sendable {
    var level: Int
    var label: String
    var active: Bool
    var weight: Double
    var inner: DiffInner
}

private struct DiffRecord: Model, Equatable {
    var id: Int64?
    var name: String
    var score: Int
    var ratio: Double
    var flag: Bool
    var color: DiffColor?
    var bonus: Int?
    var nickname: String?
    var joinedAt: Date
    var tags: [String]
    var marks: [Int?]
    var detail: DiffDetail
    var scores: [String: Int]

    static let schema = Schema<DiffRecord>(table: "diff_records", indexes: [[\.score], [\.name]])
}

/// One predicate shape: the query closure and the same condition in Swift.
private struct Shape {
    /// What the shape is, for failure messages (generated shapes); others are named by location.
    var name: String
    let sql: (Columns<DiffRecord>) -> Condition
    let swift: (DiffRecord) -> Bool
    /// Whether matching no row, or every row, is acceptable (otherwise the shape is too weak).
    var mayBeTrivial: Bool
    let sourceLocation: SourceLocation
}

private func shape(
    _ name: String, trivial: Bool = false, sourceLocation: SourceLocation = #_sourceLocation,
    _ sql: @escaping (Columns<DiffRecord>) -> Condition, _ swift: @escaping (DiffRecord) -> Bool
) -> Shape {
    Shape(name: name, sql: sql, swift: swift, mayBeTrivial: trivial, sourceLocation: sourceLocation)
}

private func shape(  // named by where it is written
    trivial: Bool = false, sourceLocation: SourceLocation = #_sourceLocation,
    _ sql: @escaping (Columns<DiffRecord>) -> Condition, _ swift: @escaping (DiffRecord) -> Bool
) -> Shape {
    shape("", trivial: trivial, sourceLocation: sourceLocation, sql, swift)
}

/// Lowercases ASCII letters only, as the case-insensitive predicates do.
private func asciiLowercased(_ text: String) -> String {
    String(decoding: text.utf8.map { (65...90).contains($0) ? $0 + 32 : $0 }, as: UTF8.self)
}

private struct DiffGenerator {
    var random: SeededGenerator

    static let nameParts = [
        "a", "b", "A", "B", "ab", "Ab", "aB", "z", "Z", "%", "_", "\\", "'", "\"", "\u{E9}", "\u{C9}",
        "\u{DF}", "\u{FC}", "\u{1F600}", "\u{1F389}", " ", "-", "0", "x%y", "a_b", "--;",
    ]
    static let labels = [
        "alpha", "Alpha", "a%b", "x_y", "back\\slash", "quote\"d", "\u{E9}t\u{E9}", "\u{1F600}", "", "s/y",
    ]
    static let tags = [
        "pro", "mvp", "Pro", "new", "a%b", "x_y", "back\\slash", "quote\"d", "\u{E9}", "\u{1F600}", "",
    ]
    static let keys = ["math", "art", "a.b", "we\"ird", "sp ace", "\u{E9}", "a/b", "back\\slash", "tab\tkey"]
    static let baseDate = Date(timeIntervalSinceReferenceDate: 700_000_000.25)

    mutating func chance(_ probability: Double) -> Bool {
        Double.random(in: 0..<1, using: &random) < probability
    }

    mutating func pick<T>(_ values: [T]) -> T { values[Int.random(in: 0..<values.count, using: &random)] }

    mutating func name() -> String {
        if chance(0.03) { return "" }
        var parts = (0..<Int.random(in: 1...5, using: &random)).map { _ in pick(Self.nameParts) }
        if chance(0.05) { parts.insert("\u{0}", at: Int.random(in: 0...parts.count, using: &random)) }
        return parts.joined()
    }

    mutating func score() -> Int {
        if chance(0.05) { return pick([0, 1 << 40, -(1 << 40), 2_000_000_000, -2_000_000_000]) }
        return Int.random(in: -50...50, using: &random)
    }

    mutating func ratio() -> Double {
        if chance(0.1) { return pick([0.0, -0.0, 1e300, -1e-300, .infinity, -.infinity, 0.5]) }
        return Double.random(in: -1...1, using: &random)
    }

    mutating func date() -> Date {
        if chance(0.05) { return Self.baseDate }
        let fraction = chance(0.5) ? 0 : Double.random(in: 0..<1, using: &random)
        return Date(
            timeIntervalSinceReferenceDate: Double(
                Int.random(in: -2_000_000_000...2_000_000_000, using: &random)) + fraction)
    }

    mutating func record() -> DiffRecord {
        DiffRecord(
            id: nil, name: name(), score: score(), ratio: ratio(), flag: chance(0.5),
            color: chance(0.3) ? nil : pick(DiffColor.allCases),
            bonus: chance(0.3) ? nil : Int.random(in: -5...5, using: &random),
            nickname: chance(0.4) ? nil : pick(["x", "X", "ab", "", "%", "\u{E9}"]),
            joinedAt: date(),
            tags: (0..<Int.random(in: 0...4, using: &random)).map { _ in pick(Self.tags) },
            marks: (0..<Int.random(in: 0...3, using: &random)).map { _ in pick([nil, 1, 2]) },
            detail: DiffDetail(
                level: Int.random(in: -5...20, using: &random), label: pick(Self.labels), active: chance(0.5),
                weight: chance(0.2) ? 0.5 : Double.random(in: 0..<1, using: &random),
                inner: DiffInner(
                    depth: Int.random(in: -3...3, using: &random), code: pick(["x", "y", "Y", ""]))),
            scores: Dictionary(
                uniqueKeysWithValues: Self.keys.filter { _ in chance(0.4) }.map {
                    ($0, Int.random(in: -3...3, using: &random))
                }))
    }
}

/// A database of random models, and the models as decoded from it.
private struct DiffFixture {
    let db: Database
    let all: [DiffRecord]

    init(seed: UInt64 = 20_250_105, count: Int = 3_000) throws {
        db = try Database(.inMemory)
        var generator = DiffGenerator(random: SeededGenerator(seed: seed))
        let inserted = try db.insert(contentsOf: (0..<count).map { _ in generator.record() })
        all = try db.query(DiffRecord.self).order { $0.id.ascending }.fetchAll()
        #expect(all == inserted, "models must survive the round trip for the Swift side to be fair")
    }

    /// A value found in the data, for equality shapes that must match something.
    func sample<T>(_ index: Int, _ value: (DiffRecord) -> T) -> T { value(all[index * 37 % all.count]) }

    func verify(_ shapes: [Shape]) throws {
        for shape in shapes {
            let sourceLocation = shape.sourceLocation
            let query = db.query(DiffRecord.self).where(shape.sql)
            let expected = Set(all.filter(shape.swift).compactMap(\.id))
            let fetched = try query.fetchAll()
            let ids = Set(fetched.compactMap(\.id))
            let wrong = all.filter { ids.contains($0.id!) != expected.contains($0.id!) }.prefix(3)
            let agrees = ids == expected
            #expect(
                agrees,
                """
                \(shape.name) \(query.sqlDescription): \(ids.count) rows, Swift says \(expected.count); \
                differs on names \(wrong.map(\.name.debugDescription))
                """,
                sourceLocation: sourceLocation)
            #expect(
                fetched.count == ids.count, "\(shape.name): duplicate rows", sourceLocation: sourceLocation)
            let (count, exists) = (try query.count(), try query.exists())
            #expect(count == expected.count, "\(shape.name): count", sourceLocation: sourceLocation)
            #expect(exists == !expected.isEmpty, "\(shape.name): exists", sourceLocation: sourceLocation)
            if !shape.mayBeTrivial {
                #expect(
                    !expected.isEmpty && expected.count < all.count, "\(shape.name) is trivial on this data",
                    sourceLocation: sourceLocation)
            }
        }
    }
}

@Suite struct QueryDifferentialTests {
    @Test func numbersBooleansAndDates() throws {
        let fixture = try DiffFixture()
        let score = fixture.sample(1, \.score)
        let ratio = fixture.sample(2, \.ratio)
        let date = fixture.sample(3, \.joinedAt)
        let early = DiffGenerator.baseDate.addingTimeInterval(-1e8)
        try fixture.verify([
            shape({ $0.score > 10 }, { $0.score > 10 }),
            shape({ $0.score >= 0 }, { $0.score >= 0 }),
            shape({ $0.score < -5 }, { $0.score < -5 }),
            shape({ $0.score <= score }, { $0.score <= score }),
            shape({ $0.score == score }, { $0.score == score }),
            shape({ $0.score != score }, { $0.score != score }),
            shape({ [1, 2, 3, score].contains($0.score) }, { [1, 2, 3, score].contains($0.score) }),
            shape(trivial: true, { $0.score.in([Int]()) }, { _ in false }),
            shape({ (-10...10).contains($0.score) }, { (-10...10).contains($0.score) }),
            shape({ (-10..<10).contains($0.score) }, { (-10..<10).contains($0.score) }),
            shape({ $0.score + 5 > 20 }, { $0.score + 5 > 20 }),
            shape({ $0.score * 2 <= -7 }, { $0.score * 2 <= -7 }),
            shape({ $0.ratio > 0.5 }, { $0.ratio > 0.5 }),
            shape({ $0.ratio <= 0 }, { $0.ratio <= 0 }),
            shape({ $0.ratio == 0 }, { $0.ratio == 0 }),
            shape({ $0.ratio == ratio }, { $0.ratio == ratio }),
            shape({ $0.ratio != ratio }, { $0.ratio != ratio }),
            shape({ (-0.25...0.25).contains($0.ratio) }, { (-0.25...0.25).contains($0.ratio) }),
            shape({ $0.ratio < -1e308 || $0.ratio > 1e308 }, { $0.ratio < -1e308 || $0.ratio > 1e308 }),
            shape({ $0.flag == true }, { $0.flag == true }),
            shape({ $0.flag != true }, { $0.flag != true }),
            shape({ $0.flag.isTrue }, { $0.flag }),
            shape({ !$0.flag.isTrue && $0.score > 0 }, { !$0.flag && $0.score > 0 }),
            shape({ $0.joinedAt < date }, { $0.joinedAt < date }),
            shape({ $0.joinedAt >= date }, { $0.joinedAt >= date }),
            shape({ $0.joinedAt == DiffGenerator.baseDate }, { $0.joinedAt == DiffGenerator.baseDate }),
            shape({ $0.joinedAt != date }, { $0.joinedAt != date }),
            shape({ (early...date).contains($0.joinedAt) }, { (early...date).contains($0.joinedAt) }),
            shape({ $0.id == 7 || [1, 2, 3].contains($0.id) }, { $0.id == 7 || [1, 2, 3].contains($0.id) }),
        ])
    }

    @Test func optionalsAndEnums() throws {
        let fixture = try DiffFixture()
        let nickname = fixture.all.lazy.compactMap(\.nickname).first ?? "x"
        try fixture.verify([
            shape({ $0.color == .red }, { $0.color == .red }),
            shape({ $0.color != .red }, { $0.color != .red }),
            shape({ $0.color == nil }, { $0.color == nil }),
            shape({ $0.color != nil }, { $0.color != nil }),
            shape({ [.red, .blue].contains($0.color) }, { [.red, .blue].contains($0.color) }),
            shape({ [.green, nil].contains($0.color) }, { [.green, nil].contains($0.color) }),
            shape({ !([.red].contains($0.color)) }, { !([.red].contains($0.color)) }),
            shape({ !([.green, nil].contains($0.color)) }, { !([.green, nil].contains($0.color)) }),
            shape({ $0.bonus == 3 }, { $0.bonus == 3 }),
            shape({ $0.bonus != 3 }, { $0.bonus != 3 }),
            shape({ $0.bonus == nil }, { $0.bonus == nil }),
            shape({ !([1, 2, 3].contains($0.bonus)) }, { !([1, 2, 3].contains($0.bonus)) }),
            shape(
                { !(!$0.bonus.in([0, 4]) || $0.flag.isTrue) }, { !(![0, 4].contains($0.bonus) || $0.flag) }),
            shape({ $0.bonus != nil && $0.flag == true }, { $0.bonus != nil && $0.flag }),
            shape({ $0.nickname == nickname }, { $0.nickname == nickname }),
            shape({ $0.nickname != nickname }, { $0.nickname != nickname }),
            shape({ $0.nickname == "" }, { $0.nickname == "" }),
            shape({ $0.nickname == nil }, { $0.nickname == nil }),
            shape({ $0.nickname != "X" }, { $0.nickname != "X" }),
        ])
    }

    @Test func jsonMembersArraysAndDictionaries() throws {
        let fixture = try DiffFixture()
        let level = fixture.sample(4, \.detail.level)
        let weight = fixture.all.first { $0.detail.weight != 0.5 }!.detail.weight
        try fixture.verify([
            shape({ $0.detail.level >= 3 }, { $0.detail.level >= 3 }),
            shape({ $0.detail.level == level }, { $0.detail.level == level }),
            shape({ $0.detail.level != level }, { $0.detail.level != level }),
            shape({ [1, 2, 3].contains($0.detail.level) }, { [1, 2, 3].contains($0.detail.level) }),
            shape({ ![1, 2, 3].contains($0.detail.level) }, { ![1, 2, 3].contains($0.detail.level) }),
            shape({ $0.detail.label == "quote\"d" }, { $0.detail.label == "quote\"d" }),
            shape({ $0.detail.label < "b" }, { $0.detail.label < "b" }),
            shape({ $0.detail.label.hasPrefix("a") }, { $0.detail.label.hasPrefix("a") }),
            shape({ $0.detail.label.contains("\\") }, { $0.detail.label.contains("\\") }),
            shape({ $0.detail.active == true }, { $0.detail.active }),
            shape({ $0.detail.weight > 0.75 }, { $0.detail.weight > 0.75 }),
            shape({ $0.detail.weight == 0.5 }, { $0.detail.weight == 0.5 }),
            shape({ $0.detail.weight == weight }, { $0.detail.weight == weight }),
            shape({ $0.detail.inner.depth < 0 }, { $0.detail.inner.depth < 0 }),
            shape({ $0.detail.inner.code != "Y" }, { $0.detail.inner.code != "Y" }),
            shape({ $0.detail.level > $0.detail.inner.depth }, { $0.detail.level > $0.detail.inner.depth }),
            shape({ $0.detail.level == $0.score }, { $0.detail.level == $0.score }),
            shape({ $0.tags.contains("pro") }, { $0.tags.contains("pro") }),
            shape({ $0.tags.contains("a%b") }, { $0.tags.contains("a%b") }),
            shape({ $0.tags.contains("quote\"d") }, { $0.tags.contains("quote\"d") }),
            shape({ $0.tags.contains("") }, { $0.tags.contains("") }),
            shape({ !$0.tags.contains("Pro") }, { !$0.tags.contains("Pro") }),
            shape({ $0.tags.isEmpty }, { $0.tags.isEmpty }),
            shape({ $0.tags.count > 2 }, { $0.tags.count > 2 }),
            shape({ $0.marks.contains(nil) }, { $0.marks.contains(nil) }),
            shape({ !$0.marks.contains(2) }, { !$0.marks.contains(2) }),
            shape({ $0.scores.count >= 4 }, { $0.scores.count >= 4 }),
            shape({ $0.scores["math"] == 3 }, { $0.scores["math"] == 3 }),
            shape({ $0.scores["math"] != 3 }, { $0.scores["math"] != 3 }),
            shape({ $0.scores["math"] == nil }, { $0.scores["math"] == nil }),
            shape({ [1, 2].contains($0.scores["art"]) }, { [1, 2].contains($0.scores["art"]) }),
            shape({ ![1, 2].contains($0.scores["art"]) }, { ![1, 2].contains($0.scores["art"]) }),
        ])
        // Keys that need quoting in a JSON path.
        try fixture.verify(
            DiffGenerator.keys.map { key in
                shape(
                    "scores[\(key.debugDescription)] == 1", { $0.scores[key] == 1 }, { $0.scores[key] == 1 })
            })
    }

    @Test func strings() throws {
        let fixture = try DiffFixture(count: 2_000)
        let name = fixture.sample(5, \.name)
        var shapes = [
            shape({ $0.name == name }, { $0.name == name }),
            shape({ $0.name != name }, { $0.name != name }),
            shape({ $0.name == "" }, { $0.name == "" }),
            shape({ $0.name != "" }, { $0.name != "" }),
            shape({ $0.name < "b" }, { $0.name < "b" }),
            shape({ $0.name >= "a%" }, { $0.name >= "a%" }),
            shape({ $0.name > "\u{E9}" }, { $0.name > "\u{E9}" }),
            shape({ ("A"..."a").contains($0.name) }, { ("A"..."a").contains($0.name) }),
            shape({ ["", "a", name].contains($0.name) }, { ["", "a", name].contains($0.name) }),
            shape(trivial: true, { $0.name.hasPrefix("") }, { $0.name.hasPrefix("") }),
            shape(trivial: true, { $0.name.hasSuffix("") }, { $0.name.hasSuffix("") }),
            shape(
                { $0.name.contains("%") || $0.name.contains("_") },
                { $0.name.contains("%") || $0.name.contains("_") }),
            shape(
                { !($0.name.hasPrefix("a") || $0.score > 0) }, { !($0.name.hasPrefix("a") || $0.score > 0) }),
        ]
        // Needles with LIKE wildcards, escapes, case variants, non-ASCII, NUL; and prefixes of
        // real names. On `name` (NUL included) and on a string inside JSON.
        var needles = [
            "a", "A", "ab", "aB", "%", "_", "\\", "a_", "x%y", "'", "\"", "\u{E9}", "\u{1F600}", "\u{0}",
        ]
        let fixed = needles.count
        needles += (0..<4).map { String(fixture.sample(10 + $0, \.name).prefix(2)) }.filter { !$0.isEmpty }
        let lower = asciiLowercased
        let operations: [(String, (Column<String>, String) -> Condition, (String, String) -> Bool)] = [
            ("hasPrefix", { $0.hasPrefix($1) }, { $0.hasPrefix($1) }),
            ("hasSuffix", { $0.hasSuffix($1) }, { $0.hasSuffix($1) }),
            ("contains", { $0.contains($1) }, { $0.contains($1) }),
            ("!hasPrefix", { !$0.hasPrefix($1) }, { !$0.hasPrefix($1) }),
            ("!hasSuffix", { !$0.hasSuffix($1) }, { !$0.hasSuffix($1) }),
            ("ciHasPrefix", { $0.caseInsensitiveHasPrefix($1) }, { lower($0).hasPrefix(lower($1)) }),
            ("ciHasSuffix", { $0.caseInsensitiveHasSuffix($1) }, { lower($0).hasSuffix(lower($1)) }),
            ("ciContains", { $0.caseInsensitiveContains($1) }, { lower($0).contains(lower($1)) }),
        ]
        for (label, sql, swift) in operations {
            for (index, needle) in needles.enumerated() {
                let (name, sampled) = ("\(label)(\(needle.debugDescription))", index >= fixed)
                shapes.append(
                    shape(
                        "name." + name, trivial: sampled, { sql($0.name, needle) }, { swift($0.name, needle) }
                    ))
                guard !label.hasPrefix("!") && !sampled else { continue }
                shapes.append(
                    shape(
                        "detail.label." + name, trivial: true, { sql($0.detail.label, needle) },
                        { swift($0.detail.label, needle) }))
            }
        }
        try fixture.verify(shapes)
    }

    @Test func combinationsOfRandomPredicates() throws {
        let fixture = try DiffFixture(seed: 7, count: 1_000)
        let atoms: [Shape] = [
            shape("score > 0", { $0.score > 0 }, { $0.score > 0 }),
            shape("flag", { $0.flag.isTrue }, { $0.flag }),
            shape("color != red", { $0.color != .red }, { $0.color != .red }),
            shape("bonus in [1, 2]", { $0.bonus.in([1, 2]) }, { [1, 2].contains($0.bonus) }),
            shape("scores[art] in [0]", { $0.scores["art"].in([0]) }, { $0.scores["art"] == 0 }),
            shape("name contains a", { $0.name.contains("a") }, { $0.name.contains("a") }),
            shape("tags contains pro", { $0.tags.contains("pro") }, { $0.tags.contains("pro") }),
            shape("level < 8", { $0.detail.level < 8 }, { $0.detail.level < 8 }),
            shape("nickname == nil", { $0.nickname == nil }, { $0.nickname == nil }),
        ]
        var random = SeededGenerator(seed: 99)
        func tree(_ depth: Int) -> Shape {
            if depth == 0 || Int.random(in: 0..<4, using: &random) == 0 {
                return atoms[Int.random(in: 0..<atoms.count, using: &random)]
            }
            let (a, b) = (tree(depth - 1), tree(depth - 1))
            switch Int.random(in: 0..<3, using: &random) {
            case 0:
                return shape(
                    "(\(a.name) && \(b.name))", { a.sql($0) && b.sql($0) }, { a.swift($0) && b.swift($0) })
            case 1:
                return shape(
                    "(\(a.name) || \(b.name))", { a.sql($0) || b.sql($0) }, { a.swift($0) || b.swift($0) })
            default: return shape("!\(a.name)", { !a.sql($0) }, { !a.swift($0) })
            }
        }
        var trees = (0..<100).map { _ in tree(4) }
        for index in trees.indices { trees[index].mayBeTrivial = true }
        try fixture.verify(trees)
    }
}
