// The README's "Raw SQL" section, line for line (see ReadmeCodeBlockTests).
import Foundation
import LiteRecord
import Testing

@Suite struct RawSQLDocumentationTests {
    static func playersDatabase() throws -> Database {
        let db = try Database(.inMemory)
        try db.execute(sql: "CREATE TABLE players(id INTEGER PRIMARY KEY, name TEXT UNIQUE, score INTEGER)")
        try db.execute(sql: "INSERT INTO players(name, score) VALUES ('Alice', 120), ('Bob', 80)")
        return db
    }

    @Test func interpolatedValuesAreBoundAndScriptsRun() throws {
        let db = try Self.playersDatabase()
        let name = "O'Brien'); DROP TABLE players; --"
        try db.execute(sql: "INSERT INTO players(name, score) VALUES (\(name), \(42))")
        // runs `INSERT INTO players(name, score) VALUES (?, ?)` with the two values bound
        #expect(try db.fetchOne(Int.self, sql: "SELECT score FROM players WHERE name = \(name)") == 42)
        try db.execute(sql: """
            CREATE TABLE teams(id INTEGER PRIMARY KEY, name TEXT UNIQUE);
            INSERT INTO teams(name) VALUES ('red'), ('blue');
            """)                                           // scripts of many statements run in order
        #expect(try db.fetchAll(String.self, sql: "SELECT name FROM teams ORDER BY id") == ["red", "blue"])
        #expect(try db.fetchOne(Int.self, sql: "SELECT count(*) FROM players") == 3)
    }

    @Test func sqlHeldInAStringIsTakenVerbatimAndItsArgumentsBound() throws {
        try inTemporaryCurrentDirectory {
            let db = try Self.playersDatabase()
            try """
                CREATE TABLE seasons(id INTEGER PRIMARY KEY, year INTEGER);
                INSERT INTO seasons(year) VALUES (2025), (2026);
                """.write(toFile: "schema.sql", atomically: true, encoding: .utf8)
            let script = try String(contentsOfFile: "schema.sql", encoding: .utf8)
            try db.execute(sql: SQL(verbatim: script))                   // runs the file's statements in order
            #expect(try db.fetchAll(Int.self, sql: "SELECT year FROM seasons ORDER BY id") == [2025, 2026])
            try db.execute(sql: SQL(verbatim: "DELETE FROM players WHERE score < ?", arguments: [10]))
            try db.execute(sql: SQL(verbatim: "DELETE FROM players WHERE score < ?", arguments: [100]))
            #expect(try db.fetchAll(String.self, sql: "SELECT name FROM players") == ["Alice"])
            // The text is taken as written: nothing in it is treated as a value.
            let verbatim = SQL(verbatim: "SELECT '\\(x)', ? -- :name", arguments: [1])
            #expect(verbatim.text == "SELECT '\\(x)', ? -- :name")
            #expect(verbatim.arguments == [1])
        }
    }

    @Test func textYouBuiltTakesExplicitArguments() throws {
        let db = try Self.playersDatabase()
        try db.execute(sql: "UPDATE players SET score = ? WHERE name = ?", arguments: [130, "Alice"])
        #expect(try db.fetchOne(Int.self, sql: "SELECT score FROM players WHERE name = 'Alice'") == 130)
        try db.execute(sql: "UPDATE players SET score = :score WHERE name = :name",
                       arguments: ["score": 130, "name": "Alice"])
        #expect(try db.fetchOne(Int.self, sql: "SELECT score FROM players WHERE name = 'Alice'") == 130)
    }

    @Test func rowsAreReadByNameOrIndex() throws {
        let db = try Self.playersDatabase()
        let rows: [Row] = try db.fetchAll(Row.self, sql: "SELECT name, score FROM players WHERE score > \(100)")
        let first: Row? = try db.fetchOne(Row.self, sql: "SELECT count(*) AS n FROM players")
        let name: String = try rows[0].value(named: "name")      // typed, throwing access
        let score = try rows[0].value(Int.self, at: 1)
        var visited = 0
        try db.forEachRow(sql: "SELECT * FROM players") { row in /* one row at a time */ }
        try db.forEachRow(sql: "SELECT * FROM players") { _ in visited += 1 }
        #expect(rows.count == 1)
        #expect(try first?.value(Int.self, named: "n") == 2)
        #expect(name == "Alice")
        #expect(score == 120)
        #expect(visited == 2)
    }
}
