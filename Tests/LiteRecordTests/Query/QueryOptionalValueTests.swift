import Foundation
import LiteRecord
import Testing

// A non-optional column compared with an optional Swift value, as in `$0.notebookID == notebook.id`
// where the key of a saved model is `Int64?`: Swift's own `==` promotes the column's value to an
// optional, so `nil` matches no row with `==` and every row with `!=`. Each case below compares
// the SQL result with that Swift expression over the fetched models.

private struct Journal: Model, Equatable {
    var id: Int64?
    var title: String
    var owner: UUID?
    var openedAt: Date?
}

private struct JournalNote: Model, Equatable {
    var id: Int64?
    var notebookID: Int64
    var text: String
    var author: UUID
    var writtenAt: Date
    var bonus: Int?
}

@Suite("A column compared with an optional value")
struct QueryOptionalValueTests {
    private static func seeded() throws -> (Database, [Journal], [JournalNote]) {
        let db = try Database(.inMemory)
        let authors = [UUID(), UUID()]
        var notebooks: [Journal] = []
        for index in 0..<3 {
            var notebook = Journal(
                title: "book \(index)", owner: index == 0 ? nil : authors[index % 2],
                openedAt: index == 0 ? nil : Date(timeIntervalSince1970: 1_000 * Double(index)))
            try db.insert(&notebook)
            notebooks.append(notebook)
        }
        for index in 0..<12 {
            var note = JournalNote(
                notebookID: notebooks[index % 3].id ?? -1, text: "note \(index)", author: authors[index % 2],
                writtenAt: Date(timeIntervalSince1970: 1_000 * Double(index % 3)),
                bonus: index % 4 == 0 ? nil : index)
            try db.insert(&note)
        }
        return (db, notebooks, try db.query(JournalNote.self).fetchAll())
    }

    @Test func aKeyComparedWithASavedModelsOptionalKey() throws {
        let (db, notebooks, notes) = try Self.seeded()
        let unsaved = Journal(title: "draft")
        for notebook in notebooks + [unsaved] {
            let equal = try db.query(JournalNote.self).where { $0.notebookID == notebook.id }.fetchAll()
            #expect(equal == notes.filter { $0.notebookID == notebook.id })
            let different = try db.query(JournalNote.self).where { $0.notebookID != notebook.id }.fetchAll()
            #expect(different == notes.filter { $0.notebookID != notebook.id })
        }
        let none = try db.query(JournalNote.self).where { $0.notebookID == unsaved.id }.count()
        #expect(none == 0)
        let all = try db.query(JournalNote.self).where { $0.notebookID != unsaved.id }.count()
        #expect(all == 12)
    }

    @Test func storedValuesUUIDsAndDatesComparedWithOptionalValues() throws {
        let (db, notebooks, notes) = try Self.seeded()
        for notebook in notebooks {
            let byOwner = try db.query(JournalNote.self).where { $0.author == notebook.owner }.fetchAll()
            #expect(byOwner == notes.filter { $0.author == notebook.owner })
            let notByOwner = try db.query(JournalNote.self).where { $0.author != notebook.owner }.fetchAll()
            #expect(notByOwner == notes.filter { $0.author != notebook.owner })
            let sameDay = try db.query(JournalNote.self).where { $0.writtenAt == notebook.openedAt }
                .fetchAll()
            #expect(sameDay == notes.filter { $0.writtenAt == notebook.openedAt })
        }
    }

    @Test func optionalColumnsAndLiteralsKeepTheirMeaning() throws {
        let (db, _, notes) = try Self.seeded()
        let missing = try db.query(JournalNote.self).where { $0.bonus == nil }.fetchAll()
        #expect(missing == notes.filter { $0.bonus == nil })
        let present = try db.query(JournalNote.self).where { $0.bonus != nil }.fetchAll()
        #expect(present == notes.filter { $0.bonus != nil })
        let five: Int? = 5
        let bonusFive = try db.query(JournalNote.self).where { $0.bonus == five }.fetchAll()
        #expect(bonusFive == notes.filter { $0.bonus == five })
        let literal = try db.query(JournalNote.self).where { $0.notebookID == 2 }.fetchAll()
        #expect(literal == notes.filter { $0.notebookID == 2 })
        #expect(!literal.isEmpty)
    }
}
