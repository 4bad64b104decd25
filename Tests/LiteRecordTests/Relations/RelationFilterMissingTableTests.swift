import Foundation
import LiteRecord
import Testing

// A relation filter naming a model whose table was never created reads it as an empty table, as
// the query's own model reads: the filter matches nothing, on the writer (which creates the
// table), on a reader of a WAL file and on a read-only database, instead of "no such table".

private struct ShelfAuthor: Model, Equatable {
    var id: Int64?
    var name: String
    static let schema = Schema<ShelfAuthor>(table: "shelf_authors")
}

private struct ShelfBook: Model, Equatable {
    var id: Int64?
    var authorID: Int64
    var year: Int
    static let schema = Schema<ShelfBook>(table: "shelf_books")
        .foreignKey(\.authorID, references: ShelfAuthor.self)
}

/// A book's reviews: the table a filter of a nested `including` reads, never created.
private struct ShelfReview: Model, Equatable {
    var id: Int64?
    var bookID: Int64
    var stars: Int
    static let schema = Schema<ShelfReview>(table: "shelf_reviews")
        .foreignKey(\.bookID, references: ShelfBook.self)
}

@Suite("Relation filters on a table never created")
struct RelationFilterMissingTableTests {
    private static func tableExists(_ db: Database, _ name: String) throws -> Bool {
        try db.fetchOne(Int.self, sql: "SELECT count(*) FROM sqlite_master WHERE name = \(name)") == 1
    }

    @Test func aReaderOfAFileSeesNoRelatedRows() throws {
        try withTemporaryDirectory { dir in
            let db = try Database(path: dir.file("shelf.sqlite"))
            var author = ShelfAuthor(name: "Pratchett")
            try db.insert(&author)
            #expect(try !Self.tableExists(db, "shelf_books"))
            let withBooks = try db.query(ShelfAuthor.self).where(any: ShelfBook.self) { $0.year > 0 }
                .fetchAll()
            #expect(withBooks.isEmpty)
            let counted = try db.query(ShelfAuthor.self).where(any: ShelfBook.self) { $0.year > 0 }.count()
            #expect(counted == 0)
            let books = try db.query(ShelfBook.self).where(ShelfAuthor.self) { $0.name == "Pratchett" }
                .fetchAll()
            #expect(books.isEmpty)
            let shelves = try db.query(ShelfAuthor.self).where(any: ShelfBook.self) { $0.year > 0 }
                .including(all: ShelfBook.self).fetchAll()
            #expect(shelves.isEmpty)
            let all = try db.query(ShelfAuthor.self).including(all: ShelfBook.self) {
                $0.where(ShelfAuthor.self) { $0.name == "Pratchett" }
            }.fetchAll()
            #expect(all.map(\.0) == [author])
            #expect(all.map(\.1) == [[]])
        }
    }

    @Test func theWriterCreatesTheRelatedTable() throws {
        let db = try Database(.inMemory)
        var author = ShelfAuthor(name: "Le Guin")
        try db.insert(&author)
        let changed = try db.query(ShelfAuthor.self).where(any: ShelfBook.self) { $0.year > 0 }
            .updateAll { [$0.name.set(to: "changed")] }
        #expect(changed == 0)
        #expect(try Self.tableExists(db, "shelf_books"))
        let names = try db.query(ShelfAuthor.self).fetchAll().map(\.name)
        #expect(names == ["Le Guin"])
        var book = ShelfBook(authorID: try #require(author.id), year: 1969)
        try db.insert(&book)
        let withBooks = try db.query(ShelfAuthor.self).where(any: ShelfBook.self) { $0.year > 1960 }
            .fetchAll()
        #expect(withBooks == [author])
    }

    /// A nested `including` whose roots, or whose children, are narrowed by a filter on a table
    /// never created: a read-only database and the reader of a file read it as empty, the writer
    /// creates it.
    @Test func aNestedIncludingReadsAMissingFilterTableAsEmpty() throws {
        func shelves(_ db: Database) throws -> [(ShelfAuthor, [(ShelfBook, ShelfAuthor?)])] {
            try db.query(ShelfAuthor.self).including(all: ShelfBook.self) {
                $0.where(any: ShelfReview.self) { $0.stars > 3 }.including(one: ShelfAuthor.self)
            }
            .fetchAll()
        }
        func reviewed(_ db: Database) throws -> [(ShelfBook, (ShelfAuthor, [ShelfBook])?)] {
            try db.query(ShelfBook.self).where(any: ShelfReview.self) { $0.stars > 3 }
                .including(one: ShelfAuthor.self) { $0.including(all: ShelfBook.self) }
                .fetchAll()
        }
        try withTemporaryDirectory { dir in
            let path = dir.file("nested.sqlite")
            let db = try Database(path: path)
            var author = ShelfAuthor(name: "Tolkien")
            try db.insert(&author)
            var book = ShelfBook(authorID: try #require(author.id), year: 1954)
            try db.insert(&book)
            var configuration = Configuration()
            configuration.readOnly = true
            let reader = try Database(path: path, configuration: configuration)
            let readShelves = try shelves(reader)
            #expect(readShelves.map(\.0) == [author])
            #expect(readShelves.map(\.1.count) == [0])
            #expect(try reviewed(reader).isEmpty)
            #expect(try !Self.tableExists(db, "shelf_reviews"))

            let written = try shelves(db)
            #expect(written.map(\.0) == [author])
            #expect(written.map(\.1.count) == [0])
            #expect(try reviewed(db).isEmpty)
            // Once a review is there, both filters keep the book.
            var review = ShelfReview(bookID: try #require(book.id), stars: 5)
            try db.insert(&review)
            let after = try shelves(db)
            let afterBooks = after.map { $0.1.map(\.0) }
            let afterAuthors = after.map { $0.1.map(\.1) }
            let afterReviewed = try reviewed(db)
            let afterShelves = afterReviewed.map { $0.1?.1 }
            #expect(afterBooks == [[book]])
            #expect(afterAuthors == [[author]])
            #expect(afterReviewed.map(\.0) == [book])
            #expect(afterShelves == [[book]])
        }
        // An in-memory database reads on its writer, which creates the table.
        let memory = try Database(.inMemory)
        var author = ShelfAuthor(name: "Herbert")
        try memory.insert(&author)
        var book = ShelfBook(authorID: try #require(author.id), year: 1965)
        try memory.insert(&book)
        let inMemory = try shelves(memory)
        #expect(inMemory.map(\.0) == [author])
        #expect(inMemory.map(\.1.count) == [0])
        #expect(try reviewed(memory).isEmpty)
        #expect(try Self.tableExists(memory, "shelf_reviews"))
    }

    @Test func aReadOnlyDatabaseSeesNoRelatedRows() throws {
        try withTemporaryDirectory { dir in
            let path = dir.file("readonly.sqlite")
            do {
                let db = try Database(path: path)
                var author = ShelfAuthor(name: "Jemisin")
                try db.insert(&author)
            }
            var configuration = Configuration()
            configuration.readOnly = true
            let reader = try Database(path: path, configuration: configuration)
            let withBooks = try reader.query(ShelfAuthor.self).where(any: ShelfBook.self) { $0.year > 0 }
                .fetchAll()
            #expect(withBooks.isEmpty)
            let everyone = try reader.query(ShelfAuthor.self).fetchAll().map(\.name)
            #expect(everyone == ["Jemisin"])
        }
    }
}
