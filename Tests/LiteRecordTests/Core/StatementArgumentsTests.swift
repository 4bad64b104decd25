import LiteRecord
import Testing

@Suite("Positional and named arguments")
struct StatementArgumentsTests {
    private func makeDatabase() throws -> Database {
        let db = try Database(.inMemory)
        try db.execute(sql: "CREATE TABLE t(a, b)")
        return db
    }

    private func rows(_ db: Database) throws -> [[DatabaseValue]] {
        try db.fetchAll(Row.self, sql: "SELECT a, b FROM t ORDER BY rowid").map(\.values)
    }

    @Test func positionalArguments() throws {
        let db = try makeDatabase()
        try db.execute(sql: "INSERT INTO t(a, b) VALUES (?, ?)", arguments: [1, "two"])
        try db.execute(sql: "INSERT INTO t(a, b) VALUES (?, ?)", arguments: [3.5, nil])
        #expect(try rows(db) == [[.integer(1), .text("two")], [.real(3.5), .null]])

        let found = try db.fetchAll(
            Row.self, sql: "SELECT b FROM t WHERE a = ? OR a = ?", arguments: [1, 99])
        #expect(found.map(\.values) == [[.text("two")]])
    }

    @Test(arguments: [":", "@", "$"])
    func namedArguments(prefix: String) throws {
        let db = try makeDatabase()
        try db.execute(
            sql: "INSERT INTO t(a, b) VALUES (\(prefix)a, \(prefix)b)", arguments: ["a": 1, "b": "x"])
        try db.execute(
            sql: "INSERT INTO t(a, b) VALUES (\(prefix)b, \(prefix)a)", arguments: ["a": 2, "b": "y"])
        #expect(try rows(db) == [[.integer(1), .text("x")], [.text("y"), .integer(2)]])

        let found = try db.fetchAll(
            Row.self, sql: "SELECT a FROM t WHERE b = \(prefix)wanted OR a = \(prefix)wanted",
            arguments: ["wanted": "x"])
        #expect(found.map(\.values) == [[.integer(1)]])
    }

    /// A statement learns at prepare time which of its parameters are named: positional values
    /// for `:a`, `@a` or `$a` are refused, not bound by position, while `?1` stays positional.
    @Test(arguments: [":", "@", "$"])
    func positionalValuesForNamedParametersAreRefusedAndWriteNothing(prefix: String) throws {
        let db = try makeDatabase()
        // Twice: the first run prepares the statement, the second reuses it from the cache.
        for _ in 0..<2 {
            let error = #expect(throws: DatabaseError.self) {
                try db.execute(sql: "INSERT INTO t(a, b) VALUES (\(prefix)a, 1)", arguments: [7])
            }
            #expect(
                error?.message.contains("missing value for named parameter :a") == true,
                "\(String(describing: error))")
        }
        #expect(try rows(db).isEmpty)
        try db.execute(sql: "INSERT INTO t(a, b) VALUES (?1, ?1)", arguments: [7])
        #expect(try rows(db) == [[.integer(7), .integer(7)]])
    }

    @Test func numberedPositionalParametersTakeValuesByNumber() throws {
        let db = try makeDatabase()
        let row = try db.fetchAll(Row.self, sql: "SELECT ?2, ?1, ?2", arguments: ["first", "second"])
        #expect(row.map(\.values) == [[.text("second"), .text("first"), .text("second")]])
    }

    @Test func positionalAndNamedTogether() throws {
        let db = try makeDatabase()
        let arguments = StatementArguments(positional: [10], named: ["label": "ten"])
        try db.execute(sql: "INSERT INTO t(a, b) VALUES (?, :label)", arguments: arguments)
        #expect(try rows(db) == [[.integer(10), .text("ten")]])
    }

    @Test func tooManyPositionalValuesIsMisuseAndWritesNothing() throws {
        let db = try makeDatabase()
        // Twice: the first run prepares the statement, the second reuses it from the cache.
        for _ in 0..<2 {
            let error = #expect(throws: DatabaseError.self) {
                try db.execute(sql: "INSERT INTO t(a, b) VALUES (?, ?)", arguments: [1, 2, 3])
            }
            #expect(error?.resultCode == .misuse)
            #expect(error?.message.contains("wrong number of arguments") == true)
            #expect(error?.sql == "INSERT INTO t(a, b) VALUES (?, ?)")
            #expect(try rows(db) == [])
        }
        let fetchError = #expect(throws: DatabaseError.self) {
            try db.fetchAll(Row.self, sql: "SELECT ?", arguments: [1, 2])
        }
        #expect(fetchError?.resultCode == .misuse)
        #expect(fetchError?.message.contains("wrong number of arguments") == true)
    }

    @Test func tooFewPositionalValuesIsMisuseAndWritesNothing() throws {
        let db = try makeDatabase()
        for _ in 0..<2 {
            let error = #expect(throws: DatabaseError.self) {
                try db.execute(sql: "INSERT INTO t(a, b) VALUES (?, ?)", arguments: [1])
            }
            #expect(error?.resultCode == .misuse)
            #expect(error?.message.contains("wrong number of arguments") == true)
            #expect(try rows(db) == [])
        }
        let fetchError = #expect(throws: DatabaseError.self) {
            try db.fetchAll(Row.self, sql: "SELECT ?, ?", arguments: [1])
        }
        #expect(fetchError?.resultCode == .misuse)
        #expect(fetchError?.message.contains("wrong number of arguments") == true)
        // Still usable with the right count.
        try db.execute(sql: "INSERT INTO t(a, b) VALUES (?, ?)", arguments: [1, 2])
        #expect(try rows(db) == [[.integer(1), .integer(2)]])
    }

    @Test func missingNamedValueIsMisuseNamingIt() throws {
        let db = try makeDatabase()
        let error = #expect(throws: DatabaseError.self) {
            try db.execute(sql: "INSERT INTO t(a, b) VALUES (:a, :b)", arguments: ["a": 1])
        }
        #expect(error?.resultCode == .misuse)
        #expect(error?.message.contains(":b") == true)
        #expect(error?.message.contains(":a") == false)
        #expect(try rows(db) == [])

        let fetchError = #expect(throws: DatabaseError.self) {
            try db.fetchAll(Row.self, sql: "SELECT @wanted", arguments: [:])
        }
        #expect(fetchError?.resultCode == .misuse)
        #expect(fetchError?.message.contains("wanted") == true)
    }

    @Test func extraNamedValueIsMisuseNamingIt() throws {
        let db = try makeDatabase()
        for _ in 0..<2 {
            let error = #expect(throws: DatabaseError.self) {
                try db.execute(
                    sql: "INSERT INTO t(a, b) VALUES (:a, :b)", arguments: ["a": 1, "b": 2, "unused": 3])
            }
            #expect(error?.resultCode == .misuse)
            #expect(error?.message.contains(":unused") == true)
            #expect(try rows(db) == [])
        }
        let positionalForNamed = #expect(throws: DatabaseError.self) {
            try db.execute(sql: "INSERT INTO t(a) VALUES (:a)", arguments: [1])
        }
        #expect(positionalForNamed?.resultCode == .misuse)
        #expect(positionalForNamed?.message.contains(":a") == true)
    }

    @Test func argumentsForANoParameterStatementAreMisuse() throws {
        let db = try makeDatabase()
        let error = #expect(throws: DatabaseError.self) {
            try db.execute(sql: "INSERT INTO t(a) VALUES (1)", arguments: [1])
        }
        #expect(error?.resultCode == .misuse)
        #expect(try rows(db) == [])
    }

    @Test func scriptArgumentsAreSpreadAcrossStatementsInOrder() throws {
        let db = try makeDatabase()
        try db.execute(
            sql: """
                INSERT INTO t(a, b) VALUES (?, ?);
                UPDATE t SET b = ? WHERE a = ?;
                INSERT INTO t(a) VALUES (?);
                """,
            arguments: [1, "one", "uno", 1, 2])
        #expect(try rows(db) == [[.integer(1), .text("uno")], [.integer(2), .null]])

        try db.execute(
            sql: "INSERT INTO t(a, b) VALUES (:k, 'first'); INSERT INTO t(a, b) VALUES (:k, ?)",
            arguments: StatementArguments(positional: ["second"], named: ["k": 7]))
        #expect(
            try db.fetchAll(Row.self, sql: "SELECT b FROM t WHERE a = 7 ORDER BY rowid").map(\.values)
                == [[.text("first")], [.text("second")]])

        let interpolated: SQL = "INSERT INTO t(a) VALUES (\(8)); INSERT INTO t(a) VALUES (\(9))"
        try db.execute(sql: interpolated)
        #expect(try db.firstValue(Int.self, sql: "SELECT count(*) FROM t WHERE a IN (8, 9)") == 2)
    }

    @Test func scriptWithTooFewOrTooManyArgumentsIsMisuse() throws {
        let db = try makeDatabase()
        let tooFew = #expect(throws: DatabaseError.self) {
            try db.transaction { tx in
                try tx.execute(
                    sql: "INSERT INTO t(a) VALUES (?); INSERT INTO t(a) VALUES (?)", arguments: [1])
            }
        }
        #expect(tooFew?.resultCode == .misuse)
        #expect(tooFew?.message.contains("wrong number of arguments") == true)

        let tooMany = #expect(throws: DatabaseError.self) {
            try db.execute(
                sql: "INSERT INTO t(a) VALUES (?); INSERT INTO t(a) VALUES (?)", arguments: [1, 2, 3])
        }
        #expect(tooMany?.resultCode == .misuse)
        #expect(tooMany?.message.contains("3 positional values for 2 parameters") == true)
        // The script's last statement did not run; the one before it had (scripts are not atomic).
        #expect(try rows(db) == [[.integer(1), .null]])
    }

    @Test func buildingArgumentsFromSwiftValues() throws {
        let optional: Int? = nil
        let positional = try StatementArguments([1, "two", 3.0, optional, true])
        #expect(positional.positional == [.integer(1), .text("two"), .real(3.0), .null, .integer(1)])
        let named = try StatementArguments(["name": "Alice", "score": 120])
        #expect(named.named == ["name": .text("Alice"), "score": .integer(120)])
        #expect(named.description == "[:name: 'Alice', :score: 120]")

        #expect(throws: ValueConversionError.self) { try StatementArguments([UInt64.max]) }
        #expect(throws: ValueConversionError.self) { try StatementArguments(["big": UInt.max]) }

        var combined: StatementArguments = [1]
        combined.append(contentsOf: StatementArguments(positional: [2], named: ["x": "y"]))
        #expect(combined == StatementArguments(positional: [1, 2], named: ["x": "y"]))
        #expect(!combined.isEmpty)
        let empty: StatementArguments = []
        #expect(empty.isEmpty)
    }
}
