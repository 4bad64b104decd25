import LiteRecord
import Testing

private struct SavepointFailure: Error, Equatable {
    let code: Int
}

@Suite("Savepoints")
struct SavepointTests {
    static let hostileNames = [
        "plain", "with space", "quote\"inside", "'); ROLLBACK; --", "select", "😀", "a\"\"b", "",
    ]

    private func values(_ db: some DatabaseContext) throws -> [DatabaseValue] {
        try db.fetchAll(Row.self, sql: "SELECT a FROM t ORDER BY rowid").map { $0.values[0] }
    }

    @Test func savepointOutsideATransactionCommitsOnRelease() throws {
        try withTemporaryDirectory { directory in
            let path = directory.file("savepoint.sqlite")
            let db = try Database(path: path)
            let observer = try Database(path: path)
            try db.execute(sql: "CREATE TABLE t(a)")
            let result = try db.savepoint("work") { tx in
                #expect(tx.isInsideTransaction)
                try tx.execute(sql: "INSERT INTO t VALUES (1)")
                #expect(try observer.firstValue(Int.self, sql: "SELECT count(*) FROM t") == 0)
                return 7
            }
            #expect(result == 7)
            #expect(!db.isInsideTransaction)
            #expect(try values(observer) == [1])
        }
    }

    @Test func throwingSavepointRollsBackOnlyItsOwnWork() throws {
        let db = try Database(.inMemory)
        try db.execute(sql: "CREATE TABLE t(a)")
        try db.transaction { tx in
            try tx.execute(sql: "INSERT INTO t VALUES ('kept')")
            #expect(throws: SavepointFailure(code: 1)) {
                try tx.savepoint("inner") { inner in
                    try inner.execute(sql: "INSERT INTO t VALUES ('undone')")
                    try inner.execute(sql: "UPDATE t SET a = 'changed'")
                    throw SavepointFailure(code: 1)
                }
            }
            #expect(tx.isInsideTransaction)
            #expect(try values(tx) == ["kept"])
            try tx.execute(sql: "INSERT INTO t VALUES ('after')")
        }
        #expect(try values(db) == ["kept", "after"])
    }

    @Test func throwingSavepointOutsideATransactionLeavesNoTransactionOpen() throws {
        let db = try Database(.inMemory)
        try db.execute(sql: "CREATE TABLE t(a); INSERT INTO t VALUES (0)")
        #expect(throws: SavepointFailure(code: 2)) {
            try db.savepoint { tx in
                try tx.execute(sql: "DELETE FROM t")
                throw SavepointFailure(code: 2)
            }
        }
        #expect(!db.isInsideTransaction)
        #expect(try values(db) == [0])
    }

    @Test(arguments: hostileNames)
    func savepointNamesAreQuoted(name: String) throws {
        let db = try Database(.inMemory)
        try db.execute(sql: "CREATE TABLE t(a)")
        let statements = EventLog<String>()
        db.trace { statements.append($0) }
        try db.savepoint(name) { tx in
            try tx.execute(sql: "INSERT INTO t VALUES ('outer')")
            try? tx.savepoint(name) { inner in  // the same name, nested
                try inner.execute(sql: "INSERT INTO t VALUES ('inner')")
                throw SavepointFailure(code: 3)
            }
            try tx.savepoint(name + " 2") { inner in
                try inner.execute(sql: "INSERT INTO t VALUES ('second')")
            }
        }
        #expect(try values(db) == ["outer", "second"])
        #expect(!db.isInsideTransaction)
        let quoted = SQL.quoteIdentifier(name)
        #expect(statements.events.contains("SAVEPOINT \(quoted)"))
        #expect(statements.events.contains("ROLLBACK TRANSACTION TO SAVEPOINT \(quoted)"))
        #expect(statements.events.contains("RELEASE SAVEPOINT \(quoted)"))
        #expect(try db.firstValue(Int.self, sql: "SELECT count(*) FROM sqlite_master WHERE name = 't'") == 1)
    }

    @Test func unnamedSavepointsNest() throws {
        let db = try Database(.inMemory)
        try db.execute(sql: "CREATE TABLE t(a)")
        try db.savepoint { level1 in
            try level1.execute(sql: "INSERT INTO t VALUES (1)")
            try level1.savepoint { level2 in
                try level2.execute(sql: "INSERT INTO t VALUES (2)")
                try? level2.savepoint { level3 in
                    try level3.execute(sql: "INSERT INTO t VALUES (3)")
                    throw SavepointFailure(code: 3)
                }
                try level2.execute(sql: "INSERT INTO t VALUES (4)")
            }
            try? level1.savepoint { level2 in
                try level2.execute(sql: "INSERT INTO t VALUES (5)")
                try level2.savepoint { level3 in try level3.execute(sql: "INSERT INTO t VALUES (6)") }
                throw SavepointFailure(code: 2)
            }
        }
        #expect(try values(db) == [1, 2, 4])
    }

    @Test func savepointInsideATransactionThroughTheDatabase() throws {
        let db = try Database(.inMemory)
        try db.execute(sql: "CREATE TABLE t(a)")
        #expect(throws: SavepointFailure(code: 9)) {
            try db.transaction { _ in
                try db.savepoint("via database") { tx in try tx.execute(sql: "INSERT INTO t VALUES (1)") }
                #expect(try values(db) == [1])
                throw SavepointFailure(code: 9)
            }
        }
        #expect(try values(db) == [])
    }
}
