import Foundation
import LiteRecord
import LiteRecordTestSupport
import Testing

// The text of interpolated SQL whose interpolations are all bound values is built once per
// place in the code and reused (SQLTextMemo): it must be exactly the text the pieces spell, on
// every call, from any thread, and fall back to building the text whenever an interpolation
// is not a bound value or the SQL is too long to memoize.

@Suite("SQL text memo")
struct SQLTextMemoTests {
    private func insert(_ name: String, _ score: Int, _ ratio: Double?) -> SQL {
        "INSERT INTO items(name, score, ratio) VALUES (\(name), \(score), \(ratio))"
    }

    @Test func aLoopGetsTheSameTextAndItsOwnValues() throws {
        for index in 0..<100 {
            let sql = insert("n\(index)", index, index.isMultiple(of: 2) ? nil : Double(index))
            #expect(sql.text == "INSERT INTO items(name, score, ratio) VALUES (?, ?, ?)")
            let expected: [DatabaseValue] = [
                .text("n\(index)"), .integer(Int64(index)),
                index.isMultiple(of: 2) ? .null : .real(Double(index)),
            ]
            #expect(sql.arguments.positional == expected)
        }
    }

    @Test func twoPlacesWithTheSameLiteralsButOtherValuesAgree() {
        let first: SQL = "SELECT \(1) + \(2)"
        let second: SQL = "SELECT \("a") + \("b")"
        let third: SQL = "SELECT \(1) + \(2) + \(3)"
        #expect(first.text == "SELECT ? + ?")
        #expect(second.text == "SELECT ? + ?")
        #expect(third.text == "SELECT ? + ? + ?")
    }

    @Test func adjacentInterpolationsAndEmptyLiterals() {
        let sql: SQL = "\(1)\(2)x\(3)"
        #expect(sql.text == "??x?")
        #expect(sql.arguments.positional == [.integer(1), .integer(2), .integer(3)])
        let empty: SQL = "\(5)"
        #expect(empty.text == "?")
    }

    /// More pieces than are kept inline: the text is built as it goes, exactly.
    @Test func longSQLIsBuiltAsItGoes() throws {
        let sql: SQL = """
            SELECT \(1), \(2), \(3), \(4), \(5), \(6), \(7), \(8), \(9), \(10), \(11), \(12) WHERE \(13) = \(13)
            """
        #expect(sql.text == "SELECT ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ? WHERE ? = ?")
        #expect(sql.arguments.positional == (1...13).map { .integer(Int64($0)) } + [.integer(13)])
        let db = try Database(.inMemory)
        let row = try #require(try db.fetchOne(Row.self, sql: sql))
        #expect(try row.value(Int.self, at: 11) == 12)
    }

    /// An identifier, a fragment or a list after values: the text holds them in place.
    @Test func otherInterpolationsAfterValuesKeepTheirPlace() {
        let table = "my \"table\""
        let fragment: SQL = "b = \(7)"
        let sql: SQL =
            "SELECT \(1) FROM \(identifier: table) WHERE a = \(2) AND \(fragment) AND c IN \(list: [3, 4]) LIMIT \(5)"
        #expect(sql.text == "SELECT ? FROM \"my \"\"table\"\"\" WHERE a = ? AND b = ? AND c IN (?,?) LIMIT ?")
        #expect(sql.arguments.positional == [1, 2, 7, 3, 4, 5].map { .integer(Int64($0)) })
    }

    @Test func nonASCIILiteralsAreExact() {
        let sql: SQL = "SELECT 'é😀', \(1) AS \"ü\""
        #expect(sql.text == "SELECT 'é😀', ? AS \"ü\"")
    }

    /// A NUL in a literal stays in the text, so it is refused as before, not cut short.
    @Test func aNULInALiteralIsStillRefused() throws {
        let db = try Database(.inMemory)
        try db.execute(sql: "CREATE TABLE t (x)")
        try db.execute(sql: "INSERT INTO t VALUES (1)")
        let sql: SQL = "DELETE FROM t\0 WHERE x = \(2)"
        #expect(sql.text.utf8.count == "DELETE FROM t\0 WHERE x = ?".utf8.count)
        let error = try #require(throws: DatabaseError.self) { try db.execute(sql: sql) }
        #expect(error.resultCode == .misuse)
        #expect(try db.fetchOne(Int.self, sql: "SELECT count(*) FROM t") == 1)
    }

    @Test func threadsBuildingSQLAtOnceGetTheirOwnText() async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            for worker in 0..<8 {
                group.addTask {
                    for index in 0..<500 {
                        let odd: SQL = "SELECT \(worker) AS w, \(index) AS i"
                        let even: SQL = "UPDATE t SET a = \(index) WHERE b = \(worker) AND c = \(index)"
                        guard odd.text == "SELECT ? AS w, ? AS i",
                            even.text == "UPDATE t SET a = ? WHERE b = ? AND c = ?",
                            odd.arguments.positional == [.integer(Int64(worker)), .integer(Int64(index))]
                        else { throw MemoMismatch(worker: worker, index: index) }
                    }
                }
            }
            try await group.waitForAll()
        }
    }

    private struct MemoMismatch: Error {
        let worker: Int
        let index: Int
    }
}
