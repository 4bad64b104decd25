import Foundation
import LiteRecord
import Testing

// hasPrefix, hasSuffix and contains give Swift's answer (characters, not bytes) on every path
// that runs a condition: fetch and count (GraphemeParityChecks), relations' conditions, updates
// and deletes, and observation, whose file connections and readers register the functions too.

private struct GraphemeShelf: Model, Equatable {
    var id: Int64?
    var label: String
    static let schema = Schema<GraphemeShelf>(table: "grapheme_shelves")
}

private struct GraphemeItem: Model, Equatable {
    var id: Int64?
    var shelfID: Int64
    var title: String
    var note: String?
    static let schema = Schema<GraphemeItem>(table: "grapheme_items")
        .foreignKey(\.shelfID, references: GraphemeShelf.self, onDelete: .cascade)
}

@Suite struct GraphemePredicatePathTests {
    /// A shelf "👍" with a title "👍🏽" (whose bytes start with "👍", whose character does not),
    /// and a shelf "e\u{301}" (é, decomposed) with a title "e\u{301}x".
    private func shelves(_ db: Database) throws -> (thumb: GraphemeShelf, accent: GraphemeShelf) {
        var thumb = GraphemeShelf(id: nil, label: "\u{1F44D}\u{1F3FD}")
        var accent = GraphemeShelf(id: nil, label: "e\u{301}")
        try db.insert(&thumb)
        try db.insert(&accent)
        var items = [
            GraphemeItem(
                id: nil, shelfID: thumb.id ?? 0, title: "\u{1F44D}\u{1F3FD}", note: "\u{1F44D}\u{1F3FD}"),
            GraphemeItem(id: nil, shelfID: accent.id ?? 0, title: "e\u{301}x", note: nil),
        ]
        for index in items.indices { try db.insert(&items[index]) }
        return (thumb, accent)
    }

    @Test func relationsConditionsFollowCharacters() throws {
        let db = try Database(.inMemory)
        let (thumb, accent) = try shelves(db)
        #expect(!"\u{1F44D}\u{1F3FD}".hasPrefix("\u{1F44D}") && !"e\u{301}x".hasPrefix("e"))
        let byThumb = try db.query(GraphemeItem.self).where(GraphemeShelf.self) {
            $0.label.hasPrefix("\u{1F44D}")
        }
        #expect(try byThumb.count() == 0)
        let thumbs = try db.query(GraphemeItem.self).where(GraphemeShelf.self) {
            $0.label.hasPrefix("\u{1F44D}\u{1F3FD}")
        }
        #expect(try thumbs.fetchAll().map(\.shelfID) == [thumb.id ?? -1])
        #expect(
            try db.query(GraphemeShelf.self).where(any: GraphemeItem.self) { $0.title.hasPrefix("e") }.count()
                == 0)
        #expect(
            try db.query(GraphemeShelf.self).where(any: GraphemeItem.self) { $0.title.hasSuffix("x") }
                .fetchAll()
                == [accent])
        #expect(
            try db.query(GraphemeShelf.self).where(any: GraphemeItem.self) { $0.note.contains("\u{1F44D}") }
                .count()
                == 0)
    }

    @Test func updatesAndDeletesSelectByCharacters() throws {
        let db = try Database(.inMemory)
        _ = try shelves(db)
        #expect(try db.query(GraphemeItem.self).where { $0.title.contains("e") }.deleteAll() == 0)
        #expect(try db.query(GraphemeItem.self).where { $0.note.hasSuffix("\u{1F3FD}") }.deleteAll() == 0)
        #expect(try db.query(GraphemeItem.self).where { $0.title.hasSuffix("\u{301}x") }.deleteAll() == 0)
        #expect(try db.query(GraphemeItem.self).where { $0.title.hasPrefix("e\u{301}") }.deleteAll() == 1)
        #expect(try db.query(GraphemeItem.self).count() == 1)
    }

    @Test func observationSelectsByCharacters() async throws {
        try await withTemporaryDirectory { dir in
            let db = try Database(path: dir.file("graphemes.sqlite"))
            let (thumb, _) = try shelves(db)
            let query = db.query(GraphemeItem.self).where { $0.title.hasPrefix("\u{1F44D}") }
            var values = db.observe(query).makeAsyncIterator()
            #expect(try await values.next() == [])
            var plain = GraphemeItem(id: nil, shelfID: thumb.id ?? 0, title: "\u{1F44D}!", note: nil)
            try await db.insert(&plain)
            #expect(try await values.next()?.map(\.title) == ["\u{1F44D}!"])
        }
    }
}
