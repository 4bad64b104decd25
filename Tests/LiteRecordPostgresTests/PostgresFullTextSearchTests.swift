import Foundation
import LiteRecord
import LiteRecordPostgres
import Testing

// Full-text search is not on PostgreSQL yet: a model declaring it fails at its first use, before
// anything is written, with an error that says what to use instead; that alternative works.

private struct Article: Model, Equatable {
    var id: Int64?
    var title: String
    var body: String
    static let schema = Schema<Article>(table: "articles").fullTextSearch(on: [\.title, \.body])
}

private struct Note: Model, Equatable {
    var id: Int64?
    var body: String
    static let schema = Schema<Note>(table: "notes")
}

private func expectSearchIsNotYetSupported(_ error: (any Error)?) {
    let message = (error as? SchemaError)?.message ?? "\(String(describing: error))"
    #expect(message.contains("Article declares full-text search"), "\(message)")
    #expect(message.contains("does not support yet"), "\(message)")
    #expect(message.contains("websearch_to_tsquery"), "\(message)")
    #expect(message.contains("SQLite Database"), "\(message)")
}

@Suite(.enabled(if: PostgresTestServer.isAvailable, PostgresTestServer.skipMessage))
struct PostgresFullTextSearchTests {
    @Test func everyUseOfASearchableModelThrowsAndWritesNothing() async throws {
        let pg = try PostgresTestServer.freshDatabase()
        var article = Article(id: nil, title: "Swift", body: "An ORM")
        var failure: (any Error)?
        do { try pg.insert(&article) } catch { failure = error }
        expectSearchIsNotYetSupported(failure)
        failure = nil
        do { _ = try await pg.query(Article.self).fetchAll() } catch { failure = error }
        expectSearchIsNotYetSupported(failure)
        failure = nil
        do { for try await _ in pg.observe(pg.query(Article.self)) {} } catch { failure = error }
        expectSearchIsNotYetSupported(failure)
        #expect(article.id == nil)
        #expect(try pg.fetchOne(Bool.self, sql: "SELECT to_regclass('articles') IS NULL") == true)
        #expect(!pg.observationHub.isListening)
    }

    @Test func rawSQLSearchIsTheAlternative() throws {
        let pg = try PostgresTestServer.freshDatabase()
        var notes = [
            Note(id: nil, body: "Running Swift on the server"),
            Note(id: nil, body: "A swift runner"),
            Note(id: nil, body: "Nothing here"),
        ]
        for index in notes.indices { try pg.insert(&notes[index]) }
        func search(_ text: String) throws -> [Int64?] {
            try pg.query(Note.self)
                .where(sql: "to_tsvector('english', body) @@ websearch_to_tsquery('english', \(text))")
                .order { $0.id.ascending }
                .fetchAll().map(\.id)
        }
        #expect(try search("SWIFT") == [notes[0].id, notes[1].id])  // any case
        #expect(try search("swift run") == [notes[0].id])  // every word, stemmed: running
        #expect(try search("swift -server") == [notes[1].id])
        // Operator characters and quotes in user text are search text, never SQL.
        #expect(try search("swift'; DROP TABLE notes; --") == [])
        #expect(try search("\"") == [])
        #expect(try pg.query(Note.self).count() == 3)
    }
}
