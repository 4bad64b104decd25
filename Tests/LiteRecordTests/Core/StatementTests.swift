import LiteRecord
import Testing

@Suite("Prepared statements and the statement cache")
struct StatementTests {
    @Test func bindStepAndReadColumns() throws {
        let db = try Database(.inMemory)
        try db.withConnection { connection in
            let statement = try connection.makeStatement(sql: "SELECT ? AS first, ? AS Second, ? * 2")
            #expect(statement.sql == "SELECT ? AS first, ? AS Second, ? * 2")
            #expect(statement.parameterCount == 3)
            #expect(statement.columnCount == 3)
            #expect(statement.isReadOnly)
            let columnNames = (0..<3).map { statement.columnName(at: $0) }
            #expect(columnNames == ["first", "Second", "? * 2"])
            #expect(statement.columnIndex(named: "Second") == 1)
            #expect(statement.columnIndex(named: "SECOND") == 1)
            #expect(statement.columnIndex(named: "missing") == nil)

            try statement.bind("a", toParameter: 1)
            try statement.bind(.blob(.init([1, 2])), toParameter: 2)
            try statement.bind(21, toParameter: 3)
            #expect(try statement.step())
            #expect(try statement.value(at: 0) == .text("a"))
            #expect(try statement.value(at: 1) == .blob(.init([1, 2])))
            #expect(try statement.value(at: 2) == .integer(42))
            let row = try statement.row()
            #expect(row.columnNames == ["first", "Second", "? * 2"])
            #expect(try row.value(Int.self, named: "? * 2") == 42)
            #expect(try !statement.step())

            let error = #expect(throws: DatabaseError.self) { try statement.value(at: 3) }
            #expect(error?.resultCode == .range)
            #expect(error?.message.contains("no column at index 3") == true)
        }
    }

    @Test func bindByName() throws {
        let db = try Database(.inMemory)
        try db.withConnection { connection in
            let statement = try connection.makeStatement(sql: "SELECT :a, @b, $c, :a")
            #expect(statement.parameterCount == 3)
            try statement.bind(1, named: ":a")
            try statement.bind("two", named: "b")
            try statement.bind(3.5, named: "$c")
            #expect(try statement.step())
            #expect(try statement.row().values == [.integer(1), .text("two"), .real(3.5), .integer(1)])

            let error = #expect(throws: DatabaseError.self) { try statement.bind(1, named: "zzz") }
            #expect(error?.resultCode == .misuse)
            #expect(error?.message.contains(":zzz") == true)
        }
    }

    @Test func bindingOutOfRangeFails() throws {
        let db = try Database(.inMemory)
        try db.withConnection { connection in
            let statement = try connection.makeStatement(sql: "SELECT ?")
            let error = #expect(throws: DatabaseError.self) { try statement.bind(1, toParameter: 2) }
            #expect(error?.resultCode == .range)
            #expect(error?.sql == "SELECT ?")
        }
    }

    @Test func resetRerunsAndKeepsBindings() throws {
        let db = try Database(.inMemory)
        try db.execute(sql: "CREATE TABLE t(a)")
        try db.withConnection { connection in
            let insert = try connection.makeStatement(sql: "INSERT INTO t VALUES (?)")
            #expect(!insert.isReadOnly)
            #expect(insert.columnCount == 0)
            try insert.bind([1])
            try insert.run()
            insert.reset()
            try insert.run()  // same binding again
            insert.reset()
            try insert.bind([2])
            try insert.run()
            insert.reset()
            insert.clearBindings()
            try insert.run()
        }
        let values = try db.fetchAll(Row.self, sql: "SELECT a FROM t ORDER BY rowid").map { $0.values[0] }
        #expect(values == [.integer(1), .integer(1), .integer(2), .null])
    }

    @Test func statementBindChecksArgumentCount() throws {
        let db = try Database(.inMemory)
        try db.withConnection { connection in
            let statement = try connection.makeStatement(sql: "SELECT ?, :name")
            let error = #expect(throws: DatabaseError.self) {
                try statement.bind(StatementArguments(positional: [1, 2], named: ["name": 3]))
            }
            #expect(error?.resultCode == .misuse)
            #expect(error?.message.contains("wrong number of arguments") == true)
            try statement.bind(StatementArguments(positional: [1], named: ["name": 3]))
            #expect(try statement.step())
            #expect(try statement.row().values == [.integer(1), .integer(3)])
        }
    }

    @Test func stepErrorsCarryTheSQLAndArguments() throws {
        let db = try Database(.inMemory)
        try db.execute(sql: "CREATE TABLE t(a UNIQUE); INSERT INTO t VALUES ('taken')")
        try db.withConnection { connection in
            let statement = try connection.makeStatement(sql: "INSERT INTO t VALUES (?)")
            try statement.bind(["taken"])
            let error = #expect(throws: DatabaseError.self) { try statement.run() }
            #expect(error?.resultCode == .constraintUnique)
            #expect(error?.sql == "INSERT INTO t VALUES (?)")
            #expect(error?.arguments == ["taken"])
            // After a reset the statement runs again.
            statement.reset()
            try statement.bind(["free"])
            try statement.run()
        }
        #expect(try db.firstValue(Int.self, sql: "SELECT count(*) FROM t") == 2)
    }

    @Test func makeStatementRefusesSeveralStatements() throws {
        let db = try Database(.inMemory)
        try db.execute(sql: "CREATE TABLE t(a)")
        try db.withConnection { connection in
            let error = #expect(throws: DatabaseError.self) {
                try connection.makeStatement(sql: "INSERT INTO t VALUES (1); DROP TABLE t")
            }
            #expect(error?.resultCode == .misuse)
            #expect(error?.message.contains("more than one statement") == true)
            #expect(error?.sql == "INSERT INTO t VALUES (1); DROP TABLE t")

            // A trailing semicolon or comment is not a second statement.
            let single = try connection.makeStatement(
                sql: "SELECT count(*) FROM t;  -- comment\n /* more */ ;")
            #expect(try single.step())
            #expect(try single.value(at: 0) == .integer(0))

            let empty = #expect(throws: DatabaseError.self) {
                try connection.makeStatement(sql: " -- nothing")
            }
            #expect(empty?.resultCode == .misuse)
            #expect(empty?.message.contains("no SQL statement") == true)

            let invalid = #expect(throws: DatabaseError.self) {
                try connection.makeStatement(sql: "SELEKT 1")
            }
            #expect(invalid?.resultCode == .error)
            #expect(invalid?.message.contains("syntax error") == true)
            #expect(invalid?.sql == "SELEKT 1")
        }
        // Nothing ran.
        #expect(try db.firstValue(Int.self, sql: "SELECT count(*) FROM t") == 0)
    }

    @Test func fetchingSeveralStatementsIsMisuse() throws {
        let db = try Database(.inMemory)
        try db.execute(sql: "CREATE TABLE t(a)")
        let error = #expect(throws: DatabaseError.self) {
            try db.fetchAll(Row.self, sql: "SELECT 1; INSERT INTO t VALUES (1)")
        }
        #expect(error?.resultCode == .misuse)
        #expect(try db.firstValue(Int.self, sql: "SELECT count(*) FROM t") == 0)
    }

    @Test func repeatedStatementRunsManyTimes() throws {
        let db = try Database(.inMemory)
        try db.execute(sql: "CREATE TABLE t(id INTEGER PRIMARY KEY, v INTEGER, s TEXT)")
        try db.transaction { tx in
            for index in 0..<10_000 {
                try tx.execute(sql: "INSERT INTO t(v, s) VALUES (\(index), \("row \(index)"))")
            }
        }
        let summary = try #require(
            try db.fetchOne(Row.self, sql: "SELECT count(*), sum(v), count(DISTINCT s) FROM t"))
        #expect(summary.values == [.integer(10_000), .integer(49_995_000), .integer(10_000)])
        #expect(try db.firstValue(String.self, sql: "SELECT s FROM t WHERE v = \(9_999)") == "row 9999")
        for index in stride(from: 0, to: 10_000, by: 997) {
            #expect(try db.firstValue(Int.self, sql: "SELECT v FROM t WHERE s = \("row \(index)")") == index)
        }
    }

    @Test func nestedUseOfTheSameSQLGetsItsOwnStatement() throws {
        let db = try Database(.inMemory)
        try db.execute(sql: "CREATE TABLE t(id INTEGER PRIMARY KEY); INSERT INTO t VALUES (1), (2), (3)")
        let query: SQL = "SELECT id FROM t WHERE id >= \(1) ORDER BY id"
        var outer: [Int] = []
        var inner: [[Int]] = []
        try db.forEachRow(sql: query) { row in
            outer.append(try row.value(Int.self, at: 0))
            inner.append(try db.fetchAll(Row.self, sql: query).map { try $0.value(Int.self, at: 0) })
            #expect(try db.firstValue(Int.self, sql: query) == 1)
        }
        #expect(outer == [1, 2, 3])
        #expect(inner == Array(repeating: [1, 2, 3], count: 3))

        // Running the same statement text inside its own iteration.
        try db.execute(sql: "CREATE TABLE log(id)")
        try db.forEachRow(sql: "SELECT id FROM t ORDER BY id") { row in
            try db.execute(sql: "INSERT INTO log VALUES (\(try row.value(Int.self, at: 0)))")
            try db.forEachRow(sql: "SELECT id FROM t ORDER BY id") { _ in }
        }
        #expect(try db.firstValue(String.self, sql: "SELECT group_concat(id, ',') FROM log") == "1,2,3")
    }

    @Test func cachedStatementFollowsSchemaChanges() throws {
        let db = try Database(.inMemory)
        try db.execute(sql: "CREATE TABLE t(a); INSERT INTO t VALUES (1)")
        #expect(try db.fetchOne(Row.self, sql: "SELECT * FROM t")?.columnNames == ["a"])
        try db.execute(sql: "ALTER TABLE t ADD COLUMN b DEFAULT 'new'")
        let row = try #require(try db.fetchOne(Row.self, sql: "SELECT * FROM t"))
        #expect(row.columnNames == ["a", "b"])
        #expect(row.values == [.integer(1), .text("new")])
        try db.execute(sql: "ALTER TABLE t RENAME COLUMN a TO renamed")
        let renamed = try #require(try db.fetchOne(Row.self, sql: "SELECT * FROM t"))
        #expect(renamed.columnNames == ["renamed", "b"])
        #expect(try renamed.value(Int.self, named: "renamed") == 1)
    }

    @Test(arguments: [0, 1, 2])
    func smallCacheCapacitiesStillWork(capacity: Int) throws {
        var configuration = Configuration()
        configuration.statementCacheCapacity = capacity
        let db = try Database(.inMemory, configuration: configuration)
        try db.execute(sql: "CREATE TABLE t(a)")
        for index in 0..<50 {
            try db.execute(sql: "INSERT INTO t VALUES (\(index))")
            #expect(try db.firstValue(Int.self, sql: "SELECT count(*) FROM t") == index + 1)
            #expect(try db.firstValue(Int.self, sql: "SELECT max(a) FROM t") == index)
            #expect(try db.firstValue(Int.self, sql: "SELECT a FROM t WHERE a = \(index)") == index)
        }
    }
}
