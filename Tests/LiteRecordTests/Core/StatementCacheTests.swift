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

    /// The statement used last is found by comparing bytes: SQL of the same length, or one a
    /// prefix of the other, must still get its own statement, in any order.
    @Test func lastUsedStatementIsOnlyReusedForTheSameText() throws {
        let db = try Database(.inMemory)
        let queries = ["SELECT 1", "SELECT 2", "SELECT 2", "SELECT 20", "SELECT 1", "SELECT 20", "SELECT 2"]
        for _ in 0..<3 {
            for query in queries {
                #expect(try db.firstValue(Int.self, sql: SQL(query)) == Int(query.dropFirst(7)))
            }
        }
    }
}
