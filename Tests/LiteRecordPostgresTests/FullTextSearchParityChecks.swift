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

/// What the search checks run beside ``TestBackend``'s operations.
protocol FullTextSearchBackend: TestBackend {
    /// The ids `matching(text)` finds, in the query's order (by relevance unless `ordered`).
    func searchIDs(_ text: String, ordered: Bool, distinct: Bool, limit: Int?) throws -> [Int64]
    /// `matching` twice, as two calls.
    func searchIDs(_ first: String, _ second: String) throws -> [Int64]
    func searchCount(_ text: String, where condition: @escaping (Columns<SearchDocument>) -> Condition) throws
        -> Int
    func snippets(_ text: String, style: SnippetStyle) throws -> [(SearchDocument, String)]
    func deleteMatching(_ text: String) throws -> Int
}

/// Both backends run the same source, on their own queries.
extension FullTextSearchBackend {
    func searchIDs(_ text: String, ordered: Bool = false, distinct: Bool = false, limit: Int? = nil) throws
        -> [Int64]
    {
        var query = parityQuery(SearchDocument.self).matching(text)
        if ordered { query = query.order { $0.id.ascending } }
        if distinct { query = query.distinct() }
        if let limit { query = query.limit(limit, offset: nil) }
        return try query.fetchAll().compactMap(\.id)
    }
    func searchIDs(_ first: String, _ second: String) throws -> [Int64] {
        try parityQuery(SearchDocument.self).matching(first).matching(second).order { $0.id.ascending }
            .fetchAll().compactMap(\.id)
    }
    func searchCount(_ text: String, where condition: @escaping (Columns<SearchDocument>) -> Condition) throws
        -> Int
    {
        try parityQuery(SearchDocument.self).where(condition).matching(text).count()
    }
    func snippets(_ text: String, style: SnippetStyle) throws -> [(SearchDocument, String)] {
        try parityQuery(SearchDocument.self).matching(text).fetchAll(withSnippetsOf: \.body, style: style)
    }
    func deleteMatching(_ text: String) throws -> Int {
        try parityQuery(SearchDocument.self).matching(text).deleteAll()
    }
}

extension SQLiteBackend: FullTextSearchBackend {}
extension PostgresBackend: FullTextSearchBackend {}

enum FullTextSearchParityChecks {
    /// Inserts the documents the checks search; their ids, in order.
    private static func insertDocuments(_ backend: some FullTextSearchBackend) throws -> [Int64] {
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
        for index in documents.indices { try backend.insert(&documents[index]) }
        return documents.compactMap(\.id)
    }

    /// Words, case, diacritics, punctuation, and every operator character as plain text.
    static func words(_ backend: some FullTextSearchBackend) throws {
        let ids = try insertDocuments(backend)
        func search(_ text: String) throws -> [Int64] { try backend.searchIDs(text, ordered: true) }
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
        #expect(try backend.searchIDs("swift", "orm") == [ids[0], ids[3]], "\(backend.name)")
        #expect(try backend.searchIDs("swift", "") == [], "\(backend.name)")
        // With where, count and limit.
        #expect(try backend.searchCount("swift", where: { $0.year >= 2023 }) == 2, "\(backend.name)")
        #expect(try backend.searchIDs("swift", limit: 1).count == 1, "\(backend.name)")
        #expect(
            try Set(backend.searchIDs("swift", distinct: true)) == [ids[0], ids[1], ids[3]], "\(backend.name)"
        )
    }

    /// Text that would be SQL, FTS5 or tsquery syntax is searched as words, never run.
    static func hostileText(_ backend: some FullTextSearchBackend) throws {
        let ids = try insertDocuments(backend)
        let hostile = [
            "swift'; DROP TABLE search_documents; --", "\\", "\\'", "'", "\"", "\"\"\"",
            "a\\b & | ! <-> :* ( )",
            "swift:*", "swi*", "title: swift", "NEAR(swift orm)", "swift & !orm", "(swift | rust)", "^swift",
            "swift <-> orm", "$1", "?", "%s", "\u{0}", String(repeating: "(", count: 1000),
        ]
        for text in hostile {
            let found = try backend.searchIDs(text, ordered: true)
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
        #expect(try backend.integer("SELECT count(*) FROM search_documents") == 4)
    }

    /// The index follows every write: insert, update, delete, raw SQL, deleteAll.
    static func indexFollowsWrites(_ backend: some FullTextSearchBackend) throws {
        let ids = try insertDocuments(backend)
        guard var cooking = try backend.find(SearchDocument.self, id: ids[2]) else {
            Issue.record("no document \(ids[2])")
            return
        }
        cooking.body = "Nothing about coffee"
        try backend.update(cooking)
        #expect(try backend.searchIDs("cafe") == [], "\(backend.name)")
        #expect(try backend.searchIDs("coffee") == [ids[2]], "\(backend.name)")
        #expect(try backend.searchIDs("cooking coffee") == [ids[2]], "\(backend.name)")
        #expect(try backend.delete(cooking))
        #expect(try backend.searchIDs("coffee") == [], "\(backend.name)")
        try backend.execute("UPDATE search_documents SET body = \("Kotlin now") WHERE id = \(ids[0])")
        #expect(try backend.searchIDs("kotlin") == [ids[0]], "\(backend.name)")
        #expect(try backend.searchIDs("lightweight") == [], "\(backend.name)")
        var saved = SearchDocument(id: nil, title: "Zig", body: "Kotlin too", year: 2020)
        try backend.save(&saved)
        #expect(
            try backend.searchIDs("kotlin", ordered: true) == [ids[0], saved.id ?? -1], "\(backend.name)")
        #expect(try backend.deleteMatching("rust") == 1, "\(backend.name)")
        #expect(try backend.searchIDs("swift", ordered: true) == [ids[0], ids[3]], "\(backend.name)")
        #expect(try backend.integer("SELECT count(*) FROM search_documents") == 3)
        // A model read back is the model written: the index is no column of it.
        #expect(try backend.find(SearchDocument.self, id: saved.id ?? -1) == saved)
    }

    /// Best match first: a short text full of the word before a long text holding it once.
    static func ranking(_ backend: some FullTextSearchBackend) throws {
        var long = SearchDocument(
            id: nil, title: "Animals",
            body: "The savanna holds lions, elephants, giraffes, antelopes, a zebra, hyenas, buffalo, "
                + "rhinos, cheetahs, leopards, warthogs, meerkats and many birds besides.",
            year: 1)
        var short = SearchDocument(id: nil, title: "Zebra", body: "Zebra zebra zebra.", year: 2)
        try backend.insert(&long)
        try backend.insert(&short)
        #expect(try backend.searchIDs("zebra") == [short.id, long.id].compactMap { $0 }, "\(backend.name)")
        #expect(try backend.searchIDs("zebra", limit: 1) == [short.id].compactMap { $0 }, "\(backend.name)")
        #expect(try backend.searchIDs("zebra", distinct: true) == [short.id, long.id].compactMap { $0 })
        // The query's own order wins.
        #expect(try backend.searchIDs("zebra", ordered: true) == [long.id, short.id].compactMap { $0 })
    }

    /// Snippets mark the words found, with the style's marks, and shorten long text.
    static func snippets(_ backend: some FullTextSearchBackend) throws {
        let ids = try insertDocuments(backend)
        let style = SnippetStyle(before: "<b>", after: "</b>", ellipsis: "…", maximumTokens: 12)
        let short = try backend.snippets("fast", style: style)
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
        try backend.insert(&long)
        let tight = SnippetStyle(before: "[", after: "]", ellipsis: "...", maximumTokens: 5)
        let snippet = try backend.snippets("NEEDLE", style: tight).first?.1 ?? ""
        #expect(snippet.contains("[needle]"), "\(backend.name): \(snippet)")
        #expect(snippet.hasPrefix("..."), "\(backend.name): \(snippet)")
        #expect(snippet.hasSuffix("..."), "\(backend.name): \(snippet)")
        let shownWords = snippet.split(separator: " ").count
        #expect((2...6).contains(shownWords), "\(backend.name): \(snippet)")
        #expect(!snippet.contains("word1 "), "\(backend.name): \(snippet)")
        // Marks are bound text, never SQL or option syntax.
        let hostile = SnippetStyle(
            before: "'\"(, StopSel=", after: "\"); --", ellipsis: "\\", maximumTokens: 3)
        let marked = try backend.snippets("needle", style: hostile).first?.1 ?? ""
        #expect(marked.contains("'\"(, StopSel=needle\"); --"), "\(backend.name): \(marked)")
    }
}
