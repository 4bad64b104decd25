import Foundation
import LiteRecord
import Testing

@Suite("SQL interpolation")
struct SQLInterpolationTests {
    static let hostileStrings: [String] = [
        "'); DROP TABLE t;--",
        "Robert'); DROP TABLE t; --",
        "'",
        "''",
        "\"",
        "\" OR 1=1 --",
        "a\u{0}b",
        "\u{0}",
        "\u{0}\u{0}trailing\u{0}",
        "😀👩‍👩‍👧‍👦 émoji e\u{301}",
        ":name",
        "@name $name ?1 ?",
        "?",
        "; ; ;",
        "/* not a comment",
        "-- not a comment\n",
        "\\' backslash",
        "",
        " ",
        "\r\n\t",
    ]

    @Test func valuesBecomeParameters() throws {
        let name = "O'Brien"
        let minimum = 100
        let ratio = 0.5
        let sql: SQL = "SELECT * FROM players WHERE name = \(name) AND score > \(minimum) OR ratio < \(ratio)"
        #expect(sql.text == "SELECT * FROM players WHERE name = ? AND score > ? OR ratio < ?")
        #expect(sql.arguments.positional == [.text("O'Brien"), .integer(100), .real(0.5)])
        #expect(sql.arguments.named.isEmpty)
        #expect(
            sql.description
                == "SELECT * FROM players WHERE name = ? AND score > ? OR ratio < ? ['O''Brien', 100, 0.5]")

        let literal: SQL = "SELECT \("it's a literal")"
        #expect(literal.text == "SELECT ?")
        #expect(literal.arguments.positional == [.text("it's a literal")])

        let plain = SQL("SELECT 1")
        #expect(plain.text == "SELECT 1")
        #expect(plain.arguments.isEmpty)
        #expect(plain.description == "SELECT 1")
    }

    @Test(arguments: hostileStrings)
    func hostileStringsAreStoredUnchanged(value: String) throws {
        let db = try Database(.inMemory)
        try db.execute(sql: "CREATE TABLE t(id INTEGER PRIMARY KEY, v TEXT)")
        try db.execute(sql: "INSERT INTO t(v) VALUES (\(value))")

        let row = try #require(try db.fetchOne(Row.self, sql: "SELECT v, length(CAST(v AS BLOB)) FROM t"))
        let stored = try row.value(String.self, at: 0)
        #expect(Array(stored.utf8) == Array(value.utf8))
        #expect(try row.value(Int.self, at: 1) == value.utf8.count)
        // Found again by the same value, and the table is intact.
        #expect(try db.firstValue(Int.self, sql: "SELECT count(*) FROM t WHERE v = \(value)") == 1)
        #expect(try db.firstValue(Int.self, sql: "SELECT count(*) FROM sqlite_master WHERE name = 't'") == 1)
        // The same through named and positional arguments.
        try db.execute(
            sql: "INSERT INTO t(v) VALUES (:v), (?)",
            arguments: StatementArguments(
                positional: [.text(value)], named: ["v": .text(value)]))
        let all = try db.fetchAll(Row.self, sql: "SELECT v FROM t ORDER BY id").map {
            try $0.value(String.self, at: 0)
        }
        #expect(all.map { Array($0.utf8) } == Array(repeating: Array(value.utf8), count: 3))
    }

    @Test func largeTextAndBlobRoundTrip() throws {
        let db = try Database(.inMemory)
        try db.execute(sql: "CREATE TABLE t(s TEXT, b BLOB)")
        let text = String(repeating: "0123456789abcdé\u{0}", count: 300_000)
        let blob = Data((0..<3_000_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        try db.execute(sql: "INSERT INTO t VALUES (\(text), \(blob))")
        let row = try #require(try db.fetchOne(Row.self, sql: "SELECT s, b FROM t"))
        #expect(try row.value(String.self, named: "s") == text)
        #expect(try row.value(Data.self, named: "b") == blob)
    }

    @Test(arguments: ["order", "my \"table\"", "with space", "select", "'quoted'", "x]; DROP TABLE keep; --"])
    func identifiersAreQuoted(name: String) throws {
        let db = try Database(.inMemory)
        try db.execute(sql: "CREATE TABLE keep(a); INSERT INTO keep VALUES (1)")
        let column = name + " column"
        try db.execute(sql: "CREATE TABLE \(identifier: name)(\(identifier: column) TEXT)")
        try db.execute(sql: "INSERT INTO \(identifier: name)(\(identifier: column)) VALUES (\("v"))")

        let row = try #require(
            try db.fetchOne(Row.self, sql: "SELECT \(identifier: column) FROM \(identifier: name)"))
        #expect(row.columnNames == [column])
        #expect(try row.value(String.self, named: column) == "v")
        #expect(
            try db.firstValue(
                String.self, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name = \(name)")
                == name)
        #expect(try db.firstValue(Int.self, sql: "SELECT count(*) FROM keep") == 1)
    }

    @Test func identifierQuotingText() {
        let sql: SQL = "SELECT * FROM \(identifier: "my \"table\"") WHERE \(identifier: "order") = \(1)"
        #expect(sql.text == #"SELECT * FROM "my ""table""" WHERE "order" = ?"#)
        #expect(sql.arguments.positional == [.integer(1)])
        #expect(SQL.quoteIdentifier("a\"\"b") == #""a""""b""#)
    }

    @Test func listsBindEachValue() throws {
        let db = try Database(.inMemory)
        try db.execute(sql: "CREATE TABLE t(id INTEGER PRIMARY KEY, name TEXT)")
        for name in ["a", "b", "c", "d", "e"] { try db.execute(sql: "INSERT INTO t(name) VALUES (\(name))") }

        let ids = [1, 3, 5]
        let sql: SQL = "SELECT name FROM t WHERE id IN \(list: ids) ORDER BY id"
        #expect(sql.text == "SELECT name FROM t WHERE id IN (?,?,?) ORDER BY id")
        #expect(sql.arguments.positional == [.integer(1), .integer(3), .integer(5)])
        #expect(try names(db, sql) == ["a", "c", "e"])
        #expect(
            try names(db, "SELECT name FROM t WHERE name IN \(list: ["b", "'); DROP TABLE t;--"])") == ["b"])
        #expect(try names(db, "SELECT name FROM t WHERE id IN \(list: [2])") == ["b"])
    }

    @Test func emptyListsMatchLikeAnEmptySwiftArray() throws {
        let db = try Database(.inMemory)
        try db.execute(
            sql: "CREATE TABLE t(id INTEGER PRIMARY KEY, name TEXT); INSERT INTO t(name) VALUES ('a'), ('b')")
        let none: [Int] = []
        #expect(try names(db, "SELECT name FROM t WHERE id IN \(list: none) ORDER BY id") == [])
        // `!none.contains(id)` is true for every row, so NOT IN keeps every row.
        #expect(try names(db, "SELECT name FROM t WHERE id NOT IN \(list: none) ORDER BY id") == ["a", "b"])
        let sql: SQL = "SELECT name FROM t WHERE id IN \(list: none)"
        #expect(sql.arguments.isEmpty)
    }

    @Test func fragmentsNestWithTheirArguments() throws {
        let db = try Database(.inMemory)
        try db.execute(
            sql:
                "CREATE TABLE t(name TEXT, score INT); INSERT INTO t VALUES ('a', 5), ('b', 15), ('c', 25), ('x', 30)"
        )
        let condition: SQL = "score > \(10)"
        let ordering: SQL = "ORDER BY \(identifier: "score") DESC"
        let sql: SQL = "SELECT name FROM t WHERE \(condition) AND name <> \("x") \(ordering)"
        #expect(sql.text == #"SELECT name FROM t WHERE score > ? AND name <> ? ORDER BY "score" DESC"#)
        #expect(sql.arguments.positional == [.integer(10), .text("x")])
        #expect(try names(db, sql) == ["c", "b"])

        var appended: SQL = "SELECT name FROM t WHERE score < \(20)"
        appended.append(" AND name = \("b")")
        #expect(appended.text == "SELECT name FROM t WHERE score < ? AND name = ?")
        #expect(try names(db, appended) == ["b"])

        let named = SQL("score = :score", arguments: ["score": 25])
        let withNamed: SQL = "SELECT name FROM t WHERE name <> \("zz") AND \(named)"
        #expect(withNamed.arguments.positional == [.text("zz")])
        #expect(withNamed.arguments.named == ["score": .integer(25)])
        #expect(try names(db, withNamed) == ["c"])
    }

    @Test func optionalsBindNullOrTheirValue() throws {
        let db = try Database(.inMemory)
        try db.execute(sql: "CREATE TABLE t(id INTEGER PRIMARY KEY, v)")
        let missing: Int? = nil
        let present: String? = "here"
        try db.execute(sql: "INSERT INTO t(id, v) VALUES (1, \(missing)), (2, \(present))")
        let rows = try db.fetchAll(Row.self, sql: "SELECT typeof(v), v FROM t ORDER BY id")
        #expect(rows.map(\.values) == [[.text("null"), .null], [.text("text"), .text("here")]])
        // `= NULL` matches nothing, as in SQL.
        #expect(try db.firstValue(Int.self, sql: "SELECT count(*) FROM t WHERE v = \(missing)") == 0)
    }

    @Test func unrepresentableIntegerFailsWithoutWriting() throws {
        let db = try Database(.inMemory)
        try db.execute(sql: "CREATE TABLE t(v INTEGER)")
        let tooBig = UInt64(Int64.max) + 1
        let error = #expect(throws: ValueConversionError.self) {
            try db.execute(sql: "INSERT INTO t VALUES (\(1)); INSERT INTO t VALUES (\(tooBig))")
        }
        #expect(error?.swiftType == "UInt64")
        #expect(error?.description.contains("9223372036854775808") == true)
        #expect(try db.firstValue(Int.self, sql: "SELECT count(*) FROM t") == 0)

        #expect(throws: ValueConversionError.self) {
            try db.fetchAll(Row.self, sql: "SELECT * FROM t WHERE v = \(tooBig)")
        }
        // In range is fine.
        try db.execute(sql: "INSERT INTO t VALUES (\(UInt64(Int64.max)))")
        #expect(try db.firstValue(UInt64.self, sql: "SELECT v FROM t") == UInt64(Int64.max))
    }

    private func names(_ db: Database, _ sql: SQL) throws -> [String] {
        try db.fetchAll(Row.self, sql: sql).map { try $0.value(String.self, at: 0) }
    }
}
