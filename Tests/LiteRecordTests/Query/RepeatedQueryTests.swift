import Foundation
import LiteRecord
import Testing

/// The same query text run again with other values reads the new values' rows, whatever ran
/// before it on the connection.
@Suite struct RepeatedQueryTests {
    @Test func sameSQLWithAnotherValueAfterAnEmptyResult() throws {
        try withTemporaryDirectory { directory in
            let db = try ChinookFixture.make(in: directory)
            #expect(try db.query(ChinookArtist.self).where { $0.artistId > 1_000 }.fetchAll().isEmpty)
            let first = try db.query(ChinookArtist.self).where { $0.artistId > 25 }.fetchAll()
            let second = try db.query(ChinookArtist.self).where { $0.artistId > 25 }.fetchAll()
            let expected = try db.query(ChinookArtist.self).fetchAll().filter { $0.artistId > 25 }.count
            #expect(expected > 0)
            #expect(first.count == expected)
            #expect(second.count == expected)
        }
    }
}
