// The Relationships article's "Nested trees" and "Fetching into your own types" blocks, line
// for line (see ReadmeCodeBlockTests).
import Foundation
import LiteRecord
import Testing

@Suite struct NestedRelationshipsDocumentationTests {
    typealias Author = RelationshipsDocumentationTests.Author
    typealias Book = RelationshipsDocumentationTests.Book

    struct Review: Model, Equatable {
        var id: Int64?; var bookID: Int64; var stars: Int
        static let schema = Schema<Review>(table: "reviews").foreignKey(\.bookID, references: Book.self)
    }

    /// Tolkien (The Hobbit 1937: 4 and 5 stars; Silmarillion 1977: 3), Herbert (Dune 1965: none),
    /// and Old (Beowulf 1000: 2).
    private func fill(_ db: Database) throws {
        for (name, books) in [
            ("Tolkien", [("The Hobbit", 1937, [4, 5]), ("Silmarillion", 1977, [3])]),
            ("Herbert", [("Dune", 1965, [])]), ("Old", [("Beowulf", 1000, [2])]),
        ] {
            var author = Author(id: nil, name: name)
            try db.insert(&author)
            for (title, year, stars) in books {
                var book = Book(id: nil, authorID: author.id ?? 0, title: title, year: year)
                try db.insert(&book)
                for count in stars {
                    var review = Review(id: nil, bookID: book.id ?? 0, stars: count)
                    try db.insert(&review)
                }
            }
        }
    }

    @Test func nestedTrees() throws {
        let db = try Database(.inMemory)
        try fill(db)
        let tree: [(Author, [(Book, [Review])])] = try db.query(Author.self).order { $0.name }
            .including(all: Book.self) {
                $0.where { $0.year > 1900 }.order { $0.year }                 // each level narrows and sorts
                    .including(all: Review.self) { $0.order { $0.stars.descending } }
            }
            .fetchAll()                                                        // three SELECTs, one per level
        let credits: [(Review, (Book, Author?)?)] = try db.query(Review.self)
            .including(one: Book.self) { $0.including(one: Author.self) }.fetchAll()
        #expect(tree.map(\.0.name) == ["Herbert", "Old", "Tolkien"])
        #expect(tree.map { $0.1.map(\.0.title) } == [["Dune"], [], ["The Hobbit", "Silmarillion"]])
        #expect(tree[2].1.map { $0.1.map(\.stars) } == [[5, 4], [3]])
        #expect(credits.map { $0.1?.1?.name } == ["Tolkien", "Tolkien", "Tolkien", "Old"])
        #expect(credits.map { $0.1?.0.title } == ["The Hobbit", "The Hobbit", "Silmarillion", "Beowulf"])
    }

    @Test func fetchingIntoYourOwnTypes() throws {
        let db = try Database(.inMemory)
        try fill(db)
        struct BookWithReviews: Decodable { var book: Book; var reviews: [Review] }
        struct Shelf: Decodable { var author: Author; var books: [BookWithReviews] }
        struct Credit: Decodable { var review: Review; var book: Book? }
        let shelves: [Shelf] = try db.query(Author.self)
            .including(all: Book.self) { $0.including(all: Review.self) }
            .fetchAll(Shelf.self)
        let reviewCredits: [Credit] = try db.query(Review.self).including(one: Book.self).fetchAll(Credit.self)
        #expect(shelves.map(\.author.name) == ["Tolkien", "Herbert", "Old"])
        #expect(shelves.map { $0.books.map(\.book.title) } == [["The Hobbit", "Silmarillion"], ["Dune"], ["Beowulf"]])
        #expect(shelves[0].books.map { $0.reviews.map(\.stars) } == [[4, 5], [3]])
        #expect(reviewCredits.map(\.review.stars) == [4, 5, 3, 2])
        #expect(reviewCredits.map { $0.book?.title } == ["The Hobbit", "The Hobbit", "Silmarillion", "Beowulf"])
    }
}
