import Foundation
import LiteRecord
import Testing

// `hasPrefix`, `hasSuffix` and `contains` give Swift's answer (characters, not bytes) on text that
// joins scalars into one character: emoji with modifiers, ZWJ sequences, flags, combining marks,
// Hangul jamo, CR LF, Indic spacing marks and conjuncts. Rows whose bytes do not match are never
// selected (the documented exception: canonically equivalent spellings with other bytes).

enum GraphemeParityChecks {
    static let texts = [
        "", "a", "abc", "👍", "👍🏽", "👍🏽x", "x👍🏽", "👍🏽👍", "👨‍👩‍👧", "👨‍👩‍👧‍👦", "👨x", "🇫🇷", "🇫🇷🇩🇪", "x🇫🇷🇩🇪",
        "🇫🇷🇩", "e\u{301}", "e\u{301}x", "xe\u{301}", "\u{301}abc", "cafe\u{301}", "caf\u{E9}", "e\u{301}e",
        "\u{1100}\u{1161}", "\u{1100}\u{1161}\u{11A8}", "\u{AC00}\u{11A8}", "\u{AC01}", "\r\n", "\r", "\n",
        "a\r\nb", "कि", "क्ष", "क्", "नमस्ते", "\u{600}a", "a\u{200D}", "🏳️‍🌈", "1️⃣", "\u{1F3FD}",
        "🇫🇫🇷🇩🇪", "👍🏽\u{200D}👩", "👩\u{200D}👧", "x\u{200D}👧", "\u{1100}\u{1100}\u{1161}", "\u{AC00}\u{11A8}x",
        "क्\u{200D}ष", "a\u{301}\u{200D}", "\r\n\u{301}", "\u{600}\u{600}b", "a.b*c", "(x)|[y]\\z",
    ]

    static let needles = [
        "", "a", "x", "e", "👍", "👍🏽", "👨", "👩", "👧", "👨‍👩", "👨‍👩‍👧", "🇫🇷", "🇩🇪", "🇷🇩", "🇫", "🇩", "\u{301}",
        "\u{301}x", "e\u{301}", "caf", "cafe", "\u{1100}", "\u{1100}\u{1161}", "\u{AC00}", "\u{11A8}", "\r\n",
        "\r", "\n", "क", "क्", "ि", "\u{600}", "\u{200D}", "🏳️", "1", "\u{1F3FD}", "b",
        "🇪", "\u{1161}", "\u{1161}\u{11A8}", "ष", "👧", "\u{200D}👧", "\u{600}b", ".b*", ")|[", "\\",
    ]

    static func records() -> [TextRecord] {
        texts.enumerated().map { index, text in
            TextRecord(
                id: nil, text: text, nick: index % 3 == 0 ? nil : text, level: index, tags: [], marks: [],
                scores: [:], items: [], address: index % 4 == 0 ? nil : TextAddress(city: text, zip: nil),
                grid: [])
        }
    }

    /// `hasPrefix`, `hasSuffix` and `contains` on a `String`, a `String?` and a JSON member.
    static func shapes(_ needle: String) -> [TextShape] {
        let shown = needle.debugDescription
        return [
            TextShape(
                name: "text.hasPrefix(\(shown))", sql: { $0.text.hasPrefix(needle) },
                swift: { $0.text.swiftHasPrefix(needle) }, bytes: { $0.text.bytesHavePrefix(needle) }),
            TextShape(
                name: "text.hasSuffix(\(shown))", sql: { $0.text.hasSuffix(needle) },
                swift: { $0.text.swiftHasSuffix(needle) }, bytes: { $0.text.bytesHaveSuffix(needle) }),
            TextShape(
                name: "text.contains(\(shown))", sql: { $0.text.contains(needle) },
                swift: { $0.text.swiftContains(needle) }, bytes: { $0.text.bytesContain(needle) }),
            TextShape(
                name: "!text.contains(\(shown))", sql: { !$0.text.contains(needle) },
                swift: { !$0.text.swiftContains(needle) }, bytes: { !$0.text.bytesContain(needle) }),
            TextShape(
                name: "nick.hasPrefix(\(shown))", sql: { $0.nick.hasPrefix(needle) },
                swift: { $0.nick?.swiftHasPrefix(needle) ?? false },
                bytes: { $0.nick?.bytesHavePrefix(needle) ?? false }),
            TextShape(
                name: "nick.hasSuffix(\(shown))", sql: { $0.nick.hasSuffix(needle) },
                swift: { $0.nick?.swiftHasSuffix(needle) ?? false },
                bytes: { $0.nick?.bytesHaveSuffix(needle) ?? false }),
            TextShape(
                name: "!nick.contains(\(shown))", sql: { !$0.nick.contains(needle) },
                swift: { !($0.nick?.swiftContains(needle) ?? false) },
                bytes: { !($0.nick?.bytesContain(needle) ?? false) }),
            TextShape(
                name: "address.city.hasPrefix(\(shown))", sql: { $0.address.city.hasPrefix(needle) },
                swift: { $0.address?.city.swiftHasPrefix(needle) ?? false },
                bytes: { $0.address?.city.bytesHavePrefix(needle) ?? false }),
            TextShape(
                name: "address.city.contains(\(shown))", sql: { $0.address.city.contains(needle) },
                swift: { $0.address?.city.swiftContains(needle) ?? false },
                bytes: { $0.address?.city.bytesContain(needle) ?? false }),
        ]
    }

    /// Every predicate selects and counts the rows Swift's `filter` selects on the decoded models.
    static func differential(_ db: some ModelContext, _ backend: ParityBackend) throws {
        var records = records()
        for index in records.indices { try db.insert(&records[index]) }
        let stored = try db.query(TextRecord.self).order { $0.id.ascending }.fetchAll()
        #expect(stored == records, "\(backend.name): the text reads back unchanged")
        var failures: [String] = []
        var selections = 0
        for shape in needles.flatMap(shapes) {
            let expected = records.filter(shape.swift).compactMap(\.id)
            let query = db.query(TextRecord.self).where(shape.sql)
            let selected = try query.order { $0.id.ascending }.fetchAll().compactMap(\.id)
            let counted = try query.count()
            if selected != expected || counted != expected.count {
                failures.append("\(shape.name): SQL \(selected), Swift \(expected), count \(counted)")
            }
            if !expected.isEmpty { selections += 1 }
        }
        #expect(failures.isEmpty, "\(backend.name): \(failures.joined(separator: "; "))")
        #expect(selections > 100, "the table exercises the predicates: \(selections) selections")
    }
}

extension GraphemeParityChecks {
    /// Where PostgreSQL's `contains` still differs from Foundation's: a needle that begins or
    /// ends with a virama (or a ZWJ after one), whose occurrence Foundation accepts or rejects
    /// by more than the scalar classes around it (`"1\u{94D}a"` contains `"\u{94D}"`,
    /// `"a\u{94D}a"` does not). SQLite asks Foundation itself, so it agrees.
    static func viramaNeedles(_ db: some ModelContext, _ backend: ParityBackend) throws {
        var records = ["1\u{94D}a", "a\u{94D}a", "a\u{94D}1", "\u{AC01}\u{94D}\u{200D}a"].enumerated().map {
            TextRecord(
                id: nil, text: $1, nick: nil, level: $0, tags: [], marks: [], scores: [:], items: [],
                address: nil, grid: [])
        }
        for index in records.indices { try db.insert(&records[index]) }
        var differences: [String] = []
        for needle in ["\u{94D}", "\u{200D}"] {
            let expected = records.filter { $0.text.swiftContains(needle) }.compactMap(\.id)
            let selected = try db.query(TextRecord.self).where { $0.text.contains(needle) }
                .order { $0.id.ascending }.fetchAll().compactMap(\.id)
            if selected != expected {
                differences.append("contains(\(needle.debugDescription)): \(selected)")
            }
        }
        withKnownIssue("PostgreSQL's contains differs from Foundation's for some needles at a virama") {
            #expect(differences.isEmpty, "\(backend.name): \(differences.joined(separator: "; "))")
        } when: {
            backend == .postgres
        }
    }
}
