// The README's "Relationships" section, line for line (see ReadmeCodeBlockTests).
import Foundation
import LiteRecord
import Testing

@Suite struct RelationshipsDocumentationTests {
    struct Author: Model, Equatable { var id: Int64?; var name: String }
    struct Book: Model, Equatable {
        var id: Int64?; var authorID: Int64; var title: String; var year: Int
        static let schema = Schema<Book>(table: "books")
            .foreignKey(\.authorID, references: Author.self, onDelete: .cascade)   // or .setNull, .restrict
    }

    struct Playlist: Model, Equatable { var id: Int64?; var name: String }
    struct Track: Model, Equatable { var id: Int64?; var title: String }
    struct PlaylistTrack: Model, Equatable {
        var playlistID: Int64; var trackID: Int64
        static let schema = Schema<PlaylistTrack>(primaryKey: [\.playlistID, \.trackID])
            .foreignKey(\.playlistID, references: Playlist.self)
            .foreignKey(\.trackID, references: Track.self)
    }
    struct Employee: Model, Equatable {
        var id: Int64?; var name: String; var reportsTo: Int64?
        static let schema = Schema<Employee>().foreignKey(\.reportsTo, references: Employee.self)
    }

    struct DanglingKeys: Error { var rows: Int }

    private func fill(_ db: Database) throws {
        var tolkien = Author(id: nil, name: "Tolkien")
        var herbert = Author(id: nil, name: "Herbert")
        try db.insert(&tolkien)
        try db.insert(&herbert)
        for (author, title, year) in [(tolkien, "The Hobbit", 1937), (tolkien, "Silmarillion", 1977),
                                      (herbert, "Dune", 1965)] {
            var book = Book(id: nil, authorID: author.id ?? 0, title: title, year: year)
            try db.insert(&book)
        }
        var mix = Playlist(id: nil, name: "Mix")
        try db.insert(&mix)
        var song = Track(id: nil, title: "Song")
        try db.insert(&song)
        try db.insert(PlaylistTrack(playlistID: mix.id ?? 0, trackID: song.id ?? 0))
        var boss = Employee(id: nil, name: "Boss", reportsTo: nil)
        try db.insert(&boss)
        var clerk = Employee(id: nil, name: "Clerk", reportsTo: boss.id)
        try db.insert(&clerk)
    }

    @Test func relationshipsLoadAndFilter() throws {
        let db = try Database(.inMemory)
        try fill(db)
        let shelves: [(Author, [Book])] = try db.query(Author.self)
            .where { $0.name != "Anonymous" }.order { $0.name }.limit(20)            // applies to the authors
            .including(all: Book.self) { $0.where { $0.year > 1900 }.order { $0.year } }  // and to their books
            .fetchAll()
        let credits: [(Book, Author?)] = try db.query(Book.self).including(one: Author.self).fetchAll()
        let lists: [(Playlist, [Track])] = try db.query(Playlist.self)
            .including(all: Track.self, through: PlaylistTrack.self).fetchAll()      // many-to-many
        let reports: [(Employee, [Employee])] = try db.query(Employee.self)
            .including(all: Employee.self, via: \.reportsTo).fetchAll()              // names the key
        let byTolkien: [Book] = try db.query(Book.self).where(Author.self) { $0.name == "Tolkien" }.fetchAll()
        let early: Int = try db.query(Author.self).where(any: Book.self) { $0.year < 1950 }.count()

        #expect(shelves.map(\.0.name) == ["Herbert", "Tolkien"])
        #expect(shelves.map { $0.1.map(\.title) } == [["Dune"], ["The Hobbit", "Silmarillion"]])
        #expect(credits.map { $0.1?.name } == ["Tolkien", "Tolkien", "Herbert"])
        #expect(lists.map { $0.1.map(\.title) } == [["Song"]])
        #expect(reports.map { $0.1.map(\.name) } == [["Clerk"], []])
        #expect(byTolkien.map(\.title) == ["The Hobbit", "Silmarillion"])
        #expect(early == 1)
        let sql = try createSQL(db, "books")
        #expect(sql.contains(#"FOREIGN KEY ("authorID") REFERENCES "author" ("id") ON DELETE CASCADE"#))
        var orphan = Book(id: nil, authorID: 99, title: "Orphan", year: 2000)
        let error = #expect(throws: DatabaseError.self) { try db.insert(&orphan) }
        #expect(error?.resultCode == .constraintForeignKey)
    }

    @Test func aMigrationEnforcesTheKeyOfAnExistingTable() throws {
        let db = try Database(.inMemory)
        try db.execute(
            sql: """
                CREATE TABLE author (id INTEGER PRIMARY KEY, name TEXT NOT NULL);
                CREATE TABLE books (id INTEGER PRIMARY KEY, authorID INTEGER NOT NULL, title TEXT NOT NULL,
                    year INTEGER NOT NULL);
                INSERT INTO author VALUES (1, 'Tolkien');
                INSERT INTO books VALUES (1, 1, 'The Hobbit', 1937);
                """)
        // The existing table is not enforced: a dangling key is accepted.
        var orphan = Book(id: nil, authorID: 99, title: "Orphan", year: 2000)
        try db.insert(&orphan)

        var migrator = Migrator()
        migrator.registerMigration("enforce books.authorID") { db in
            try db.execute(sql: """
                CREATE TABLE books_new (id INTEGER PRIMARY KEY, authorID INTEGER NOT NULL, title TEXT NOT NULL,
                    year INTEGER NOT NULL, FOREIGN KEY (authorID) REFERENCES author (id) ON DELETE CASCADE);
                INSERT INTO books_new SELECT id, authorID, title, year FROM books;
                DROP TABLE books;
                ALTER TABLE books_new RENAME TO books;
                CREATE INDEX books_on_authorID ON books (authorID);
                """)
            let dangling = try db.fetchAll(Row.self, sql: "PRAGMA foreign_key_check(books)")
            guard dangling.isEmpty else { throw DanglingKeys(rows: dangling.count) }   // rolls the step back
        }
        // The step refuses to enforce a key some rows break, and leaves the table as it was.
        #expect(throws: MigrationError.self) { try migrator.migrate(db) }
        #expect(try db.query(Book.self).count() == 2)
        #expect(!(try createSQL(db, "books").contains("FOREIGN KEY")))
        try db.execute(sql: "DELETE FROM books WHERE id = \(orphan.id ?? 0)")
        try migrator.migrate(db)
        #expect(try createSQL(db, "books").contains("FOREIGN KEY (authorID) REFERENCES author (id)"))
        #expect(try db.query(Book.self).count() == 1)
        var another = Book(id: nil, authorID: 99, title: "Orphan", year: 2000)
        let error = #expect(throws: DatabaseError.self) { try db.insert(&another) }
        #expect(error?.resultCode == .constraintForeignKey)
        try db.execute(sql: "DELETE FROM author")
        #expect(try db.query(Book.self).count() == 0)  // ON DELETE CASCADE
    }
}
