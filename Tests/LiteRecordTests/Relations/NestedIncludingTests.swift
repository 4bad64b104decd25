import Foundation
import LiteRecord
import Testing

struct NTAuthor: Model, Equatable {
    var id: Int64?
    var name: String
    static let schema = Schema<NTAuthor>(table: "nt_authors")
}

struct NTBook: Model, Equatable {
    var id: Int64?
    var authorID: Int64?
    var title: String
    var year: Int
    static let schema = Schema<NTBook>(table: "nt_books")
        .foreignKey(\.authorID, references: NTAuthor.self, onDelete: .setNull)
}

struct NTReview: Model, Equatable {
    var id: Int64?
    var bookID: Int64
    var stars: Int
    var text: String
    static let schema = Schema<NTReview>(table: "nt_reviews")
        .foreignKey(\.bookID, references: NTBook.self, onDelete: .cascade)
}

/// A library of random authors, books (some with no author) and reviews.
enum NestedLibrary {
    static func make(seed: UInt64, authors: Int = 20) throws -> Database {
        let db = try Database(.inMemory)
        try db.migrate(NTAuthor.self)
        try db.migrate(NTBook.self)
        try db.migrate(NTReview.self)
        var random = SeededGenerator(seed: seed)
        try db.transaction { tx in
            for index in 0..<authors {
                var author = NTAuthor(
                    id: nil, name: "Author \(Int.random(in: 0...99, using: &random))-\(index)")
                try tx.insert(&author)
                for _ in 0..<Int.random(in: 0...5, using: &random) {
                    let anonymous = Int.random(in: 0..<10, using: &random) == 0
                    var book = NTBook(
                        id: nil, authorID: anonymous ? nil : author.id, title: "Book \(index)",
                        year: Int.random(in: 1900...2020, using: &random))
                    try tx.insert(&book)
                    for review in 0..<Int.random(in: 0...4, using: &random) {
                        var note = NTReview(
                            id: nil, bookID: book.id ?? 0, stars: Int.random(in: 1...5, using: &random),
                            text: "R\(review)")
                        try tx.insert(&note)
                    }
                }
            }
        }
        return db
    }
}

@Suite struct NestedIncludingTests {
    @Test(arguments: [1, 2, 3, 4, 5] as [UInt64])
    func authorsBooksReviewsMatchTheTreeBuiltInSwift(seed: UInt64) throws {
        let db = try NestedLibrary.make(seed: seed)
        let tree = try db.query(NTAuthor.self).order { $0.name }
            .including(all: NTBook.self) {
                $0.where { $0.year >= 1950 }.order { $0.year.descending }
                    .including(all: NTReview.self) { $0.where { $0.stars > 2 }.order { $0.stars } }
            }
            .fetchAll()
        let authors = try db.query(NTAuthor.self).fetchAll()
        let books = try db.query(NTBook.self).fetchAll()
        let reviews = try db.query(NTReview.self).fetchAll()
        // The same tree in Swift: stable sorts over rows in id order, as SQLite's ties come.
        let expected = authors.sorted { $0.name < $1.name }.map { author in
            let shelf = books.filter { $0.authorID == author.id && $0.year >= 1950 }
                .sorted { $0.year > $1.year || ($0.year == $1.year && ($0.id ?? 0) < ($1.id ?? 0)) }
            return (
                author,
                shelf.map { book in
                    (
                        book,
                        reviews.filter { $0.bookID == book.id && $0.stars > 2 }
                            .sorted {
                                $0.stars < $1.stars || ($0.stars == $1.stars && ($0.id ?? 0) < ($1.id ?? 0))
                            }
                    )
                }
            )
        }
        #expect(tree.map(\.0) == expected.map(\.0))
        #expect(tree.map { $0.1.map(\.0) } == expected.map { $0.1.map(\.0) })
        #expect(tree.map { $0.1.map(\.1) } == expected.map { $0.1.map(\.1) })
        let someEmpty = tree.contains { $0.1.contains { $0.1.isEmpty } }
        #expect(someEmpty)
    }

    @Test func rootsKeepTheirWhereOrderAndLimit() throws {
        let db = try NestedLibrary.make(seed: 7)
        let tree = try db.query(NTAuthor.self)
            .including(all: NTBook.self) { $0.order { $0.id }.including(all: NTReview.self) }
            .where { $0.name != "nobody" }
            .order { $0.id.descending }
            .limit(3, offset: 2)
            .fetchAll()
        let authors = try db.query(NTAuthor.self).order { $0.id.descending }.limit(3, offset: 2).fetchAll()
        #expect(tree.map(\.0) == authors)
        for (author, books) in tree {
            let expectedBooks = try db.query(NTBook.self).where { $0.authorID == author.id }.order { $0.id }
                .fetchAll()
            #expect(books.map(\.0) == expectedBooks)
            for (book, reviews) in books {
                let expectedReviews = try db.query(NTReview.self).where { $0.bookID == (book.id ?? 0) }
                    .fetchAll()
                #expect(reviews == expectedReviews)
            }
        }
        let byColumn = try db.query(NTAuthor.self)
            .including(all: NTBook.self) { $0.including(all: NTReview.self) }
            .order { $0.name }
            .fetchAll()
        #expect(byColumn.map(\.0) == (try db.query(NTAuthor.self).order { $0.name }.fetchAll()))
    }

    @Test func toOneChainsGiveNilForNullKeys() throws {
        let db = try NestedLibrary.make(seed: 8)
        var anonymousBook = NTBook(id: nil, authorID: nil, title: "Anonymous", year: 1850)
        try db.insert(&anonymousBook)
        var anonymousReview = NTReview(id: nil, bookID: anonymousBook.id ?? 0, stars: 3, text: "who?")
        try db.insert(&anonymousReview)
        let reviews = try db.query(NTReview.self).order { $0.id }
            .including(one: NTBook.self) { $0.including(one: NTAuthor.self) }
            .fetchAll()
        let all = try db.query(NTReview.self).order { $0.id }.fetchAll()
        let books = try db.query(NTBook.self).fetchAll()
        let authors = try db.query(NTAuthor.self).fetchAll()
        #expect(reviews.map(\.0) == all)
        for (review, bookAndAuthor) in reviews {
            let book = books.first { $0.id == review.bookID }
            #expect(bookAndAuthor?.0 == book)
            #expect(bookAndAuthor?.1 == authors.first { $0.id == book?.authorID })
        }
        let anonymous = reviews.contains { $0.1 != nil && $0.1?.1 == nil }
        #expect(anonymous)  // a book with a NULL author key
    }

    @Test func toOneThenToManyAndBack() throws {
        let db = try NestedLibrary.make(seed: 9)
        // Each book with its author, and that author with all their books, each with its reviews.
        let tree = try db.query(NTBook.self).order { $0.id }
            .including(one: NTAuthor.self) {
                $0.including(all: NTBook.self) { $0.order { $0.id }.including(all: NTReview.self) }
            }
            .fetchAll()
        let books = try db.query(NTBook.self).order { $0.id }.fetchAll()
        let reviews = try db.query(NTReview.self).fetchAll()
        #expect(tree.map(\.0) == books)
        for (book, author) in tree {
            #expect(author?.0.id == book.authorID)
            let shelf = books.filter { $0.authorID != nil && $0.authorID == book.authorID }
            #expect((author?.1.map(\.0) ?? []) == (book.authorID == nil ? [] : shelf))
            for (shelfBook, bookReviews) in author?.1 ?? [] {
                #expect(bookReviews == reviews.filter { $0.bookID == shelfBook.id })
            }
        }
    }

    @Test func statementCountIsOnePerLevelWhateverTheRows() throws {
        for authors in [2, 30, 300] {
            let db = try NestedLibrary.make(seed: 11, authors: authors)
            let statements = StatementLog(db)
            let tree = try db.query(NTAuthor.self)
                .including(all: NTBook.self) { $0.including(all: NTReview.self) }
                .fetchAll()
            #expect(tree.count == authors)
            #expect(statements.selects.count == 3, "\(statements.all)")
            #expect(statements.all.count == 5, "\(statements.all)")  // with BEGIN and COMMIT
            #expect(statements.selects.allSatisfy { !$0.contains("[1") })  // keys are bound
        }
    }

    @Test func emptyLevelsRunNoQueryBelowThem() throws {
        let db = try Database(.inMemory)
        try db.migrate(NTBook.self)
        try db.migrate(NTReview.self)
        var author = NTAuthor(id: nil, name: "Alone")
        try db.insert(&author)
        let statements = StatementLog(db)
        let tree = try db.query(NTAuthor.self)
            .including(all: NTBook.self) { $0.including(all: NTReview.self) }
            .fetchAll()
        #expect(tree.map(\.0) == [author])
        #expect(tree.map { $0.1.count } == [0])
        #expect(statements.selects.count == 2)  // no book: no review query
        let none = try db.query(NTAuthor.self).where { $0.name == "nobody" }
            .including(all: NTBook.self) { $0.including(all: NTReview.self) }
            .fetchAll()
        #expect(none.isEmpty)
        #expect(statements.selects.count == 3)
        let emptyDatabase = try Database(.inMemory)
        let nothing = try emptyDatabase.query(NTReview.self)
            .including(one: NTBook.self) { $0.including(one: NTAuthor.self) }.fetchAll()
        #expect(nothing.isEmpty)
    }

    @Test func aLimitBelowTheRootsIsRefusedAtAnyDepth() throws {
        let db = try NestedLibrary.make(seed: 12)
        let deep = schemaError {
            _ = try db.query(NTAuthor.self)
                .including(all: NTBook.self) { $0.including(all: NTReview.self) { $0.limit(1) } }
                .fetchAll()
        }
        #expect(deep?.message.contains("limit") == true)
        #expect(deep?.message.contains("NTReview") == true)
        let middle = schemaError {
            _ = try db.query(NTAuthor.self)
                .including(all: NTBook.self) { $0.limit(2).including(all: NTReview.self) }
                .fetchAll()
        }
        #expect(middle?.message.contains("NTBook") == true)
    }

    @Test func aMissingRelationBelowTheRootsNamesBothTypes() throws {
        let db = try NestedLibrary.make(seed: 13)
        let error = schemaError {
            _ = try db.query(NTAuthor.self)
                .including(all: NTBook.self) {
                    $0.including(all: NTAuthor.self) { $0.including(all: NTAuthor.self) }
                }
                .fetchAll()
        }
        #expect(
            error?.message.contains("no relation between NTAuthor and NTAuthor") == true,
            "\(String(describing: error))")
        let unchanged = try db.query(NTReview.self).count()
        #expect(unchanged > 0)
    }

    @Test @MainActor func asyncFetchFromTheMainActorGivesTheSameTree() async throws {
        let db = try NestedLibrary.make(seed: 14)
        let query = db.query(NTAuthor.self).order { $0.id }
            .including(all: NTBook.self) { $0.order { $0.id }.including(all: NTReview.self) }
        let fetched = try await query.fetchAll()
        let blocking = try Self.fetchBlocking(query)
        #expect(fetched.map(\.0) == blocking.map(\.0))
        #expect(fetched.map { $0.1.map(\.0) } == blocking.map { $0.1.map(\.0) })
        #expect(fetched.map { $0.1.map(\.1) } == blocking.map { $0.1.map(\.1) })
        let credits = try await db.query(NTReview.self)
            .including(one: NTBook.self) { $0.including(one: NTAuthor.self) }.fetchAll()
        let total = try await db.query(NTReview.self).count()
        #expect(credits.count == total)
    }

    private nonisolated static func fetchBlocking(
        _ query: QueryIncludingAllTree<NTAuthor, QueryIncludingAll<NTBook, NTReview>>
    ) throws -> [(NTAuthor, [(NTBook, [NTReview])])] {
        try query.fetchAll()
    }

    @Test func observationUpdatesWhenAGrandchildTableChanges() async throws {
        try await withTemporaryDirectory { dir in
            let db = try Database(path: dir.file("nested-observe.sqlite"))
            let query = db.query(NTAuthor.self).order { $0.id }
                .including(all: NTBook.self) { $0.order { $0.id }.including(all: NTReview.self) }
            var values = db.observe(query).makeAsyncIterator()
            #expect(try await values.next()?.isEmpty == true)
            var author = NTAuthor(id: nil, name: "Le Guin")
            try await db.insert(&author)
            var book = NTBook(id: nil, authorID: author.id, title: "Earthsea", year: 1968)
            _ = try await values.next()
            try await db.insert(&book)
            let books = try await values.next()?.map { $0.1.map(\.0.title) }
            #expect(books == [["Earthsea"]])
            var review = NTReview(id: nil, bookID: book.id ?? 0, stars: 5, text: "wizards")
            try await db.insert(&review)  // only the grandchildren's table changes
            let reviews = try await values.next()?.map { $0.1.map { $0.1.map(\.text) } }
            #expect(reviews == [[["wizards"]]])
        }
    }
}
