import Foundation
import LiteRecord
import LiteRecordPostgres
import Testing

// `fetchOne()`, `first()` and `exists()` read the query's first row: a query limited to no rows
// (`limit(0)`, with or without an offset) has none, on both backends.

enum FirstRowParityChecks {
    static func limits(_ db: some ModelContext, _ backend: ParityBackend) throws {
        for word in ["b", "a", "c"] {
            var row = FirstRowWord(id: nil, word: word)
            try db.insert(&row)
        }
        // (limit, offset) → the first row's word in word order, nil for none.
        let cases: [(limit: Int, offset: Int?, first: String?)] = [
            (0, nil, nil), (0, 1, nil), (0, 5, nil), (1, nil, "a"), (1, 1, "b"), (5, 2, "c"), (5, 3, nil),
            (2, 0, "a"),
        ]
        for (limit, offset, expected) in cases {
            let label = "\(backend.name): limit(\(limit), offset: \(offset.map(String.init) ?? "nil"))"
            let query = db.query(FirstRowWord.self).order { $0.word.ascending }
                .limit(limit, offset: offset)
            #expect(try query.fetchOne()?.word == expected, "\(label) fetchOne()")
            #expect(try query.first()?.word == expected, "\(label) first()")
            #expect(try query.exists() == (expected != nil), "\(label) exists()")
            #expect(try query.fetchAll().first?.word == expected, "\(label) fetchAll()")
            let projected = try query.select(CollationNickRow.self) { [$0.word.as("nick")] }.fetchOne()
            #expect(projected?.nick == expected, "\(label) select(_:_:).fetchOne()")
        }
    }
}

/// The model of the first-row checks.
struct FirstRowWord: Model, Equatable {
    var id: Int64?
    var word: String
    static let schema = Schema<FirstRowWord>(table: "first_row_parity_words")
}
