import Foundation
import LiteRecord
import LiteRecordTestSupport
import Testing

// Interpolated SQL keeps a few values inline and binds them straight to the statement the
// connection's cache finds by the SQL's literals (SQLValues, StatementCache): every value must
// be stored as the generic path stores it, whatever their number and kinds, and the statement
// found by literals must behave as the one found by text (eviction, nested use, errors).

@Suite("SQL values bound inline", .offCooperativePool)
struct SQLValuesTests {
    private func makeTable() throws -> Database {
        let db = try Database(.inMemory)
        try db.execute(sql: "CREATE TABLE t(id INTEGER PRIMARY KEY, a, b, c, d, e, f)")
        return db
    }

    private func row(_ db: Database, id: Int) throws -> [DatabaseValue] {
        let row = try #require(
            try db.fetchOne(Row.self, sql: "SELECT a, b, c, d, e, f FROM t WHERE id = \(id)"))
        return row.values
    }

    /// One to six values, every kind the inline slots hold, and the generic overloads.
    @Test func everyCountAndKindIsStoredAsGiven() throws {
        let db = try makeTable()
        let text = "é\0x"
        let none: String? = nil
        let small: Int32 = -7
        try db.execute(sql: "INSERT INTO t(id, a) VALUES (1, \(text))")
        try db.execute(sql: "INSERT INTO t(id, a, b) VALUES (2, \(Int64.min), \(-0.5))")
        try db.execute(sql: "INSERT INTO t(id, a, b, c) VALUES (3, \(none), \(small), \(""))")
        try db.execute(sql: "INSERT INTO t(id, a, b, c, d) VALUES (4, \(1), \(2.25), \("x"), \(none))")
        try db.execute(sql: "INSERT INTO t(id, a, b, c, d, e) VALUES (5, \(1), \(2), \(3), \(4), \("five"))")
        try db.execute(
            sql:
                "INSERT INTO t(id, a, b, c, d, e, f) VALUES (6, \(1), \(Data([0, 1])), \(3), \(none), \(5.5), \(6))"
        )
        #expect(try row(db, id: 1) == [.text(text), .null, .null, .null, .null, .null])
        #expect(try row(db, id: 2) == [.integer(.min), .real(-0.5), .null, .null, .null, .null])
        #expect(try row(db, id: 3) == [.null, .integer(-7), .text(""), .null, .null, .null])
        #expect(try row(db, id: 4) == [.integer(1), .real(2.25), .text("x"), .null, .null, .null])
        #expect(
            try row(db, id: 5) == [.integer(1), .integer(2), .integer(3), .integer(4), .text("five"), .null])
        #expect(
            try row(db, id: 6) == [
                .integer(1), .blob(Data([0, 1])), .integer(3), .null, .real(5.5), .integer(6),
            ])
    }

    /// A long list goes to the array once and keeps its order.
    @Test func aLongListKeepsEveryValueInOrder() throws {
        let ids = Array(0..<5_000)
        let sql: SQL =
            "SELECT count(*), sum(value) FROM json_each(\("[1,2]")) WHERE \(1) = 1 OR value IN \(list: ids)"
        #expect(sql.arguments.positional == [.text("[1,2]"), .integer(1)] + ids.map { .integer(Int64($0)) })
        let db = try Database(.inMemory)
        let row = try #require(try db.fetchOne(Row.self, sql: sql))
        #expect(row.values == [.integer(2), .integer(3)])
    }

    /// A blob among few values moves them all out of the inline slots, in order.
    @Test func aBlobAmongFewValuesKeepsTheOrder() throws {
        let sql: SQL = "VALUES (\(1), \(Data([9])), \("z"))"
        #expect(sql.arguments.positional == [.integer(1), .blob(Data([9])), .text("z")])
        let db = try Database(.inMemory)
        let row = try #require(try db.fetchOne(Row.self, sql: sql))
        #expect(row.values == [.integer(1), .blob(Data([9])), .text("z")])
    }

    /// Appending fragments joins their values in order, inline or not.
    @Test func appendingJoinsValuesInOrder() {
        var sql: SQL = "SELECT \(1), \(2)"
        sql.append(", \(3), \("four")")
        sql.append(", \(5)")
        #expect(sql.text == "SELECT ?, ?, ?, ?, ?")
        #expect(
            sql.arguments.positional == [1, 2, 3, 4, 5].map { $0 == 4 ? .text("four") : .integer(Int64($0)) })
    }

    @Test func nanIsRefusedAndNothingIsWritten() throws {
        let db = try makeTable()
        let nan = Double.nan
        #expect(throws: ValueConversionError.self) { try db.execute(sql: "INSERT INTO t(a) VALUES (\(nan))") }
        #expect(try db.fetchOne(Int.self, sql: "SELECT count(*) FROM t") == 0)
    }

    /// The loop's statement is found by literals; an error still names the values it ran with.
    @Test func anErrorOfTheStatementCarriesItsArguments() throws {
        let db = try makeTable()
        for id in [1, 2, 1] {
            do {
                try db.execute(sql: "INSERT INTO t(id, a) VALUES (\(id), \("v\(id)"))")
            } catch let error as DatabaseError {
                #expect(id == 1)
                #expect(error.primaryResultCode == .constraint)
                #expect(error.arguments == [.integer(1), .text("v1")])
            }
        }
        #expect(try db.fetchOne(Int.self, sql: "SELECT count(*) FROM t") == 2)
    }

    /// A transaction's `tx` (a `Connection`) runs interpolated SQL in a loop as a database
    /// does: the rows changed per call, long strings (stored out of line) bound exactly, the
    /// failing statement's error naming its SQL and values, and the transaction rolled back.
    @Test func aTransactionLoopCountsBindsAndReportsAsTheDatabaseDoes() throws {
        let db = try makeTable()
        let names = (0..<40).map { "name-\($0)-" + String(repeating: "é", count: $0 % 23) }
        let counts = try db.transaction { tx in
            try names.indices.map { index in
                try tx.execute(
                    sql: "INSERT INTO t(id, a, b, c) VALUES (\(index), \(names[index]), \(index * 3), \(0.5))"
                )
            }
        }
        #expect(counts == Array(repeating: 1, count: names.count))
        let stored = try db.fetchAll(Row.self, sql: "SELECT id, a, b, c FROM t ORDER BY id").map(\.values)
        #expect(
            stored
                == names.indices.map {
                    [.integer(Int64($0)), .text(names[$0]), .integer(Int64($0 * 3)), .real(0.5)]
                })
        let updated = try db.transaction { tx in
            try tx.execute(sql: "UPDATE t SET c = \(1.5) WHERE b >= \(60)")
        }
        #expect(updated == 20)
        let created = try db.transaction { tx in try tx.execute(sql: "CREATE TABLE u(x)") }
        #expect(created == 0)

        let duplicate = names[7]
        let error = try #require(throws: DatabaseError.self) {
            try db.transaction { tx in
                for id in [100, 7] {
                    try tx.execute(
                        sql: "INSERT INTO t(id, a, b, c) VALUES (\(id), \(duplicate), \(id), \(0.5))")
                }
            }
        }
        #expect(error.primaryResultCode == .constraint)
        #expect(error.sql == "INSERT INTO t(id, a, b, c) VALUES (?, ?, ?, ?)")
        #expect(error.arguments == [.integer(7), .text(duplicate), .integer(7), .real(0.5)])
        // The row inserted before the failure was rolled back with the transaction.
        #expect(try db.fetchOne(Int.self, sql: "SELECT count(*) FROM t") == names.count)
        #expect(try db.fetchOne(Int.self, sql: "SELECT count(*) FROM t WHERE id = \(100)") == 0)
    }

    /// Wrong counts are still refused with the values given.
    @Test func aWrongCountIsRefused() throws {
        let db = try makeTable()
        let sql = SQL("INSERT INTO t(a, b) VALUES (?, ?)", arguments: [1])
        let error = try #require(throws: DatabaseError.self) { try db.execute(sql: sql) }
        #expect(error.resultCode == .misuse)
        #expect(error.arguments == [1])
    }

    /// Call sites taking turns in a cache of one or two statements: evicted statements are
    /// prepared again, and each run binds its own values.
    @Test(arguments: [1, 2])
    func callSitesTakingTurnsInASmallCache(capacity: Int) throws {
        var configuration = Configuration()
        configuration.statementCacheCapacity = capacity
        let db = try Database(.inMemory, configuration: configuration)
        try db.execute(sql: "CREATE TABLE t(a, b)")
        for index in 0..<30 {
            try db.execute(sql: "INSERT INTO t(a, b) VALUES (\(index), \("x"))")
            try db.execute(sql: "UPDATE t SET b = \("y\(index)") WHERE a = \(index)")
            #expect(try db.fetchOne(String.self, sql: "SELECT b FROM t WHERE a = \(index)") == "y\(index)")
        }
        #expect(try db.fetchOne(Int.self, sql: "SELECT count(*) FROM t") == 30)
    }

    /// The same SQL run again while its cached statement is still stepping: the nested run gets
    /// a statement of its own and leaves the outer one's rows and values alone.
    @Test func nestedRunOfTheSameSQLDoesNotClobberTheOuterOne() throws {
        let db = try Database(.inMemory)
        try db.execute(sql: "CREATE TABLE t(a)")
        for value in 1...4 { try db.execute(sql: "INSERT INTO t VALUES (\(value))") }
        var pairs: [[Int]] = []
        try db.withConnection { connection in
            try connection.forEachRow(sql: query(above: 1)) { outer in
                let a = try outer.value(Int.self, at: 0)
                let inner = try connection.fetchAll(Int.self, sql: query(above: a))
                pairs.append([a] + inner)
            }
        }
        #expect(pairs == [[2, 3, 4], [3, 4], [4]])
    }

    private func query(above minimum: Int) -> SQL {
        "SELECT a FROM t WHERE a > \(minimum) ORDER BY a"
    }

    /// Eight threads at once running the same call sites on one file database.
    @Test func threadsRunningTheSameCallSites() throws {
        let db = try Database(.temporary)
        try db.execute(sql: "CREATE TABLE t(worker, i, name)")
        let failures = Failures()
        DispatchQueue.concurrentPerform(iterations: 8) { worker in
            do {
                for index in 0..<100 {
                    try db.execute(
                        sql: "INSERT INTO t VALUES (\(worker), \(index), \("w\(worker)-\(index)"))")
                    let name = try db.fetchOne(
                        String.self, sql: "SELECT name FROM t WHERE worker = \(worker) AND i = \(index)")
                    if name != "w\(worker)-\(index)" {
                        failures.add("worker \(worker), row \(index): \(name ?? "nil")")
                    }
                }
            } catch {
                failures.add("worker \(worker): \(error)")
            }
        }
        #expect(failures.all.isEmpty)
        #expect(try db.fetchOne(Int.self, sql: "SELECT count(*) FROM t") == 800)
    }

    private final class Failures: @unchecked Sendable {
        // @unchecked Sendable: `items` is only touched under `lock`.
        private let lock = NSLock()
        private var items: [String] = []

        func add(_ failure: String) {
            lock.lock()
            items.append(failure)
            lock.unlock()
        }

        var all: [String] {
            lock.lock()
            defer { lock.unlock() }
            return items
        }
    }
}
