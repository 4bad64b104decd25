import Foundation
import LiteRecord
import LiteRecordTestSupport
import Testing

/// `query` and `explain` on SQL a tool user types: one statement per call said in the tool's
/// words, and `--json` that loses no value (non-finite reals, repeated column names).
@Suite(.offCooperativePool) struct QueryRoughEdgesTests {
    private func albums(in directory: TemporaryDirectory) throws -> String {
        let path = directory.file("albums.db")
        try CLIFixtures.shell(
            path: path,
            script: """
                CREATE TABLE Album (id INTEGER PRIMARY KEY, title TEXT NOT NULL, score);
                INSERT INTO Album (title, score) VALUES ('A', 1e308 * 10), ('B', -1e308 * 10), ('C', 2.5), ('D', 'inf');
                """)
        return path
    }

    private func expectOneLineFailure(
        _ run: CLIFixtures.Run, prefix: String, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(run.status == 1, "status \(run.status): \(run.error)", sourceLocation: sourceLocation)
        #expect(run.output.isEmpty, "stdout: \(run.output)", sourceLocation: sourceLocation)
        #expect(run.error.hasPrefix(prefix), "\(run.error)", sourceLocation: sourceLocation)
        let lineBreaks = run.error.filter { $0 == "\n" }.count
        #expect(lineBreaks == 1, "\(run.error)", sourceLocation: sourceLocation)
        // A tool user cannot act on the library's hints or SQLite's result codes here.
        for libraryWord in ["execute(sql:)", "SQLITE_MISUSE", "script"] {
            #expect(!run.error.contains(libraryWord), "\(run.error)", sourceLocation: sourceLocation)
        }
    }

    @Test func severalStatementsAreRefusedInTheToolsWords() throws {
        try withTemporaryDirectory { directory in
            let path = try albums(in: directory)
            let before = try Data(contentsOf: URL(fileURLWithPath: path))
            expectOneLineFailure(
                try CLIFixtures.runTool(["query", path, "SELECT 1; DELETE FROM Album"]),
                prefix:
                    "literecord query: the SQL holds more than one statement; query runs exactly one "
                    + "statement per call (run each statement in its own call)\n")
            expectOneLineFailure(
                try CLIFixtures.runTool(["explain", path, "SELECT 1; SELECT 2"]),
                prefix:
                    "literecord explain: the SQL holds more than one statement; explain plans exactly one "
                    + "statement per call (run each statement in its own call)\n")
            for empty in ["", "  ", "-- only a comment", ";"] {
                expectOneLineFailure(
                    try CLIFixtures.runTool(["query", path, "--", empty]),
                    prefix: "literecord query: no SQL statement given\n")
            }
            // A trailing semicolon or comment is still one statement.
            for single in ["SELECT count(*) AS n FROM Album;", "SELECT count(*) AS n FROM Album; -- done"] {
                let run = try CLIFixtures.runTool(["query", path, single])
                #expect(run.status == 0 && run.output == "n\n-\n4\n(1 row)\n", "\(run.error)")
            }
            #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
        }
    }

    @Test func jsonKeepsNonFiniteRealsAsStrings() throws {
        try withTemporaryDirectory { directory in
            let path = try albums(in: directory)
            let run = try CLIFixtures.runTool([
                "query", path, "SELECT title, score, typeof(score) AS t FROM Album ORDER BY id", "--json",
            ])
            #expect(run.status == 0, "\(run.error)")
            let rows = try #require(
                try JSONSerialization.jsonObject(with: Data(run.output.utf8)) as? [[String: Any]])
            let scoresAsText = rows.map { $0["score"] as? String }
            #expect(scoresAsText == ["Infinity", "-Infinity", nil, "inf"])
            #expect(rows[2]["score"] as? Double == 2.5)
            let storageClasses = rows.map { $0["t"] as? String }
            #expect(storageClasses == ["real", "real", "real", "text"])
            // Read back as numbers by the usual parsers: Swift's, and JSON numbers stay numbers.
            #expect(Double("Infinity") == .infinity && Double("-Infinity") == -.infinity)
            let literal = try CLIFixtures.runTool(["query", path, "SELECT 1e308*10 AS x", "--json"])
            #expect(literal.output == "[\n  {\n    \"x\": \"Infinity\"\n  }\n]\n")
            // The text table keeps its own spelling.
            let text = try CLIFixtures.runTool(["query", path, "SELECT 1e308*10 AS x"])
            #expect(text.output == "  x\n---\ninf\n(1 row)\n")
        }
    }

    @Test func jsonKeepsEveryColumnWhenNamesRepeat() throws {
        try withTemporaryDirectory { directory in
            let path = try albums(in: directory)
            let run = try CLIFixtures.runTool(["query", path, "SELECT 1 AS a, 2 AS a", "--json"])
            #expect(run.status == 0, "\(run.error)")
            #expect(run.output == "[\n  {\n    \"a\": 1,\n    \"a:2\": 2\n  }\n]\n")
            // A suffix already taken by a real column is skipped, not reused.
            let taken = try CLIFixtures.runTool([
                "query", path, "SELECT 1 AS a, 2 AS \"a:2\", 3 AS a, 4 AS a", "--json",
            ])
            let object = try #require(
                try JSONSerialization.jsonObject(with: Data(taken.output.utf8)) as? [[String: Int]])
            #expect(object == [["a": 1, "a:2": 2, "a:3": 3, "a:4": 4]])
            #expect(taken.output.contains("\"a\": 1,\n    \"a:2\": 2,\n    \"a:3\": 3,\n    \"a:4\": 4"))
            // A join of two tables with an `id` each keeps both ids.
            let join = try CLIFixtures.runTool([
                "query", path, "SELECT * FROM Album x JOIN Album y ON y.id = x.id + 1 WHERE x.id = 1",
                "--json",
            ])
            let joined = try #require(
                try JSONSerialization.jsonObject(with: Data(join.output.utf8)) as? [[String: Any]])
            #expect(joined.first?["id"] as? Int == 1 && joined.first?["id:2"] as? Int == 2)
            #expect(joined.first?["title"] as? String == "A" && joined.first?["title:2"] as? String == "B")
        }
    }

    @Test func helpDocumentsTheJSONEncoding() throws {
        let run = try CLIFixtures.runTool(["query", "--help"])
        for part in ["\"Infinity\"", "\"-Infinity\"", "a:2", "one statement"] {
            #expect(run.output.contains(part), "\(part) missing from\n\(run.output)")
        }
    }
}
