import Foundation
import LiteRecord
import Testing

private struct ObsAuthor: Model, Equatable {
    var id: Int64?
    var name: String
    static let schema = Schema<ObsAuthor>(table: "obs_authors")
}

private struct ObsBook: Model, Equatable {
    var id: Int64?
    var authorID: Int64
    var title: String
    static let schema = Schema<ObsBook>(table: "obs_books")
        .foreignKey(\.authorID, references: ObsAuthor.self, onDelete: .cascade)
}

@Suite struct RelationObservationTests {
    @Test(arguments: [true, false])
    func aQueryWithIncludingUpdatesWhenAnyOfItsTablesChanges(onFile: Bool) async throws {
        try await withTemporaryDirectory { dir in
            let db = onFile ? try Database(path: dir.file("observe.sqlite")) : try Database(.inMemory)
            let query = db.query(ObsAuthor.self).order { $0.id }.including(all: ObsBook.self) {
                $0.order { $0.id }
            }
            var values = db.observe(query).makeAsyncIterator()
            #expect(try await values.next()?.isEmpty == true)
            var author = ObsAuthor(id: nil, name: "Le Guin")
            try await db.insert(&author)
            let bookCounts = try await values.next()?.map { $0.1.count }
            #expect(bookCounts == [0])
            var book = ObsBook(id: nil, authorID: author.id ?? 0, title: "Earthsea")
            try await db.insert(&book)  // only the children's table changes
            let titles = try await values.next()?.map { $0.1.map(\.title) }
            #expect(titles == [["Earthsea"]])
            try await db.execute(sql: "DELETE FROM obs_authors")  // cascades
            #expect(try await values.next()?.isEmpty == true)
            var credits = db.observe(db.query(ObsBook.self).including(one: ObsAuthor.self))
                .makeAsyncIterator()
            #expect(try await credits.next()?.isEmpty == true)
        }
    }
}
