import Foundation
import LiteRecord
import Testing

// `literecord_sum` on SQLite: the exact sum of integers whatever the row order, also as a
// window function (rows leaving the frame are subtracted exactly), and SQLite's `sum` for the
// rest: NULL without values, a REAL once a value is not an integer, text read as a number.

@Suite struct IntegerSumTests {
    private func database(_ values: [DatabaseValue]) throws -> Database {
        let db = try Database(.inMemory)
        try db.execute(sql: "CREATE TABLE numbers (id INTEGER PRIMARY KEY, x)")
        for value in values {
            try db.execute(sql: "INSERT INTO numbers (x) VALUES (\(value))")
        }
        return db
    }

    @Test func aWindowSubtractsTheRowsLeavingItsFrame() throws {
        let db = try database([.integer(.max), .integer(-1), .integer(1), .integer(1)])
        let sums = try db.fetchAll(
            Int64.self,
            sql: """
                SELECT literecord_sum(x) OVER (ORDER BY id ROWS BETWEEN 2 PRECEDING AND CURRENT ROW)
                FROM numbers ORDER BY id
                """)
        #expect(sums == [.max, .max - 1, .max, 1])
    }

    @Test func aTotalBeyondInt64FailsAndNamesTheTotal() throws {
        let db = try database([.integer(.max), .integer(.max), .integer(-1)])
        let error = #expect(throws: DatabaseError.self) {
            try db.fetchOne(Int64.self, sql: "SELECT literecord_sum(x) FROM numbers")
        }
        #expect(
            error?.message.contains("integer overflow: the sum 18446744073709551613 does not fit Int64")
                == true)
        #expect(error?.resultCode == .error)
    }

    @Test func otherValuesSumAsSQLiteSums() throws {
        let db = try database([.integer(.max), .integer(1), .text("-2"), .null])
        #expect(try db.fetchOne(Int64.self, sql: "SELECT literecord_sum(x) FROM numbers") == .max - 1)
        #expect(
            try db.fetchAll(Int64?.self, sql: "SELECT literecord_sum(x) FROM numbers WHERE x IS NULL") == [
                nil
            ])
        try db.execute(sql: "INSERT INTO numbers (x) VALUES (\(0.5))")
        #expect(try db.fetchOne(String.self, sql: "SELECT typeof(literecord_sum(x)) FROM numbers") == "real")
        #expect(
            try db.fetchOne(Double.self, sql: "SELECT literecord_sum(x) FROM numbers") == Double(
                Int64.max - 1) + 0.5)
    }
}
