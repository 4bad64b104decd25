import Foundation
import LiteRecord
import Testing

// Foreign keys of the tables LiteRecord creates, on both backends: the constraint with its
// ON DELETE action and an index on the key, enforcement (a dangling key is
// `.constraintForeignKey`, SQLSTATE 23503 on PostgreSQL) and the actions themselves.

struct RelAuthor: Model, Equatable {
    var id: Int64?
    var name: String
    static let schema = Schema<RelAuthor>(table: "rel_authors")
}

struct RelBook: Model, Equatable {
    var id: Int64?
    var authorID: Int64
    var title: String
    var year: Int
    static let schema = Schema<RelBook>(table: "rel_books")
        .foreignKey(\.authorID, references: RelAuthor.self, onDelete: .cascade)
}

struct RelLoan: Model, Equatable {
    var id: Int64?
    var bookID: Int64?
    var reader: String
    static let schema = Schema<RelLoan>(table: "rel_loans")
        .foreignKey(\.bookID, references: RelBook.self, onDelete: .setNull)
}

struct RelReview: Model, Equatable {
    var id: Int64?
    var bookID: Int64
    var stars: Int
    static let schema = Schema<RelReview>(table: "rel_reviews", indexes: [[\.bookID, \.stars]])
        .foreignKey(\.bookID, references: RelBook.self, onDelete: .restrict)
}

struct RelNote: Model, Equatable {
    var id: Int64?
    var bookID: Int64
    var text: String
    static let schema = Schema<RelNote>(table: "rel_notes").foreignKey(\.bookID, references: RelBook.self)
}

/// A key to a unique code rather than the primary key.
struct RelCountry: Model, Equatable {
    var id: Int64?
    var code: String
    static let schema = Schema<RelCountry>(table: "rel_countries", unique: [\.code])
}

struct RelCity: Model, Equatable {
    var id: Int64?
    var countryCode: String
    var name: String
    static let schema = Schema<RelCity>(table: "rel_cities")
        .foreignKey(\.countryCode, references: RelCountry.self, key: \.code, onDelete: .cascade)
}

/// A table another tool created, on which the model declares a key: nothing changes in it.
struct RelLegacyBook: Model, Equatable {
    var id: Int64?
    var authorID: Int64
    var title: String
    static let schema = Schema<RelLegacyBook>(table: "rel_legacy_books")
        .foreignKey(\.authorID, references: RelAuthor.self, onDelete: .cascade)
}

/// Two models referencing each other: creating either creates both, each with its key.
struct RelTeam: Model, Equatable {
    var id: Int64?
    var captainID: Int64?
    static let schema = Schema<RelTeam>(table: "rel_teams")
        .foreignKey(\.captainID, references: RelMember.self, onDelete: .setNull)
}

struct RelMember: Model, Equatable {
    var id: Int64?
    var teamID: Int64
    static let schema = Schema<RelMember>(table: "rel_members")
        .foreignKey(\.teamID, references: RelTeam.self, onDelete: .cascade)
}

enum ForeignKeyParityChecks {
    /// A created table declares each key with its action and indexes it (unless an index
    /// already begins with the key's columns), and creating a child creates its parent.
    static func newTablesDeclareAndIndexTheirKeys(_ db: some ModelContext, _ backend: ParityBackend) throws {
        var author = RelAuthor(id: nil, name: "Tolkien")
        var book = RelBook(id: nil, authorID: 0, title: "The Hobbit", year: 1937)
        // The child first: its parent's table is created with it.
        expectError(.constraintForeignKey) { try db.insert(&book) }
        try db.insert(&author)
        book.authorID = try #require(author.id)
        try db.insert(&book)
        var loan = RelLoan(id: nil, bookID: book.id, reader: "Sam")
        try db.insert(&loan)
        var review = RelReview(id: nil, bookID: try #require(book.id), stars: 5)
        try db.insert(&review)
        var note = RelNote(id: nil, bookID: try #require(book.id), text: "first edition")
        try db.insert(&note)
        #expect(try backend.foreignKeys(of: "rel_books", in: db) == ["authorID CASCADE"])
        #expect(try backend.foreignKeys(of: "rel_loans", in: db) == ["bookID SET NULL"])
        #expect(try backend.foreignKeys(of: "rel_reviews", in: db) == ["bookID RESTRICT"])
        #expect(try backend.foreignKeys(of: "rel_notes", in: db) == ["bookID NO ACTION"])
        #expect(try backend.indexedColumns(of: "rel_books", in: db).contains("authorID"))
        #expect(try backend.indexedColumns(of: "rel_loans", in: db).contains("bookID"))
        // The declared index (bookID, stars) serves the key: no second index.
        let reviewIndexes = try backend.indexedColumns(of: "rel_reviews", in: db)
        #expect(reviewIndexes.contains("bookID,stars"))
        #expect(!reviewIndexes.contains("bookID"))

        var country = RelCountry(id: nil, code: "NZ")
        try db.insert(&country)
        var city = RelCity(id: nil, countryCode: "NZ", name: "Wellington")
        try db.insert(&city)
        #expect(try backend.foreignKeys(of: "rel_cities", in: db) == ["countryCode CASCADE"])
        var nowhere = RelCity(id: nil, countryCode: "XX", name: "Nowhere")
        expectError(.constraintForeignKey) { try db.insert(&nowhere) }
        #expect(try db.delete(country))
        #expect(try db.fetchOne(Int64.self, sql: "SELECT count(*) FROM rel_cities") == 0)
    }

    /// A key no parent row has is a `.constraintForeignKey` error that writes nothing, on
    /// insert and on update; PostgreSQL's carries SQLSTATE 23503.
    static func danglingKeyIsAnError(_ db: some ModelContext, _ backend: ParityBackend) throws {
        var author = RelAuthor(id: nil, name: "Le Guin")
        try db.insert(&author)
        var book = RelBook(id: nil, authorID: try #require(author.id), title: "Earthsea", year: 1968)
        try db.insert(&book)
        var orphan = RelBook(id: nil, authorID: 999, title: "Orphan", year: 2000)
        do {
            try db.insert(&orphan)
            Issue.record("a book of a missing author was inserted on \(backend.name)")
        } catch let error as DatabaseError {
            #expect(error.resultCode == .constraintForeignKey)
            if !backend.isSQLite {
                #expect(error.sqlState == "23503")
                #expect(error.message.contains("foreign key"))
            } else {
                #expect(error.sqlState == nil)
                #expect(error.message.contains("FOREIGN KEY constraint failed"))
            }
        }
        #expect(orphan.id == nil)
        var moved = book
        moved.authorID = 999
        expectError(.constraintForeignKey) { try db.update(moved) }
        #expect(try db.find(RelBook.self, id: try #require(book.id)) == book)
        #expect(try db.fetchOne(Int64.self, sql: "SELECT count(*) FROM rel_books") == 1)
    }

    /// Deleting a parent cascades, sets NULL, or is refused (restrict, no action), and a
    /// refused delete leaves every row as it was.
    static func onDeleteActions(_ db: some ModelContext, _ backend: ParityBackend) throws {
        var author = RelAuthor(id: nil, name: "Pratchett")
        try db.insert(&author)
        let authorID = try #require(author.id)
        var kept = RelBook(id: nil, authorID: authorID, title: "Mort", year: 1987)
        var lent = RelBook(id: nil, authorID: authorID, title: "Guards! Guards!", year: 1989)
        try db.insert(&kept)
        try db.insert(&lent)
        var loan = RelLoan(id: nil, bookID: lent.id, reader: "Vimes")
        try db.insert(&loan)
        var review = RelReview(id: nil, bookID: try #require(kept.id), stars: 4)
        try db.insert(&review)
        var note = RelNote(id: nil, bookID: try #require(kept.id), text: "signed")
        try db.insert(&note)

        // restrict: a reviewed book cannot go; no action: nor a book with notes.
        expectRefusedDelete(on: backend) { _ = try db.delete(kept) }
        #expect(try db.delete(review))
        expectRefusedDelete(on: backend) { _ = try db.delete(kept) }
        #expect(try db.find(RelBook.self, id: try #require(kept.id)) == kept)
        #expect(try db.delete(note))

        // cascade from the author to the books, then set NULL from the books to the loan.
        #expect(try db.delete(author))
        #expect(try db.fetchOne(Int64.self, sql: "SELECT count(*) FROM rel_books") == 0)
        let loans = try db.fetchAll(RelLoan.self)
        #expect(loans == [RelLoan(id: loan.id, bookID: nil, reader: "Vimes")])
    }

    /// A delete refused by a foreign key: `.constraintForeignKey` on both backends, with
    /// SQLite's message (which says SQLITE_CONSTRAINT_TRIGGER for the keys it checks with a
    /// trigger) and PostgreSQL's SQLSTATE 23503.
    private static func expectRefusedDelete(
        on backend: ParityBackend, sourceLocation: SourceLocation = #_sourceLocation,
        _ body: () throws -> Void
    ) {
        #expect(sourceLocation: sourceLocation) {
            try body()
        } throws: { error in
            guard let error = error as? DatabaseError else { return false }
            guard error.resultCode == .constraintForeignKey else { return false }
            return backend.isSQLite
                ? error.sqlState == nil && error.message.contains("FOREIGN KEY constraint failed")
                : error.sqlState == "23503"
        }
    }

    /// Restrict refuses the delete inside a transaction too, and the transaction that throws
    /// keeps nothing of its work.
    static func refusedDeleteInATransactionKeepsNothing(_ db: some ModelContext, _ backend: ParityBackend)
        throws
    {
        var author = RelAuthor(id: nil, name: "Austen")
        try db.insert(&author)
        var book = RelBook(id: nil, authorID: try #require(author.id), title: "Emma", year: 1815)
        try db.insert(&book)
        var review = RelReview(id: nil, bookID: try #require(book.id), stars: 5)
        try db.insert(&review)
        #expect(throws: DatabaseError.self) {
            try db.transaction { tx in
                var other = RelAuthor(id: nil, name: "Brontë")
                try tx.insert(&other)
                _ = try tx.delete(book)
            }
        }
        #expect(try db.fetchOne(Int64.self, sql: "SELECT count(*) FROM rel_authors") == 1)
        #expect(try db.find(RelBook.self, id: try #require(book.id)) == book)
    }

    /// A key declared on a table that exists already changes nothing in it: no constraint, no
    /// index, a dangling key is accepted as before.
    static func existingTableIsLeftAsItIs(_ db: some ModelContext, _ backend: ParityBackend) throws {
        try db.execute(
            sql:
                """
                CREATE TABLE rel_legacy_books (id INTEGER PRIMARY KEY, "authorID" INTEGER NOT NULL, title TEXT NOT NULL)
                """)
        var legacy = RelLegacyBook(id: 1, authorID: 42, title: "Unreferenced")
        try db.insert(&legacy)
        #expect(try db.find(RelLegacyBook.self, id: 1) == legacy)
        #expect(try backend.foreignKeys(of: "rel_legacy_books", in: db) == [])
        #expect(try !backend.indexedColumns(of: "rel_legacy_books", in: db).contains("authorID"))
    }

    /// Two models referencing each other: the first use creates both tables with both keys.
    static func modelsReferencingEachOther(_ db: some ModelContext, _ backend: ParityBackend) throws {
        var team = RelTeam(id: nil, captainID: nil)
        try db.insert(&team)
        var member = RelMember(id: nil, teamID: try #require(team.id))
        try db.insert(&member)
        team.captainID = member.id
        try db.update(team)
        #expect(try backend.foreignKeys(of: "rel_teams", in: db) == ["captainID SET NULL"])
        #expect(try backend.foreignKeys(of: "rel_members", in: db) == ["teamID CASCADE"])
        var stranger = RelMember(id: nil, teamID: 777)
        expectError(.constraintForeignKey) { try db.insert(&stranger) }
        #expect(try db.delete(member))
        #expect(try db.find(RelTeam.self, id: try #require(team.id))?.captainID == nil)
    }
}
