import Foundation
import LiteRecord
import Testing

private struct StringNote: Model, Equatable {
    var id: Int64?
    var text: String
    var nick: String?

    static let schema = Schema<StringNote>(table: "notes")
}

@Suite struct QueryStringPredicateTests {
    private func fixture() throws -> Database {
        let db = try Database(.inMemory)
        for (text, nick) in [("abc", "a"), ("", nil), ("ABC", ""), ("x", nil)] {
            var note = StringNote(id: nil, text: text, nick: nick)
            try db.insert(&note)
        }
        return db
    }

    /// `"abc".contains("")` is false in Swift (with Foundation imported), so no row matches.
    @Test func containsEmptyTextMatchesNothingAsInSwift() throws {
        let db = try fixture()
        let all = try db.query(StringNote.self).fetchAll()
        #expect(all.filter { $0.text.contains("") }.isEmpty)
        #expect(try db.query(StringNote.self).where { $0.text.contains("") }.count() == 0)
        #expect(try db.query(StringNote.self).where { $0.text.caseInsensitiveContains("") }.count() == 0)
        #expect(try db.query(StringNote.self).where { !$0.text.contains("") }.count() == 4)
        // hasPrefix("") and hasSuffix("") hold, as in Swift.
        #expect(all.allSatisfy { $0.text.hasPrefix("") && $0.text.hasSuffix("") })
        #expect(
            try db.query(StringNote.self).where { $0.text.hasPrefix("") && $0.text.hasSuffix("") }.count()
                == 4)
    }
}
