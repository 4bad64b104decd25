import LiteRecord
import Testing

@Test func opensInMemory() throws {
    let db = try Database(.inMemory)
    try db.execute(sql: "CREATE TABLE t(a); INSERT INTO t VALUES (1)")
    #expect(try db.fetchOne(Row.self, sql: "SELECT a FROM t")?.value(Int.self, at: 0) == 1)
}
