import Foundation
import LiteRecord
import Testing

@Suite("Rows and database values")
struct RowTests {
    @Test func typedAccessByIndexAndName() throws {
        let db = try Database(.inMemory)
        let row = try #require(
            try db.fetchOne(
                Row.self,
                sql: "SELECT 42 AS score, 'Alice' AS name, 2.5 AS ratio, x'0102' AS bytes, NULL AS empty"))
        #expect(row.count == 5)
        #expect(row.columnNames == ["score", "name", "ratio", "bytes", "empty"])
        #expect(try row.value(Int.self, at: 0) == 42)
        #expect(try row.value(String.self, at: 1) == "Alice")
        #expect(try row.value(Double.self, at: 2) == 2.5)
        #expect(try row.value(Data.self, at: 3) == Data([1, 2]))
        #expect(try row.value(Int?.self, at: 4) == nil)
        let name: String = try row.value(named: "name")
        let score: Int64 = try row.value(named: "score")
        #expect(name == "Alice" && score == 42)
        #expect(try row.value(named: "ratio") == .real(2.5))
        #expect(try row.value(at: 4) == .null)
        #expect(row.values == [.integer(42), .text("Alice"), .real(2.5), .blob(Data([1, 2])), .null])
    }

    @Test func columnNamesFallBackToCaseInsensitiveMatch() throws {
        let db = try Database(.inMemory)
        let row = try #require(
            try db.fetchOne(Row.self, sql: "SELECT 1 AS PlayerName, 2 AS a, 3 AS A, 4 AS a"))
        #expect(try row.value(Int.self, named: "PlayerName") == 1)
        #expect(try row.value(Int.self, named: "playername") == 1)
        #expect(try row.value(Int.self, named: "PLAYERNAME") == 1)
        // An exact match wins over a case-insensitive one; among equals, the first column wins.
        #expect(try row.value(Int.self, named: "A") == 3)
        #expect(try row.value(Int.self, named: "a") == 2)
    }

    @Test func missingColumnNamesTheColumnAndTheAvailableOnes() throws {
        let db = try Database(.inMemory)
        let row = try #require(try db.fetchOne(Row.self, sql: "SELECT 1 AS id, 'x' AS name"))
        let error = #expect(throws: RowAccessError.self) { try row.value(Int.self, named: "score") }
        #expect(error?.column == "score")
        #expect(error?.availableColumns == ["id", "name"])
        #expect(error?.description == "no column score in row; columns are: id, name")

        let indexError = #expect(throws: RowAccessError.self) { try row.value(at: 2) }
        #expect(indexError?.column == "#2")
        #expect(indexError?.availableColumns == ["id", "name"])
        #expect(throws: RowAccessError.self) { try row.value(String.self, at: -1) }
    }

    @Test func textWithNULCharactersSurvives() throws {
        let db = try Database(.inMemory)
        try db.execute(sql: "CREATE TABLE t(v TEXT)")
        let value = "before\u{0}after\u{0}"
        try db.execute(sql: "INSERT INTO t VALUES (\(value))")
        let row = try #require(
            try db.fetchOne(Row.self, sql: "SELECT v, length(CAST(v AS BLOB)), typeof(v) FROM t"))
        #expect(try row.value(String.self, at: 0) == value)
        #expect(try row.value(Int.self, at: 1) == 13)
        #expect(try row.value(String.self, at: 2) == "text")
    }

    @Test func invalidUTF8TextIsAnErrorAsStringAndReadableAsData() throws {
        let db = try Database(.inMemory)
        try db.execute(sql: "CREATE TABLE t(v TEXT); INSERT INTO t VALUES (CAST(x'ff00fe' AS TEXT))")
        #expect(try db.firstValue(String.self, sql: "SELECT typeof(v) FROM t") == "text")

        let error = #expect(throws: ValueConversionError.self) {
            try db.fetchAll(Row.self, sql: "SELECT v FROM t")
        }
        #expect(error?.swiftType == "String")
        #expect(error?.value == .blob(Data([0xFF, 0x00, 0xFE])))
        #expect(error?.description.contains("UTF-8") == true)
        #expect(throws: ValueConversionError.self) { try db.forEachRow(sql: "SELECT 1, v FROM t") { _ in } }

        #expect(
            try db.firstValue(Data.self, sql: "SELECT CAST(v AS BLOB) FROM t") == Data([0xFF, 0x00, 0xFE]))
        // The bad value does not poison the statement cache or the connection.
        #expect(try db.firstValue(Int.self, sql: "SELECT count(*) FROM t") == 1)
    }

    @Test func emptyTextAndEmptyBlobAreNotNull() throws {
        let db = try Database(.inMemory)
        try db.execute(sql: "CREATE TABLE t(s TEXT, b BLOB)")
        try db.execute(sql: "INSERT INTO t VALUES (\(""), \(Data()))")
        let row = try #require(
            try db.fetchOne(Row.self, sql: "SELECT s, b, typeof(s), typeof(b), s IS NULL, b IS NULL FROM t"))
        #expect(
            row.values == [.text(""), .blob(Data()), .text("text"), .text("blob"), .integer(0), .integer(0)])
        #expect(try row.value(String.self, at: 0) == "")
        #expect(try row.value(Data.self, at: 1) == Data())
        #expect(try row.value(String?.self, at: 0) == "")
    }

    @Test(arguments: [Int64.min, Int64.min + 1, -1, 0, 1, Int64(Int32.max) + 1, Int64.max])
    func integerExtremesRoundTrip(value: Int64) throws {
        let db = try Database(.inMemory)
        try db.execute(sql: "CREATE TABLE t(v INTEGER)")
        try db.execute(sql: "INSERT INTO t VALUES (\(value))")
        #expect(try db.firstValue(Int64.self, sql: "SELECT v FROM t") == value)
        #expect(try db.firstValue(String.self, sql: "SELECT typeof(v) FROM t") == "integer")
        #expect(try db.firstValue(Int.self, sql: "SELECT count(*) FROM t WHERE v = \(value)") == 1)
    }

    @Test(arguments: [
        Double.greatestFiniteMagnitude, -Double.greatestFiniteMagnitude, Double.leastNonzeroMagnitude,
        Double.leastNormalMagnitude, Double.pi, -1e-300, 0.1, Double.infinity, -Double.infinity,
    ])
    func doubleExtremesRoundTrip(value: Double) throws {
        let db = try Database(.inMemory)
        try db.execute(sql: "CREATE TABLE t(v REAL)")
        try db.execute(sql: "INSERT INTO t VALUES (\(value))")
        let stored = try #require(try db.firstValue(Double.self, sql: "SELECT v FROM t"))
        #expect(stored.bitPattern == value.bitPattern)
        #expect(try db.firstValue(String.self, sql: "SELECT typeof(v) FROM t") == "real")
    }

    @Test func integersOutOfRangeForTheTypeFail() throws {
        let db = try Database(.inMemory)
        let row = try #require(try db.fetchOne(Row.self, sql: "SELECT 300, -1, 3.5, 3.0, 'text', NULL"))
        let error = #expect(throws: ValueConversionError.self) { try row.value(Int8.self, at: 0) }
        #expect(error?.value == .integer(300))
        #expect(error?.swiftType == "Int8")
        #expect(error?.description.contains("300") == true)
        #expect(try row.value(Int16.self, at: 0) == 300)
        #expect(throws: ValueConversionError.self) { try row.value(UInt8.self, at: 0) }
        #expect(throws: ValueConversionError.self) { try row.value(UInt.self, at: 1) }
        #expect(try row.value(Int.self, at: 1) == -1)
        #expect(throws: ValueConversionError.self) { try row.value(Int.self, at: 2) }
        #expect(try row.value(Int.self, at: 3) == 3)
        #expect(throws: ValueConversionError.self) { try row.value(Int.self, at: 4) }
        let nullError = #expect(throws: ValueConversionError.self) { try row.value(Int.self, at: 5) }
        #expect(nullError?.value == .null)
        #expect(try row.value(Int?.self, at: 5) == nil)
        // No silent conversion between text and numbers either way.
        #expect(throws: ValueConversionError.self) { try row.value(String.self, at: 0) }
        #expect(throws: ValueConversionError.self) { try row.value(Double.self, at: 4) }
    }

    @Test func boolAcceptsOnlyZeroAndOne() throws {
        let db = try Database(.inMemory)
        try db.execute(sql: "CREATE TABLE t(b)")
        try db.execute(sql: "INSERT INTO t VALUES (\(true)), (\(false))")
        #expect(try db.fetchAll(Row.self, sql: "SELECT b FROM t ORDER BY rowid").map(\.values) == [[1], [0]])

        let row = try #require(try db.fetchOne(Row.self, sql: "SELECT 0, 1, 2, -1, '1', 1.0, NULL"))
        #expect(try row.value(Bool.self, at: 0) == false)
        #expect(try row.value(Bool.self, at: 1) == true)
        for index in 2...6 {
            let error = #expect(throws: ValueConversionError.self) { try row.value(Bool.self, at: index) }
            #expect(error?.swiftType == "Bool")
        }
        #expect(try row.value(Bool?.self, at: 6) == nil)
    }

    @Test func rowsAreValues() throws {
        let db = try Database(.inMemory)
        let fetched = try #require(try db.fetchOne(Row.self, sql: "SELECT 1 AS a, 'it''s' AS b"))
        let built = Row(["a": 1, "b": "it's"])
        #expect(fetched == built)
        #expect(fetched.hashValue == built.hashValue)
        #expect(fetched != Row(["a": 1, "c": "it's"]))
        #expect(fetched.description == "[a: 1, b: 'it''s']")
        #expect(try db.fetchOne(Row.self, sql: "SELECT 1 WHERE 0") == nil)
        #expect(try db.fetchAll(Row.self, sql: "SELECT 1 WHERE 0").isEmpty)
    }

    @Test func databaseValueDescriptions() {
        #expect(DatabaseValue.null.description == "NULL")
        #expect(DatabaseValue.integer(-5).description == "-5")
        #expect(DatabaseValue.text("O'Brien").description == "'O''Brien'")
        #expect(DatabaseValue.blob(Data([0x00, 0xAB])).description == "x'00ab'")
        #expect(DatabaseValue.text("O'Brien").storageClassName == "TEXT")
        #expect(DatabaseValue.null.isNull && !DatabaseValue.text("").isNull)
    }
}
