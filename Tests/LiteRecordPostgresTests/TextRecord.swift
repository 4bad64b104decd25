import Foundation
import LiteRecord

// A model for the text and JSON checks of the query language on both backends
// (QueryLanguageParityChecks.swift): hostile text, optional text, and JSON arrays, dictionaries
// and nested structs, with random values built from a fixed pool.

struct TextItem: Codable, Equatable, Sendable {
    var sku: String
    var quantity: Int
}

struct TextAddress: Codable, Equatable, Sendable {
    var city: String
    var zip: String?
}

struct TextRecord: Model, Equatable {
    var id: Int64?
    var text: String
    var nick: String?
    var level: Int
    var tags: [String]
    var marks: [Int?]
    var scores: [String: Int]
    var items: [TextItem]
    var address: TextAddress?
    var grid: [[String]]

    static let schema = Schema<TextRecord>(table: "text_records")
}

/// Text that SQL must treat as plain characters: LIKE wildcards, escapes, quotes, comment and
/// statement syntax, non-ASCII letters whose case Unicode maps (and SQLite's NOCASE does not),
/// emoji with modifiers. No NUL: PostgreSQL text cannot hold one (checked on its own).
enum HostileText {
    static let fragments = [
        "", "a", "A", "ab", "aB", "abc", "ABC", "a%b", "a_b", "%", "_", "\\", "a\\b", "O'Brien", "'",
        "\"q\"", "--", "; DROP TABLE text_records;", "É", "é", "école", "ÉCOLE", "ß", "Straße", "STRASSE",
        "ﬁ", "Σ", "σ", "İ", "👍🏽", "😀", " ", "z", "Zürich", "pro", "Pro", "x",
    ]

    /// Needles for the predicates: never empty where a predicate must find something.
    static let needles = [
        "a", "A", "b", "ab", "%", "_", "\\", "'", "\"", "a%", "_b", "É", "é", "ß", "ss", "SS", "👍", "👍🏽",
        "😀", "O'", "--", ";", "Z", "ü", "Σ", "ﬁ", "co", "CO",
    ]
}

extension TextRecord {
    static func random(using generator: inout some RandomNumberGenerator) -> TextRecord {
        func pick(_ pool: [String]) -> String { pool[Int.random(in: 0..<pool.count, using: &generator)] }
        func text() -> String {
            (0..<Int.random(in: 0...3, using: &generator)).map { _ in pick(HostileText.fragments) }.joined()
        }
        let keys = ["math", "art", "we\"ird", "sp ace", "ü"]
        var scores: [String: Int] = [:]
        for key in keys where Bool.random(using: &generator) {
            scores[key] = Int.random(in: 0...5, using: &generator)
        }
        let skus = ["A1", "a%1", "B_2", "x'y"]
        return TextRecord(
            id: nil, text: text(),
            nick: Bool.random(using: &generator) ? text() : nil,
            level: Int.random(in: -5...5, using: &generator),
            tags: (0..<Int.random(in: 0...3, using: &generator)).map { _ in pick(HostileText.fragments) },
            marks: (0..<Int.random(in: 0...3, using: &generator)).map { _ in
                Bool.random(using: &generator) ? Int.random(in: 0...3, using: &generator) : nil
            },
            scores: scores,
            items: (0..<Int.random(in: 0...3, using: &generator)).map { _ in
                TextItem(sku: pick(skus), quantity: Int.random(in: 0...4, using: &generator))
            },
            address: Bool.random(using: &generator)
                ? TextAddress(
                    city: pick(["Zürich", "zurich", "O'Hare", "a%b", "Paris"]),
                    zip: Bool.random(using: &generator) ? pick(["8001", "75001", "8%"]) : nil)
                : nil,
            grid: (0..<Int.random(in: 0...2, using: &generator)).map { _ in
                (0..<Int.random(in: 0...2, using: &generator)).map { _ in pick(["a", "b", "x"]) }
            })
    }
}

// Swift's side of the comparison, by exact UTF-8 bytes as LiteRecord documents (Swift's own
// `hasPrefix` compares characters, which differs for canonically equivalent spellings).
extension String {
    func bytesHavePrefix(_ prefix: String) -> Bool { Array(utf8).starts(with: prefix.utf8) }
    func bytesHaveSuffix(_ suffix: String) -> Bool {
        Array(utf8).reversed().starts(with: suffix.utf8.reversed())
    }
    /// Swift's `hasPrefix` (characters), where the bytes match too: the promise, whose one
    /// documented exception is a canonically equivalent spelling with other bytes.
    func swiftHasPrefix(_ prefix: String) -> Bool { bytesHavePrefix(prefix) && hasPrefix(prefix) }
    func swiftHasSuffix(_ suffix: String) -> Bool { bytesHaveSuffix(suffix) && hasSuffix(suffix) }
    func swiftContains(_ other: String) -> Bool { bytesContain(other) && contains(other) }
    func bytesContain(_ other: String) -> Bool {
        guard !other.isEmpty else { return false }  // Foundation's "abc".contains("") is false
        let (haystack, needle) = (Array(utf8), Array(other.utf8))
        guard needle.count <= haystack.count else { return false }
        return (0...(haystack.count - needle.count)).contains {
            Array(haystack[$0..<($0 + needle.count)]) == needle
        }
    }
    /// ASCII letters lowercased, everything else kept: SQLite's `lower()` and `NOCASE`.
    var asciiLowercased: String {
        String(decoding: utf8.map { (65...90).contains($0) ? $0 + 32 : $0 }, as: UTF8.self)
    }
    func bytesEqual(_ other: String) -> Bool { Array(utf8) == Array(other.utf8) }
    func bytesPrecede(_ other: String) -> Bool { utf8.lexicographicallyPrecedes(other.utf8) }
}
