import Foundation
import LiteRecord
import Testing

// Eager loading sorts roots and children by text as the query language does elsewhere: by bytes,
// on any database locale (see CollationParityChecks.swift).

struct CollationShelf: Model, Equatable {
    var id: Int64?
    var name: String
    var info: CollationNick
    static let schema = Schema<CollationShelf>(table: "collation_parity_shelves")
}

struct CollationBook: Model, Equatable {
    var id: Int64?
    var shelfID: Int64
    var title: String
    var info: CollationNick
    static let schema = Schema<CollationBook>(table: "collation_parity_books")
        .foreignKey(\.shelfID, references: CollationShelf.self, onDelete: .cascade)
}

enum CollationEagerLoadingChecks {
    static func orderings(_ db: some ModelContext, _ backend: ParityBackend) throws {
        let words = CollationParityChecks.words
        var shelves: [CollationShelf] = []
        for (index, word) in words.enumerated() {
            var shelf = CollationShelf(
                id: nil, name: word, info: CollationNick(nick: words[(index + 2) % words.count], aliases: []))
            try db.insert(&shelf)
            shelves.append(shelf)
        }
        var books: [CollationBook] = []
        for (index, shelf) in shelves.prefix(3).enumerated() {
            for (offset, word) in words.enumerated() {
                var book = CollationBook(
                    id: nil, shelfID: shelf.id ?? 0, title: word,
                    info: CollationNick(nick: words[(offset + index) % words.count], aliases: []))
                try db.insert(&book)
                books.append(book)
            }
        }
        let loaded = try db.query(CollationShelf.self).order { $0.info.nick.descending }.limit(5).including(
            all: CollationBook.self
        ) { $0.order { $0.info.nick.ascending } }.fetchAll()
        let expectedShelves = Array(shelves.sorted { $0.info.nick > $1.info.nick }.prefix(5))
        #expect(loaded.map(\.0.id) == expectedShelves.map(\.id), "\(backend.name): roots by info.nick")
        for (shelf, children) in loaded {
            let expected = books.filter { $0.shelfID == shelf.id }.sorted { $0.info.nick < $1.info.nick }
            #expect(
                children.map(\.id) == expected.map(\.id),
                "\(backend.name): books of \(shelf.name.debugDescription)")
        }
        let byTitle = try db.query(CollationShelf.self).order { $0.name.ascending }.including(
            all: CollationBook.self
        ) { $0.order { $0.title.descending } }.fetchAll()
        #expect(byTitle.map(\.0.name) == words.sorted(), "\(backend.name): roots by name")
        for (shelf, children) in byTitle {
            let expected = books.filter { $0.shelfID == shelf.id }.map(\.title).sorted(by: >)
            #expect(
                children.map(\.title) == expected, "\(backend.name): titles of \(shelf.name.debugDescription)"
            )
        }
    }
}
