import Foundation
import LiteRecord
import Testing

/// The same query text run again with other values reads the new values' rows, whatever ran
/// before it on the connection (the cached statement is reset and bound again each time).
///
/// Closures are kept out of `#expect(...)` here: Swift 6.3.1 miscompiles a closure written
/// inside `#expect` within another closure (see `MacroClosureToolchainTests`), which is what
/// once made this test look like a library defect.
@Suite struct RepeatedQueryTests {
    @Test func sameSQLWithAnotherValueAfterAnEmptyResultOnTheFileFixture() throws {
        try withTemporaryDirectory { directory in
            let db = try ChinookFixture.make(in: directory)
            try checkRepeatedQueries(on: db)
        }
    }

    @Test func sameSQLWithAnotherValueAfterAnEmptyResultInMemory() throws {
        let db = try Database(.inMemory)
        try db.execute(
            sql: """
                CREATE TABLE [Artist] ([ArtistId] INTEGER NOT NULL PRIMARY KEY, [Name] NVARCHAR(120));
                WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 30)
                INSERT INTO [Artist] SELECT i, 'Artist ' || i FROM n;
                """)
        try checkRepeatedQueries(on: db)
    }

    /// Runs `artistId > bound` for bounds that alternate between empty and non-empty results
    /// (the same SQL text each time) and compares every result with the rows filtered in Swift.
    private func checkRepeatedQueries(on db: Database) throws {
        let everyArtist = try db.query(ChinookArtist.self).order { $0.artistId }.fetchAll()
        #expect(everyArtist.count == 30)
        let bounds: [Int64] = [1_000, 25, 25, 1_000, 1_000, 0, 29, 30, 1, 25]
        for bound in bounds {
            let fetched = try db.query(ChinookArtist.self).where { $0.artistId > bound }.order { $0.artistId }
                .fetchAll()
            let expected = everyArtist.filter { $0.artistId > bound }
            #expect(fetched == expected, "artistId > \(bound)")
            let counted = try db.query(ChinookArtist.self).where { $0.artistId > bound }.count()
            #expect(counted == expected.count, "count of artistId > \(bound)")
        }
        // The sequence that first showed the problem: an empty result, then the same text twice.
        let none = try db.query(ChinookArtist.self).where { $0.artistId > 1_000 }.fetchAll()
        #expect(none.isEmpty)
        let first = try db.query(ChinookArtist.self).where { $0.artistId > 25 }.fetchAll()
        let second = try db.query(ChinookArtist.self).where { $0.artistId > 25 }.fetchAll()
        #expect(first.map(\.artistId) == [26, 27, 28, 29, 30])
        #expect(second == first)
    }
}
