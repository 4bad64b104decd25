// The PostgreSQL article's "Full-text search" section, line for line (see ReadmeCodeBlockTests).
import Foundation
import LiteRecord
import LiteRecordPostgres
import Testing

private struct Article: Model, Equatable {
    var id: Int64?
    var title: String
    var body: String
    static let schema = Schema<Article>(table: "articles").fullTextSearch(on: [\.title, \.body])
}

@Suite(.enabled(if: PostgresTestServer.isAvailable, PostgresTestServer.skipMessage))
struct PostgresFullTextSearchDocumentationTests {
    @Test func searchingAndSnippets() throws {
        let pg = try PostgresTestServer.freshDatabase()
        var orm = Article(id: nil, title: "LiteRecord", body: "A Swift ORM, with Swift on Linux")
        var other = Article(
            id: nil, title: "Birds",
            body: "A swift is a bird that flies fast over the sea and the land all day long")
        try pg.insert(&orm)
        try pg.insert(&other)
        let hits = try pg.query(Article.self).matching("swift orm").limit(20).fetchAll()
        let results = try pg.query(Article.self).matching("swift")
            .fetchAll(withSnippetsOf: \.body, style: SnippetStyle(before: "<b>", after: "</b>"))
        #expect(hits == [orm])
        #expect(results.map(\.0) == [orm, other])
        #expect(results.first?.1 == "A <b>Swift</b> ORM, with <b>Swift</b> on Linux")
        let shortened = results.last?.1 ?? ""
        #expect(shortened.contains("<b>swift</b> is a bird") && shortened.hasSuffix("…"), "\(shortened)")
    }
}
