import LiteRecord
import Testing

@Suite("Database errors")
struct DatabaseErrorTests {
    /// A violation of each kind of constraint, with the code and message SQLite reports.
    struct Violation: Sendable, CustomTestStringConvertible {
        let sql: SQL
        let code: ResultCode
        let message: String
        var testDescription: String { code.description }
    }

    static let violations: [Violation] = [
        Violation(
            sql: "INSERT INTO players(name, score) VALUES (\("taken"), \(1))", code: .constraintUnique,
            message: "UNIQUE constraint failed: players.name"),
        Violation(
            sql: "INSERT INTO players(name, score) VALUES (\("nobody"), \(nil as Int?))",
            code: .constraintNotNull, message: "NOT NULL constraint failed: players.score"),
        Violation(
            sql: "INSERT INTO players(name, score, teamID) VALUES (\("loner"), \(1), \(404))",
            code: .constraintForeignKey, message: "FOREIGN KEY constraint failed"),
        Violation(
            sql: "INSERT INTO players(name, score) VALUES (\("negative"), \(-5))", code: .constraintCheck,
            message: "CHECK constraint failed: score >= 0"),
        Violation(
            sql: "INSERT INTO players(id, name, score) VALUES (\(1), \("again"), \(1))",
            code: .constraintPrimaryKey, message: "UNIQUE constraint failed: players.id"),
    ]

    private func makeDatabase() throws -> Database {
        let db = try Database(.inMemory)
        try db.execute(
            sql: """
                CREATE TABLE teams(id INTEGER PRIMARY KEY);
                CREATE TABLE players(
                    id INTEGER PRIMARY KEY,
                    name TEXT NOT NULL UNIQUE,
                    score INTEGER NOT NULL CHECK (score >= 0),
                    teamID INTEGER REFERENCES teams(id));
                INSERT INTO players(id, name, score) VALUES (1, 'taken', 10);
                """)
        return db
    }

    @Test func syntaxErrorCarriesSQLitesMessageAndTheSQL() throws {
        let db = try Database(.inMemory)
        let error = #expect(throws: DatabaseError.self) { try db.execute(sql: "SELEC 1 FROM nowhere") }
        #expect(error?.resultCode == .error)
        #expect(error?.message == #"near "SELEC": syntax error"#)
        #expect(error?.sql == "SELEC 1 FROM nowhere")
        #expect(
            error?.description
                == #"SQLITE_ERROR (1): near "SELEC": syntax error — while executing `SELEC 1 FROM nowhere`"#)

        let fetchError = #expect(throws: DatabaseError.self) {
            try db.fetchAll(Row.self, sql: "SELECT * FROM nowhere WHERE a = \(1)")
        }
        #expect(fetchError?.resultCode == .error)
        #expect(fetchError?.message == "no such table: nowhere")
        #expect(fetchError?.sql == "SELECT * FROM nowhere WHERE a = ?")
    }

    @Test func scriptErrorNamesTheFailingStatement() throws {
        let db = try Database(.inMemory)
        let error = #expect(throws: DatabaseError.self) {
            try db.execute(sql: "CREATE TABLE a(x); INSERT INTO a VALUES (1); INSERT INTO missing VALUES (2)")
        }
        #expect(error?.message == "no such table: missing")
        #expect(error?.sql?.contains("INSERT INTO missing") == true)
        // Statements before the failing one ran.
        #expect(try db.firstValue(Int.self, sql: "SELECT count(*) FROM a") == 1)
    }

    @Test(arguments: violations)
    func constraintViolationsAreToldApart(violation: Violation) throws {
        let db = try makeDatabase()
        let error = #expect(throws: DatabaseError.self) { try db.execute(sql: violation.sql) }
        #expect(error?.resultCode == violation.code)
        #expect(error?.primaryResultCode == .constraint)
        #expect(error?.message == violation.message)
        #expect(error?.sql == violation.sql.text)
        #expect(error?.arguments == violation.sql.arguments)
        #expect(try db.firstValue(Int.self, sql: "SELECT count(*) FROM players") == 1)
    }

    @Test(arguments: violations)
    func primaryCodePatternMatchesEveryExtendedCode(violation: Violation) throws {
        let db = try makeDatabase()
        var caughtBy = "nothing"
        do {
            try db.execute(sql: violation.sql)
        } catch ResultCode.busy {
            caughtBy = "busy"
        } catch ResultCode.constraint {
            caughtBy = "constraint"
        } catch {
            caughtBy = "other"
        }
        #expect(caughtBy == "constraint")
    }

    @Test func extendedCodePatternMatchesOnlyItself() throws {
        let db = try makeDatabase()
        var notNullError: (any Error)?
        do {
            try db.execute(sql: "INSERT INTO players(name) VALUES (\("no score"))")
        } catch ResultCode.constraintUnique {
            Issue.record("a NOT NULL violation matched the UNIQUE pattern")
        } catch {
            notNullError = error
        }
        let error = try #require(notNullError)
        #expect(ResultCode.constraintNotNull ~= error)
        #expect(ResultCode.constraint ~= error)
        #expect(!(ResultCode.constraintUnique ~= error))
        #expect(!(ResultCode.error ~= error))
        #expect(!(ResultCode.constraint ~= (CancellationError() as any Error)))

        #expect(ResultCode.constraint ~= ResultCode.constraintCheck)
        #expect(!(ResultCode.constraintCheck ~= ResultCode.constraint))
        #expect(ResultCode.constraintUnique.primary == .constraint)
        #expect(ResultCode.constraint.isPrimary && !ResultCode.constraintUnique.isPrimary)
    }

    /// A model read from a view whose column fails while SQLite steps (malformed JSON).
    struct FailingView: Model {
        var id: Int64
        var name: String?
        static let schema = Schema<FailingView>(table: "failing_view")
    }

    @Test func aFindThatFailsWhileSteppingNamesItsKey() throws {
        let db = try Database(.inMemory)
        try db.execute(sql: #"CREATE VIEW failing_view AS SELECT 5 AS id, json_extract('{', '$') AS name"#)
        let error = try #require(
            #expect(throws: DatabaseError.self) { try db.find(FailingView.self, id: 5) })
        #expect(error.message.contains("malformed JSON"))
        #expect(error.sql == #"SELECT * FROM "failing_view" WHERE "id" = ?"#)
        #expect(error.arguments == [5])
        // The cached statement stays usable, and keeps no arguments of the failed call.
        #expect(try db.find(FailingView.self, id: 6) == nil)
    }

    @Test func descriptionHidesArgumentsExpandedDescriptionShowsThem() throws {
        let db = try makeDatabase()
        let error = try #require(
            #expect(throws: DatabaseError.self) {
                try db.execute(sql: "INSERT INTO players(name, score) VALUES (\("taken"), \(777_123))")
            })
        #expect(error.arguments == ["taken", 777_123])
        #expect(error.sqlState == nil)
        #expect(error.description.hasPrefix("SQLITE_CONSTRAINT_UNIQUE (2067): UNIQUE constraint failed"))
        #expect(error.description.contains("UNIQUE constraint failed: players.name"))
        #expect(error.description.contains("INSERT INTO players(name, score) VALUES (?, ?)"))
        #expect(!error.description.contains("777123"))
        #expect(!error.description.contains("'taken'"))
        #expect(error.expandedDescription.hasPrefix(error.description))
        #expect(error.expandedDescription.contains("777123"))
        #expect(error.expandedDescription.contains("'taken'"))

        let noArguments = DatabaseError(resultCode: .misuse, message: "m", sql: "SELECT 1")
        #expect(noArguments.expandedDescription == noArguments.description)
    }

    @Test func resultCodeDescriptions() {
        #expect(ResultCode.constraintForeignKey.description == "SQLITE_CONSTRAINT_FOREIGNKEY (787)")
        #expect(ResultCode.busy.description == "SQLITE_BUSY (5)")
        #expect(ResultCode(rawValue: 9999).description == "SQLite code 9999")
        // Read-only causes the file-system fault tests meet (a read-only directory, a moved file).
        #expect(ResultCode.readOnlyDirectory.description == "SQLITE_READONLY_DIRECTORY (1544)")
        #expect(ResultCode.readOnlyCannotInit.description == "SQLITE_READONLY_CANTINIT (1288)")
        #expect(ResultCode.readOnlyDatabaseMoved.description == "SQLITE_READONLY_DBMOVED (1032)")
        #expect(ResultCode.readOnlyDirectory.primary == .readOnly)
        #expect(ResultCode.constraint.explanation == "constraint failed")
        #expect(ResultCode.readOnly.explanation.contains("readonly"))
    }

    @Test func misuseErrorsAreReportedByCode() throws {
        let db = try Database(.inMemory)
        let error = #expect(throws: DatabaseError.self) {
            try db.execute(sql: "SELECT :a", arguments: ["b": 1])
        }
        #expect(error?.resultCode == .misuse)
        #expect(error?.primaryResultCode == .misuse)
        #expect(error?.sql == "SELECT :a")
        #expect(error?.description.contains("SQLITE_MISUSE (21)") == true)
    }
}
