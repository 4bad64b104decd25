import Foundation
import LiteRecord
import Testing

@Suite("Raw SQL scripts")
struct ScriptTests {
    /// `/work/shared/datasets/northwind/northwind.sql`, found from this file: the package root
    /// is three folders up, and `shared` sits next to it.
    static let northwindPath = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // Core
        .deletingLastPathComponent()  // LiteRecordTests
        .deletingLastPathComponent()  // Tests
        .deletingLastPathComponent()  // package root
        .appendingPathComponent("../shared/datasets/northwind/northwind.sql")
        .standardizedFileURL.path

    @Test func singleStatement() throws {
        let db = try Database(.inMemory)
        try db.execute(sql: "CREATE TABLE t(a)")
        try db.execute(sql: "INSERT INTO t VALUES (1)")
        #expect(try db.firstValue(Int.self, sql: "SELECT a FROM t") == 1)
    }

    @Test func manyStatementsWithCommentsAndTrickySemicolons() throws {
        let db = try Database(.inMemory)
        try db.execute(
            sql: """
                -- a comment first
                CREATE TABLE t(id INTEGER PRIMARY KEY, a TEXT);;
                /* a block comment; with a semicolon */
                CREATE TABLE log(message TEXT);
                CREATE TRIGGER t_insert AFTER INSERT ON t BEGIN
                    INSERT INTO log VALUES ('inserted ' || new.a);
                    INSERT INTO log VALUES ('second; statement');
                END;
                INSERT INTO t(a) VALUES ('semi;colon'), ('quote''s'), ('--not a comment');
                SELECT * FROM t;
                UPDATE t SET a = a || '!' WHERE id = 1 ;
                -- a comment last
                """)
        let values = try db.fetchAll(Row.self, sql: "SELECT a FROM t ORDER BY id").map {
            try $0.value(String.self, at: 0)
        }
        #expect(values == ["semi;colon!", "quote's", "--not a comment"])
        #expect(try db.firstValue(Int.self, sql: "SELECT count(*) FROM log") == 6)
        #expect(
            try db.firstValue(String.self, sql: "SELECT message FROM log WHERE rowid = 1")
                == "inserted semi;colon")
    }

    @Test(arguments: ["", "   ", ";", " ; ; ", "-- only a comment", "/* only */ -- comments\n"])
    func emptyScriptsDoNothing(sql: String) throws {
        let db = try Database(.inMemory)
        try db.execute(sql: SQL(sql))
        #expect(db.totalChanges == 0)
        // Arguments given to an empty script have no parameter to go to.
        let error = #expect(throws: DatabaseError.self) { try db.execute(sql: sql, arguments: [1]) }
        #expect(error?.resultCode == .misuse)
    }

    @Test func failingScriptInATransactionLeavesNothing() throws {
        let db = try Database(.inMemory)
        try db.execute(sql: "CREATE TABLE t(a UNIQUE)")
        let error = #expect(throws: DatabaseError.self) {
            try db.transaction { tx in
                try tx.execute(
                    sql:
                        "INSERT INTO t VALUES (1); CREATE TABLE other(b); INSERT INTO t VALUES (1); INSERT INTO t VALUES (2)"
                )
            }
        }
        #expect(error?.resultCode == .constraintUnique)
        #expect(error?.sql?.contains("INSERT INTO t VALUES (1)") == true)
        #expect(try db.firstValue(Int.self, sql: "SELECT count(*) FROM t") == 0)
        #expect(
            try db.firstValue(Int.self, sql: "SELECT count(*) FROM sqlite_master WHERE name = 'other'") == 0)
    }

    @Test func sqlTextWithANULCharacterIsRefusedNotCutShort() throws {
        let db = try Database(.inMemory)
        try db.execute(sql: "CREATE TABLE t(a); INSERT INTO t VALUES (1), (2)")
        // Cut at the NUL, this would be `DELETE FROM t`.
        let text = "DELETE FROM t\u{0} WHERE a = 2"
        let error = #expect(throws: DatabaseError.self) { try db.execute(sql: SQL(text)) }
        #expect(error?.resultCode == .misuse)
        #expect(error?.message.contains("NUL") == true)
        #expect(error?.sql == text)
        #expect(throws: DatabaseError.self) { try db.execute(sql: text, arguments: []) }
        #expect(throws: DatabaseError.self) {
            try db.fetchAll(Row.self, sql: SQL("SELECT * FROM t\u{0} LIMIT 0"))
        }
        #expect(throws: DatabaseError.self) { try db.execute(sql: "DELETE FROM \(identifier: "t\u{0}x")") }
        let statementError = db.withConnection { connection in
            #expect(throws: DatabaseError.self) {
                try connection.makeStatement(sql: "SELECT 1\u{0}; DROP TABLE t")
            }
        }
        #expect(statementError?.resultCode == .misuse)
        #expect(try db.firstValue(Int.self, sql: "SELECT count(*) FROM t") == 2)
    }

    @Test func sameScriptRunsAgain() throws {
        let db = try Database(.inMemory)
        try db.execute(sql: "CREATE TABLE t(a)")
        let script: SQL = "INSERT INTO t VALUES (\(1)); INSERT INTO t VALUES (\(2))"
        for _ in 0..<3 { try db.execute(sql: script) }
        #expect(try db.firstValue(Int.self, sql: "SELECT sum(a) FROM t") == 9)
    }

    @Test func northwindScriptLoads() throws {
        #expect(FileManager.default.fileExists(atPath: Self.northwindPath), "missing \(Self.northwindPath)")
        let script = try String(contentsOfFile: Self.northwindPath, encoding: .utf8)
        #expect(script.utf8.count > 800_000)

        let db = try Database(.inMemory)
        try db.execute(sql: SQL(script))
        let counts = try #require(
            try db.fetchOne(
                Row.self,
                sql: """
                    SELECT (SELECT count(*) FROM Orders), (SELECT count(*) FROM "Order Details"),
                           (SELECT count(*) FROM Customers), (SELECT count(*) FROM Products),
                           (SELECT count(*) FROM Employees)
                    """))
        #expect(counts.values == [830, 2155, 93, 77, 9])
        #expect(try db.firstValue(String.self, sql: "PRAGMA integrity_check") == "ok")

        // The data is usable: a join over the loaded tables.
        let top = try #require(
            try db.fetchOne(
                Row.self,
                sql: """
                    SELECT c.CustomerID, count(*) AS orders FROM Orders o
                    JOIN Customers c ON c.CustomerID = o.CustomerID
                    GROUP BY c.CustomerID ORDER BY orders DESC, c.CustomerID LIMIT 1
                    """))
        #expect(try top.value(Int.self, named: "orders") > 0)
    }

    @Test func northwindScriptLoadsIntoAFile() throws {
        let script = try String(contentsOfFile: Self.northwindPath, encoding: .utf8)
        try withTemporaryDirectory { directory in
            let path = directory.file("northwind.sqlite")
            do {
                // The data breaks some of its foreign keys, and its `PRAGMA foreign_keys=off`
                // is a no-op inside a transaction: turn them off when opening instead.
                var configuration = Configuration()
                configuration.foreignKeys = false
                let db = try Database(path: path, configuration: configuration)
                try db.transaction { tx in try tx.execute(sql: SQL(script)) }
            }
            let reopened = try Database(path: path)
            #expect(try reopened.firstValue(Int.self, sql: "SELECT count(*) FROM \"Order Details\"") == 2155)
            #expect(try reopened.firstValue(Int.self, sql: "SELECT count(*) FROM Orders") == 830)
        }
    }
}
