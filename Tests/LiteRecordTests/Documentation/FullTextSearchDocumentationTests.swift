import Foundation
import LiteRecord
import Testing

// Internal, not private: the README declares it as `struct Article`.

struct Article: Model {
    var id: Int64?
    var title: String
    var body: String
    var section: String
    static let schema = Schema<Article>(table: "articles").fullTextSearch(on: [\.title, \.body])
}

/// The README's "Full-text search" example, as written.
@Suite("README: full-text search")
struct FullTextSearchDocumentationTests {
    @Test func searchesSnippetsAndRawQueries() throws {
        let db = try Database(.inMemory)

        try db.insert(Article(id: nil, title: "Swift on Linux", body: "An ORM for SQLite.", section: "news"))
        let hits = try db.query(Article.self).matching("swift orm").where { $0.section == "news" }
            .limit(20).fetchAll()
        // Any text: "AND", quotes and "*" are plain text, and "rust" is one of its words.
        let none = try db.query(Article.self).matching("Swift AND \"Rust\" *").count()  // 0
        let results = try db.query(Article.self).matching("sqlite")
            .fetchAll(withSnippetsOf: \.body, style: SnippetStyle(before: "<b>", after: "</b>"))
        // results[0].1 == "An ORM for <b>SQLite</b>."
        // FTS5's own syntax, for text your app writes:
        let either = try db.query(Article.self).matching(fts5Query: "rust OR linux").fetchAll()

        #expect(hits.map(\.title) == ["Swift on Linux"])
        #expect(none == 0)
        #expect(results.count == 1 && results[0].1 == "An ORM for <b>SQLite</b>.")
        #expect(either.map(\.title) == ["Swift on Linux"])
    }
}
