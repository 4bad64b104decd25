import Foundation
import LiteRecord
import Testing

/// `[String]` columns are read without `JSONDecoder` when the text is plain; whatever the text,
/// a fetch must return exactly what `JSONDecoder` reads, or fail where it fails.
@Suite struct StringArrayReadingTests {
    private struct Tagged: Decodable, Equatable {
        var tags: [String]
    }

    private struct MaybeTagged: Decodable, Equatable {
        var tags: [String]?
    }

    /// Texts on both sides of the plain form: whitespace, escapes, control characters, other
    /// shapes, trailing text, invalid UTF-8 (as bytes cast to text).
    private static let handWritten: [[UInt8]] =
        [
            "[]", " [ ] ", "[\"\"]", "[\"a\"]", "[\"a\",\"b\"]", " \t\n\r[ \"a\" ,\n\"b\"\t] \r\n",
            "[\"é\",\"日本語\",\"🎉\",\"\u{2028}\",\"\u{7F}\",\"\u{FEFF}x\"]", "[\"a/b\",\"c d\"]",
            "[\"a\\\"b\"]", "[\"a\\\\b\"]", "[\"\\u0041\"]", "[\"\\n\"]", "[\"a\nb\"]", "[\"a\tb\"]",
            "", " ", "[", "]", "[\"a\"", "[\"a\",]", "[,\"a\"]", "[\"a\" \"b\"]", "[\"a\"]]",
            "[\"a\"] x", "[\"a\"],", "[1]", "[\"a\",1]", "[null]", "[[\"a\"]]", "{\"a\":\"b\"}",
            "\"a\"", "null", "[\"a\u{0}b\"]", "\u{FEFF}[\"a\"]", "['a']", "[\"a\"\"b\"]",
        ].map { Array($0.utf8) } + [[0x5B, 0x22, 0xFF, 0x22, 0x5D], [0x5B, 0x22, 0xC3, 0x22, 0x5D]]

    @Test func everyTextReadsAsJSONDecoderReadsIt() throws {
        var generator = SeededGenerator(seed: 0x5EED_57A7)
        let alphabet: [UInt8] = Array(" \t\n\r[]\",\\a/é".utf8) + [0x00, 0x1F, 0x7F, 0xFF]
        let random = (0..<3000).map { _ in
            (0..<Int.random(in: 0...12, using: &generator)).map { _ in
                alphabet.randomElement(using: &generator)!
            }
        }
        // Random texts are mostly invalid; these wrap random strings so that most are arrays.
        let wrapped = random.map { Array("[\"".utf8) + $0 + Array("\"]".utf8) }
        let db = try Database(.inMemory)
        try db.execute(sql: "CREATE TABLE t(tags TEXT)")
        var checked = 0
        for bytes in Self.handWritten + random + wrapped {
            try db.execute(sql: "DELETE FROM t")
            // Bound as a blob, then cast to TEXT by SQLite: the exact bytes, valid UTF-8 or not.
            try db.execute(sql: "INSERT INTO t VALUES (CAST(\(Data(bytes)) AS TEXT))")
            let expected = try? JSONDecoder().decode([String].self, from: Data(bytes))
            let description = String(decoding: bytes, as: UTF8.self).debugDescription
            do {
                let read = try db.fetchAll(Tagged.self, sql: "SELECT tags FROM t")
                #expect(read == [Tagged(tags: expected ?? ["<JSONDecoder failed>"])], "\(description)")
                let optional = try db.fetchAll(MaybeTagged.self, sql: "SELECT tags FROM t")
                #expect(optional == [MaybeTagged(tags: expected)], "\(description)")
            } catch let error as RowDecodingError {
                #expect(expected == nil, "\(description): \(error)")
                #expect(error.column == "tags")
            }
            checked += 1
        }
        #expect(checked == Self.handWritten.count + 6000)
    }

    /// Many rows through one statement: the fast path must not carry anything from row to row.
    @Test func rowsAfterRowsReadTheirOwnStrings() throws {
        let db = try Database(.inMemory)
        try db.execute(sql: "CREATE TABLE t(tags TEXT)")
        let texts = ["[\"a\",\"b\"]", "[]", "[\"a\\\"b\"]", "[\"x\"]", "[ \"y\" , \"z\" ]"]
        for text in texts { try db.execute(sql: "INSERT INTO t VALUES (\(text))") }
        let read = try db.fetchAll(Tagged.self, sql: "SELECT tags FROM t ORDER BY rowid")
        #expect(read.map(\.tags) == [["a", "b"], [], ["a\"b"], ["x"], ["y", "z"]])
    }
}
