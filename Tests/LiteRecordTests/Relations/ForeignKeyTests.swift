import Foundation
import LiteRecord
import Testing

private struct FKAuthor: Model, Equatable {
    var id: Int64?
    var name: String
    static let schema = Schema<FKAuthor>(table: "fk_authors")
}

private struct FKBook: Model, Equatable {
    var id: Int64?
    var authorID: Int64
    var title: String
    static let schema = Schema<FKBook>(table: "fk_books")
        .foreignKey(\.authorID, references: FKAuthor.self, onDelete: .cascade)
}

private struct FKLoan: Model, Equatable {
    var id: Int64?
    var bookID: Int64?
    var reader: String
    static let schema = Schema<FKLoan>(table: "fk_loans")
        .foreignKey(\.bookID, references: FKBook.self, onDelete: .setNull)
}

private struct FKReview: Model, Equatable {
    var id: Int64?
    var bookID: Int64
    var stars: Int
    static let schema = Schema<FKReview>(table: "fk_reviews")
        .foreignKey(\.bookID, references: FKBook.self, onDelete: .restrict)
}

private struct FKNote: Model, Equatable {
    var id: Int64?
    var bookID: Int64
    var text: String
    static let schema = Schema<FKNote>(table: "fk_notes").foreignKey(\.bookID, references: FKBook.self)
}

/// A foreign key to a non-default key (a unique code), on a composite key.
private struct FKCountry: Model, Equatable {
    var id: Int64?
    var code: String
    static let schema = Schema<FKCountry>(table: "fk_countries", unique: [\.code])
}

private struct FKCity: Model, Equatable {
    var id: Int64?
    var countryCode: String
    var name: String
    static let schema = Schema<FKCity>(table: "fk_cities")
        .foreignKey(\.countryCode, references: FKCountry.self, key: \.code, onDelete: .cascade)
}

private struct FKEdition: Model, Equatable {
    var isbn: String
    var printing: Int
    var pages: Int
    static let schema = Schema<FKEdition>(table: "fk_editions", primaryKey: [\.isbn, \.printing])
}

private struct FKCopy: Model, Equatable {
    var id: Int64?
    var isbn: String
    var printing: Int
    var shelf: String
    static let schema = Schema<FKCopy>(table: "fk_copies")
        .foreignKey([\.isbn, \.printing], references: FKEdition.self, onDelete: .cascade)
}

/// Declared `.setNull` on a key that cannot be NULL.
private struct FKBadSetNull: Model {
    var id: Int64?
    var authorID: Int64
    static let schema = Schema<FKBadSetNull>(table: "fk_bad").foreignKey(
        \.authorID, references: FKAuthor.self, onDelete: .setNull)
}

/// An existing table (made by another tool) the same model declares a key on.
private struct FKLegacyBook: Model, Equatable {
    var id: Int64?
    var authorID: Int64
    var title: String
    static let schema = Schema<FKLegacyBook>(table: "legacy_books")
        .foreignKey(\.authorID, references: FKAuthor.self, onDelete: .cascade)
}

@Suite struct ForeignKeyTests {
    private func library() throws -> (Database, FKAuthor, FKBook) {
        let db = try Database(.inMemory)
        var author = FKAuthor(id: nil, name: "Tolkien")
        try db.insert(&author)
        var book = FKBook(id: nil, authorID: try #require(author.id), title: "The Hobbit")
        try db.insert(&book)
        return (db, author, book)
    }

    @Test func newTableDeclaresTheKeyAndIndexesIt() throws {
        let (db, _, _) = try library()
        let sql = try createSQL(db, "fk_books")
        #expect(sql.contains(#"FOREIGN KEY ("authorID") REFERENCES "fk_authors" ("id") ON DELETE CASCADE"#))
        let list = try db.fetchAll(Row.self, sql: "SELECT * FROM pragma_foreign_key_list('fk_books')")
        #expect(list.count == 1)
        #expect(try list[0].value(String.self, named: "table") == "fk_authors")
        #expect(try list[0].value(String.self, named: "on_delete") == "CASCADE")
        #expect(try indexColumns(db, "fk_books_on_authorID") == ["authorID"])
        let plan = try db.fetchAll(
            Row.self, sql: "EXPLAIN QUERY PLAN SELECT * FROM fk_books WHERE authorID = \(1)")
        #expect(
            try plan.contains { try $0.value(String.self, named: "detail").contains("fk_books_on_authorID") })
    }

    @Test func danglingKeyIsAForeignKeyConstraintErrorAndWritesNothing() throws {
        let (db, _, _) = try library()
        var orphan = FKBook(id: nil, authorID: 999, title: "Orphan")
        do {
            try db.insert(&orphan)
            Issue.record("a book of a missing author was inserted")
        } catch let error as DatabaseError {
            #expect(error.resultCode == .constraintForeignKey)
            #expect(error.message.contains("FOREIGN KEY constraint failed"))
        }
        #expect(try db.query(FKBook.self).count() == 1)
        #expect(orphan.id == nil)
    }

    @Test func cascadeDeletesTheChildren() throws {
        let (db, author, _) = try library()
        try db.delete(author)
        #expect(try db.query(FKBook.self).count() == 0)
    }

    @Test func setNullKeepsTheChildWithoutItsParent() throws {
        let (db, _, book) = try library()
        var loan = FKLoan(id: nil, bookID: book.id, reader: "Sam")
        try db.insert(&loan)
        try db.delete(book)
        let loanID = try #require(loan.id)
        let kept = try #require(try db.find(FKLoan.self, id: loanID))
        #expect(kept.bookID == nil)
        #expect(kept.reader == "Sam")
    }

    @Test func restrictRefusesTheDeleteAndKeepsEverything() throws {
        let (db, _, book) = try library()
        var review = FKReview(id: nil, bookID: try #require(book.id), stars: 5)
        try db.insert(&review)
        do {
            try db.delete(book)
            Issue.record("a reviewed book was deleted")
        } catch let error as DatabaseError {
            // SQLite checks RESTRICT with a trigger and says SQLITE_CONSTRAINT_TRIGGER; every
            // refusal by a foreign key is `.constraintForeignKey` in LiteRecord, as on PostgreSQL.
            #expect(error.resultCode == .constraintForeignKey)
            #expect(error.message.contains("FOREIGN KEY constraint failed"))
        }
        #expect(try db.query(FKBook.self).count() == 1)
        #expect(try db.query(FKReview.self).count() == 1)
        #expect(try createSQL(db, "fk_reviews").contains("ON DELETE RESTRICT"))
    }

    @Test func noActionIsTheDefaultAndRefusesTheDelete() throws {
        let (db, _, book) = try library()
        var note = FKNote(id: nil, bookID: try #require(book.id), text: "first edition")
        try db.insert(&note)
        #expect(try createSQL(db, "fk_notes").contains("ON DELETE NO ACTION"))
        let refusal = #expect(throws: DatabaseError.self) { try db.delete(book) }
        #expect(refusal?.resultCode == .constraintForeignKey)
        #expect(try db.query(FKNote.self).count() == 1)
    }

    @Test func keyToAUniqueColumnAndCompositeKey() throws {
        let db = try Database(.inMemory)
        var country = FKCountry(id: nil, code: "FR")
        try db.insert(&country)
        var city = FKCity(id: nil, countryCode: "FR", name: "Lyon")
        try db.insert(&city)
        #expect(try createSQL(db, "fk_cities").contains(#"REFERENCES "fk_countries" ("code")"#))
        var lost = FKCity(id: nil, countryCode: "XX", name: "Nowhere")
        #expect(throws: DatabaseError.self) { try db.insert(&lost) }

        var edition = FKEdition(isbn: "978-0", printing: 2, pages: 310)
        try db.insert(&edition)
        var copy = FKCopy(id: nil, isbn: "978-0", printing: 2, shelf: "A1")
        try db.insert(&copy)
        #expect(
            try createSQL(db, "fk_copies").contains(
                #"FOREIGN KEY ("isbn", "printing") REFERENCES "fk_editions" ("isbn", "printing")"#))
        #expect(try indexColumns(db, "fk_copies_on_isbn_printing") == ["isbn", "printing"])
        var wrongPrinting = FKCopy(id: nil, isbn: "978-0", printing: 3, shelf: "A2")
        #expect(throws: DatabaseError.self) { try db.insert(&wrongPrinting) }
        try db.delete(edition)
        #expect(try db.query(FKCopy.self).count() == 0)
    }

    @Test func parentTableIsCreatedWithTheChild() throws {
        let db = try Database(.inMemory)
        // The first use is the child's: the parent's table must exist for SQLite to check the key.
        #expect(try db.query(FKBook.self).count() == 0)
        var book = FKBook(id: nil, authorID: 1, title: "Orphan")
        #expect(throws: DatabaseError.self) { try db.insert(&book) }
        #expect(
            try db.fetchOne(Int.self, sql: "SELECT count(*) FROM sqlite_master WHERE name = 'fk_authors'")
                == 1)
    }

    @Test func setNullOnARequiredKeyIsASchemaError() throws {
        let db = try Database(.inMemory)
        let error = schemaError { _ = try db.query(FKBadSetNull.self).count() }
        #expect(error?.message.contains("FKBadSetNull.authorID") == true)
        #expect(error?.message.contains(".setNull") == true)
        #expect(error?.message.contains("optional") == true)
    }

    @Test func existingTableIsLeftExactlyAsItWas() throws {
        let db = try Database(.inMemory)
        try db.execute(
            sql: """
                CREATE TABLE fk_authors (id INTEGER PRIMARY KEY, name TEXT NOT NULL);
                CREATE TABLE legacy_books (id INTEGER PRIMARY KEY, authorID INTEGER NOT NULL, title TEXT NOT NULL);
                INSERT INTO fk_authors VALUES (1, 'Tolkien');
                INSERT INTO legacy_books VALUES (1, 1, 'The Hobbit'), (2, 7, 'Dangling');
                """)
        let before = try db.fetchAll(String.self, sql: "SELECT sql FROM sqlite_master ORDER BY name")
        var book = FKLegacyBook(id: nil, authorID: 42, title: "Not enforced")
        try db.insert(&book)
        #expect(try db.fetchAll(String.self, sql: "SELECT sql FROM sqlite_master ORDER BY name") == before)
        #expect(
            try db.fetchAll(Row.self, sql: "SELECT * FROM pragma_foreign_key_list('legacy_books')").isEmpty)
        // The relation still serves queries.
        let shelves = try db.query(FKAuthor.self).including(all: FKLegacyBook.self).fetchAll()
        #expect(shelves.map { $0.1.map(\.title) } == [["The Hobbit"]])
        // A book whose author is missing (the key is not enforced) has no author.
        let credits = try db.query(FKLegacyBook.self).including(one: FKAuthor.self).order { $0.id }.fetchAll()
        #expect(credits.map { $0.1?.name } == ["Tolkien", nil, nil])
    }
}
