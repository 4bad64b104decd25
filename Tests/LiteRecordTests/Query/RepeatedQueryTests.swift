import Foundation
import LiteRecord
import Testing

/// The same query text run again with other values reads the new values' rows, whatever ran
/// before it on the connection.
@Suite struct RepeatedQueryTests {
    /// Found while building relationships: on a file database, a query whose `where` closure is
    /// written inside `#expect(...)` and returns no rows makes the next query of the same SQL
    /// text, with another value, return no rows too; the one after is right. Not yet explained
    /// (a query built outside `#expect` and then run inside it is fine); kept as a known issue
    /// until fixed, so that the fix shows up here.
    @Test func sameSQLWithAnotherValueAfterAnEmptyResult() throws {
        try withTemporaryDirectory { directory in
            let db = try ChinookFixture.make(in: directory)
            #expect(try db.query(ChinookArtist.self).where { $0.artistId > 1_000 }.fetchAll().isEmpty)
            let first = try db.query(ChinookArtist.self).where { $0.artistId > 25 }.fetchAll()
            let second = try db.query(ChinookArtist.self).where { $0.artistId > 25 }.fetchAll()
            let expected = try db.query(ChinookArtist.self).fetchAll().filter { $0.artistId > 25 }.count
            #expect(expected > 0)
            withKnownIssue("the first repeat of the query after one inside #expect reads no rows") {
                #expect(first.count == expected)
            }
            #expect(second.count == expected)
        }
    }
}
