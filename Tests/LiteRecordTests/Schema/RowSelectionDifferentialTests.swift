import Foundation
import LiteRecord
import Testing

/// `rowid`, `oid` and `_rowid_` all shadowed by properties holding random, repeated values.
private struct ShadowingRecord: Model, Equatable {
    var id: Int64?
    var rowid: Int
    var oid: Int
    // swift-format-ignore: AlwaysUseLowerCamelCase
    var _rowid_: Int  // the name is the point of the test
    var score: Int
    static let schema = Schema<ShadowingRecord>(table: "shadowing_records")
}

/// A limited, offset, ordered `deleteAll`/`updateAll` changes exactly the rows that the same
/// filter, order, limit and offset pick in Swift from the decoded models.
@Suite struct RowSelectionDifferentialTests {
    @Test(arguments: 0..<4)
    func limitedChangesMatchSwift(seed: Int) throws {
        var generator = SeededGenerator(seed: 0xB0B0 + UInt64(seed))
        for _ in 0..<30 {
            let db = try Database(.inMemory)
            let count = Int.random(in: 0...12, using: &generator)
            let rows = try db.insert(
                contentsOf: (0..<count).map { _ in
                    ShadowingRecord(
                        id: nil, rowid: Int.random(in: 1...3, using: &generator),
                        oid: Int.random(in: 1...3, using: &generator),
                        _rowid_: Int.random(in: 1...3, using: &generator),
                        score: Int.random(in: 0...5, using: &generator))
                })
            let threshold = Int.random(in: 0...5, using: &generator)
            let limit = Int.random(in: 0...5, using: &generator)
            let offset = Bool.random(using: &generator) ? Int.random(in: 0...4, using: &generator) : nil
            let descending = Bool.random(using: &generator)
            // The order is total (score, then id), so SQL and Swift pick the same rows.
            var query = db.query(ShadowingRecord.self).where { $0.score >= threshold }
                .order { [descending ? $0.score.descending : $0.score.ascending, $0.id.ascending] }
                .limit(limit)
            if let offset { query = query.offset(offset) }
            let sorted = rows.filter { $0.score >= threshold }.sorted { a, b in
                a.score != b.score
                    ? (descending ? a.score > b.score : a.score < b.score) : (a.id ?? 0) < (b.id ?? 0)
            }
            let picked = Set(sorted.dropFirst(offset ?? 0).prefix(limit).compactMap(\.id))
            if Bool.random(using: &generator) {
                #expect(try query.deleteAll() == picked.count)
                let expected = rows.filter { !picked.contains($0.id ?? 0) }
                #expect(try db.query(ShadowingRecord.self).order { $0.id.ascending }.fetchAll() == expected)
            } else {
                #expect(try query.updateAll { [$0.score.set(to: 99)] } == picked.count)
                let expected = rows.map { row in
                    var row = row
                    if picked.contains(row.id ?? 0) { row.score = 99 }
                    return row
                }
                #expect(try db.query(ShadowingRecord.self).order { $0.id.ascending }.fetchAll() == expected)
            }
        }
    }
}
