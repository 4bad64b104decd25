import Foundation
import LiteRecord
import LiteRecordPostgres
import Testing

// The same searches on SQLite (FTS5) and PostgreSQL (a generated tsvector column): the rows
// found must agree, whatever the user typed, after every kind of write.

struct SearchDocument: Model, Equatable {
    var id: Int64?
    var title: String
    var body: String
    var year: Int
    static let schema = Schema<SearchDocument>(table: "search_documents").fullTextSearch(on: [
        \.title, \.body,
    ])
}

enum FullTextSearchParityChecks {
    /// Inserts the documents the checks search; their ids, in order.
    private static func insertDocuments(_ db: some ModelContext) throws -> [Int64] {
        var documents = [
            SearchDocument(
                id: nil, title: "Swift ORM", body: "A lightweight ORM for Swift on SQLite and PostgreSQL.",
                year: 2024),
            SearchDocument(
                id: nil, title: "Rust web", body: "Swift or Rust? Rust, with a fast web server.", year: 2023),
            SearchDocument(
                id: nil, title: "Cooking", body: "A recipe for Café Crème, with naïve optimism.", year: 2022),
            SearchDocument(
                id: nil, title: "Operators",
                body: "He said \"orm swift\" OR not; C++ and e-mail: team@example.com, swift.org", year: 2021),
        ]
        for index in documents.indices { try db.insert(&documents[index]) }
        return documents.compactMap(\.id)
    }

    /// Words, case, diacritics, punctuation, and every operator character as plain text.
    static func words(_ db: some ModelContext, _ backend: ParityBackend) throws {
        let ids = try insertDocuments(db)
        func search(_ text: String) throws -> [Int64] {
            try db.query(SearchDocument.self).matching(text).order { $0.id.ascending }.fetchAll().compactMap(
                \.id)
        }
        #expect(try search("swift") == [ids[0], ids[1], ids[3]], "\(backend.name)")
        #expect(try search("SWIFT orm") == [ids[0], ids[3]], "\(backend.name)")
        #expect(try search("orm lightweight postgresql") == [ids[0]], "\(backend.name)")
        // Case and diacritics are ignored, both ways.
        #expect(try search("CAFE creme NAIVE") == [ids[2]], "\(backend.name)")
        #expect(try search("café") == [ids[2]], "\(backend.name)")
        // Punctuation separates words, in the text and in the search.
        #expect(try search("example") == [ids[3]], "\(backend.name)")
        #expect(try search("team@example.com") == [ids[3]], "\(backend.name)")
        #expect(try search("org") == [ids[3]], "\(backend.name)")
        #expect(try search("mail") == [ids[3]], "\(backend.name)")
        #expect(try search("c++") == [ids[3]], "\(backend.name)")
        // Quotes make no phrase: "orm swift" is two words (and ids[0] has them, not adjacent).
        #expect(try search("\"orm swift\"") == [ids[0], ids[3]], "\(backend.name)")
        #expect(try search("\"lightweight swift\"") == [ids[0]], "\(backend.name)")
        // OR and - are words and separators, never operators.
        #expect(try search("swift OR rust") == [ids[1]], "\(backend.name)")
        #expect(try search("swift -rust") == [ids[1]], "\(backend.name)")
        #expect(try search("-swift") == [ids[0], ids[1], ids[3]], "\(backend.name)")
        #expect(try search("NOT swift") == [ids[3]], "\(backend.name)")
        // No match, and text without a word, find nothing.
        #expect(try search("kotlin") == [], "\(backend.name)")
        #expect(try search("swift kotlin") == [], "\(backend.name)")
        #expect(try search("") == [], "\(backend.name)")
        #expect(try search("  ...!!! -- \" ' ") == [], "\(backend.name)")
        // Several matching calls must all hold.
        #expect(
            try db.query(SearchDocument.self).matching("swift").matching("orm").order { $0.id.ascending }
                .fetchAll().compactMap(\.id) == [ids[0], ids[3]], "\(backend.name)")
        #expect(
            try db.query(SearchDocument.self).matching("swift").matching("").order { $0.id.ascending }
                .fetchAll().compactMap(\.id) == [], "\(backend.name)")
        // With where, count and limit.
        #expect(
            try db.query(SearchDocument.self).where { $0.year >= 2023 }.matching("swift").count() == 2,
            "\(backend.name)")
        #expect(
            try db.query(SearchDocument.self).matching("swift").limit(1).fetchAll().compactMap(\.id).count
                == 1, "\(backend.name)")
        #expect(
            try Set(db.query(SearchDocument.self).matching("swift").distinct().fetchAll().compactMap(\.id))
                == [ids[0], ids[1], ids[3]], "\(backend.name)"
        )
    }

    /// Text that would be SQL, FTS5 or tsquery syntax is searched as words, never run.
    static func hostileText(_ db: some ModelContext, _ backend: ParityBackend) throws {
        let ids = try insertDocuments(db)
        let hostile = [
            "swift'; DROP TABLE search_documents; --", "\\", "\\'", "'", "\"", "\"\"\"",
            "a\\b & | ! <-> :* ( )",
            "swift:*", "swi*", "title: swift", "NEAR(swift orm)", "swift & !orm", "(swift | rust)", "^swift",
            "swift <-> orm", "$1", "?", "%s", "\u{0}", String(repeating: "(", count: 1000),
        ]
        for text in hostile {
            let found = try db.query(SearchDocument.self).matching(text).order { $0.id.ascending }.fetchAll()
                .compactMap(\.id)
            let words = Set(text.lowercased().split { !$0.isLetter && !$0.isNumber }.map(String.init))
            // What each finds follows from its words alone.
            let expected: [Int64]
            switch words {
            case []: expected = []
            case ["swift"]: expected = [ids[0], ids[1], ids[3]]
            case ["swift", "orm"]: expected = [ids[0], ids[3]]
            case ["swift", "rust"]: expected = [ids[1]]
            case ["title", "swift"], ["near", "swift", "orm"], ["swi"], ["a", "b"], ["1"], ["s"],
                ["swift", "drop", "table", "search", "documents"]:
                expected = []
            default: expected = [-1]
            }
            #expect(found == expected, "\(backend.name): \(text.prefix(40))")
        }
        #expect(try db.fetchOne(Int64.self, sql: "SELECT count(*) FROM search_documents") == 4)
    }

    /// The index follows every write: insert, update, delete, raw SQL, deleteAll.
    static func indexFollowsWrites(_ db: some ModelContext, _ backend: ParityBackend) throws {
        let ids = try insertDocuments(db)
        guard var cooking = try db.find(SearchDocument.self, id: ids[2]) else {
            Issue.record("no document \(ids[2])")
            return
        }
        cooking.body = "Nothing about coffee"
        try db.update(cooking)
        #expect(
            try db.query(SearchDocument.self).matching("cafe").fetchAll().compactMap(\.id) == [],
            "\(backend.name)")
        #expect(
            try db.query(SearchDocument.self).matching("coffee").fetchAll().compactMap(\.id) == [ids[2]],
            "\(backend.name)")
        #expect(
            try db.query(SearchDocument.self).matching("cooking coffee").fetchAll().compactMap(\.id) == [
                ids[2]
            ], "\(backend.name)")
        #expect(try db.delete(cooking))
        #expect(
            try db.query(SearchDocument.self).matching("coffee").fetchAll().compactMap(\.id) == [],
            "\(backend.name)")
        try db.execute(sql: "UPDATE search_documents SET body = \("Kotlin now") WHERE id = \(ids[0])")
        #expect(
            try db.query(SearchDocument.self).matching("kotlin").fetchAll().compactMap(\.id) == [ids[0]],
            "\(backend.name)")
        #expect(
            try db.query(SearchDocument.self).matching("lightweight").fetchAll().compactMap(\.id) == [],
            "\(backend.name)")
        var saved = SearchDocument(id: nil, title: "Zig", body: "Kotlin too", year: 2020)
        try db.save(&saved)
        #expect(
            try db.query(SearchDocument.self).matching("kotlin").order { $0.id.ascending }.fetchAll()
                .compactMap(\.id) == [ids[0], saved.id ?? -1], "\(backend.name)")
        #expect(try db.query(SearchDocument.self).matching("rust").deleteAll() == 1, "\(backend.name)")
        #expect(
            try db.query(SearchDocument.self).matching("swift").order { $0.id.ascending }.fetchAll()
                .compactMap(\.id) == [ids[0], ids[3]], "\(backend.name)")
        #expect(try db.fetchOne(Int64.self, sql: "SELECT count(*) FROM search_documents") == 3)
        // A model read back is the model written: the index is no column of it.
        #expect(try db.find(SearchDocument.self, id: saved.id ?? -1) == saved)
    }

    /// Best match first: a short text full of the word before a long text holding it once.
    static func ranking(_ db: some ModelContext, _ backend: ParityBackend) throws {
        var long = SearchDocument(
            id: nil, title: "Animals",
            body: "The savanna holds lions, elephants, giraffes, antelopes, a zebra, hyenas, buffalo, "
                + "rhinos, cheetahs, leopards, warthogs, meerkats and many birds besides.",
            year: 1)
        var short = SearchDocument(id: nil, title: "Zebra", body: "Zebra zebra zebra.", year: 2)
        try db.insert(&long)
        try db.insert(&short)
        #expect(
            try db.query(SearchDocument.self).matching("zebra").fetchAll().compactMap(\.id)
                == [short.id, long.id].compactMap { $0 }, "\(backend.name)")
        #expect(
            try db.query(SearchDocument.self).matching("zebra").limit(1).fetchAll().compactMap(\.id)
                == [short.id].compactMap { $0 }, "\(backend.name)")
        #expect(
            try db.query(SearchDocument.self).matching("zebra").distinct().fetchAll().compactMap(\.id)
                == [short.id, long.id].compactMap { $0 })
        // The query's own order wins.
        #expect(
            try db.query(SearchDocument.self).matching("zebra").order { $0.id.ascending }.fetchAll()
                .compactMap(\.id) == [long.id, short.id].compactMap { $0 })
    }

    /// Snippets mark the words found, with the style's marks, and shorten long text.
    static func snippets(_ db: some ModelContext, _ backend: ParityBackend) throws {
        let ids = try insertDocuments(db)
        let style = SnippetStyle(before: "<b>", after: "</b>", ellipsis: "…", maximumTokens: 12)
        let fast = db.query(SearchDocument.self).matching("fast")
        let short = try fast.fetchAll(withSnippetsOf: \.body, style: style)
        #expect(short.map { $0.0.id } == [ids[1]], "\(backend.name)")
        let shortSnippet = short.first?.1 ?? ""
        #expect(shortSnippet.contains("<b>fast</b>"), "\(backend.name): \(shortSnippet)")
        #expect(shortSnippet.contains("Swift or Rust"), "\(backend.name): \(shortSnippet)")
        #expect(!shortSnippet.contains("…"), "\(backend.name): \(shortSnippet)")

        var long = SearchDocument(
            id: nil, title: "Long",
            body: (1...40).map { "word\($0)" }.joined(separator: " ") + " needle "
                + (41...80).map { "word\($0)" }.joined(separator: " "),
            year: 0)
        try db.insert(&long)
        let tight = SnippetStyle(before: "[", after: "]", ellipsis: "...", maximumTokens: 5)
        let snippetQuery = db.query(SearchDocument.self).matching("NEEDLE")
        let snippet = try snippetQuery.fetchAll(withSnippetsOf: \.body, style: tight).first?.1 ?? ""
        #expect(snippet.contains("[needle]"), "\(backend.name): \(snippet)")
        #expect(snippet.hasPrefix("..."), "\(backend.name): \(snippet)")
        #expect(snippet.hasSuffix("..."), "\(backend.name): \(snippet)")
        let shownWords = snippet.split(separator: " ").count
        #expect((2...6).contains(shownWords), "\(backend.name): \(snippet)")
        #expect(!snippet.contains("word1 "), "\(backend.name): \(snippet)")
        // Marks are bound text, never SQL or option syntax.
        let hostile = SnippetStyle(
            before: "'\"(, StopSel=", after: "\"); --", ellipsis: "\\", maximumTokens: 3)
        let markedQuery = db.query(SearchDocument.self).matching("needle")
        let marked = try markedQuery.fetchAll(withSnippetsOf: \.body, style: hostile).first?.1 ?? ""
        #expect(marked.contains("'\"(, StopSel=needle\"); --"), "\(backend.name): \(marked)")
    }
}
