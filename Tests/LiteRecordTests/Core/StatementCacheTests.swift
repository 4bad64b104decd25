import LiteRecord
import Testing

@Suite struct StatementCacheTests {
    /// Swift's `==` calls the two spellings of "café" equal; SQLite compares bytes. The cache
    /// must not hand the statement of one to the other.
    @Test func canonicallyEquivalentSQLIsNotConfused() throws {
        let db = try Database(.inMemory)
        let composed = "caf\u{E9}"
        let decomposed = "cafe\u{301}"
        #expect(composed == decomposed)
        try db.execute(sql: "CREATE TABLE t(a TEXT)")
        try db.execute(sql: SQL("INSERT INTO t VALUES ('" + composed + "')"))
        let composedQuery = SQL("SELECT count(*) FROM t WHERE a = '" + composed + "'")
        let decomposedQuery = SQL("SELECT count(*) FROM t WHERE a = '" + decomposed + "'")
        #expect(try db.fetchOne(Int.self, sql: composedQuery) == 1)
        #expect(try db.fetchOne(Int.self, sql: decomposedQuery) == 0)
        #expect(try db.fetchOne(Int.self, sql: composedQuery) == 1)
    }
}
