import Foundation
import LiteRecord
import LiteRecordTestSupport
import Testing

/// The built `literecord` executable, run as a process: help, errors, and the output of
/// `schema`, `query`, `explain` and `backup`.
@Suite(.offCooperativePool) struct CommandLineToolTests {
    static let libraryScript = """
        CREATE TABLE authors (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, born DATE DEFAULT '1900-01-01');
        CREATE TABLE books (
            id INTEGER PRIMARY KEY, author_id INTEGER NOT NULL REFERENCES authors(id) ON DELETE CASCADE,
            title TEXT, cover BLOB, price NUMERIC);
        CREATE INDEX books_author ON books(author_id);
        INSERT INTO authors VALUES (1, 'Tolkien', '1892-01-03'), (2, 'Le Guin', NULL);
        INSERT INTO books VALUES (1, 1, 'The Hobbit', x'CAFE', 9.5),
            (2, 2, 'A Wizard of Earthsea, and a title much longer than forty characters', NULL, 10);
        CREATE VIEW titles AS SELECT title FROM books;
        """

    private func library(in directory: TemporaryDirectory) throws -> String {
        let path = directory.file("library.sqlite")
        try CLIFixtures.makeDatabase(at: path, script: Self.libraryScript)
        return path
    }

    /// A failed run: the status, and exactly one line on standard error starting with `prefix`.
    private func expectFailure(
        _ run: CLIFixtures.Run, status: Int32, prefix: String, containing parts: [String] = [],
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(run.status == status, "status \(run.status): \(run.error)", sourceLocation: sourceLocation)
        #expect(run.output.isEmpty, "stdout: \(run.output)", sourceLocation: sourceLocation)
        #expect(
            run.error.hasSuffix("\n") && run.error.dropLast().contains("\n") == false,
            "not one line: \(run.error)", sourceLocation: sourceLocation)
        #expect(run.error.hasPrefix(prefix), "\(run.error)", sourceLocation: sourceLocation)
        for part in parts {
            #expect(run.error.contains(part), "\(run.error)", sourceLocation: sourceLocation)
        }
    }

    // MARK: - Help and command-line mistakes

    @Test(arguments: ["schema", "query", "explain", "generate", "backup"])
    func everyCommandHasHelp(command: String) throws {
        for flag in ["--help", "-h"] {
            let run = try CLIFixtures.runTool([command, flag])
            #expect(run.status == 0 && run.error.isEmpty, "\(run.error)")
            #expect(run.output.contains("usage: literecord \(command) "))
            #expect(run.output.contains("-h, --help"))
        }
    }

    @Test func overviewListsTheCommands() throws {
        let run = try CLIFixtures.runTool(["--help"])
        #expect(run.status == 0)
        for command in ["schema", "query", "explain", "generate", "backup"] {
            #expect(run.output.contains("\n  \(command) "), "\(command) missing")
        }
        expectFailure(try CLIFixtures.runTool([]), status: 2, prefix: "literecord: missing command")
    }

    @Test func unknownCommandAndUnknownOptionExitWithStatus2() throws {
        expectFailure(
            try CLIFixtures.runTool(["scheme", "x.sqlite"]), status: 2,
            prefix: "literecord: unknown command 'scheme' (commands: schema, query, explain, generate, backup"
        )
        expectFailure(
            try CLIFixtures.runTool(["--verbose"]), status: 2,
            prefix: "literecord: unknown option '--verbose'")
        expectFailure(
            try CLIFixtures.runTool(["schema", "x.sqlite", "--csv"]), status: 2,
            prefix: "literecord schema: unknown option --csv")
        expectFailure(
            try CLIFixtures.runTool(["query", "x.sqlite"]), status: 2, prefix: "literecord query: missing SQL"
        )
    }

    // MARK: - Bad databases

    @Test func missingFileIsReportedAndNotCreated() throws {
        try withTemporaryDirectory { directory in
            let path = directory.file("missing.sqlite")
            for command in [
                ["schema", path], ["query", path, "SELECT 1"], ["explain", path, "SELECT 1"],
                ["generate", path],
            ] {
                expectFailure(
                    try CLIFixtures.runTool(command), status: 1,
                    prefix: "literecord \(command[0]): \(path): no such file")
            }
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
        }
    }

    @Test func fileThatIsNotADatabaseOrADirectoryIsReported() throws {
        try withTemporaryDirectory { directory in
            let path = directory.file("notes.txt")
            let text = Data(String(repeating: "not a database\n", count: 200).utf8)
            try text.write(to: URL(fileURLWithPath: path))
            expectFailure(
                try CLIFixtures.runTool(["schema", path]), status: 1,
                prefix: "literecord schema: \(path): not an SQLite database")
            #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == text)
            expectFailure(
                try CLIFixtures.runTool(["schema", directory.path]), status: 1,
                prefix: "literecord schema: \(directory.path): is a directory")
        }
    }

    @Test func readOnlyFileIsInspectedWithoutWritingAnything() throws {
        try withTemporaryDirectory { directory in
            let path = try library(in: directory)
            try FileManager.default.setAttributes([.posixPermissions: 0o444], ofItemAtPath: path)
            let before = try Data(contentsOf: URL(fileURLWithPath: path))
            let modified = try FileManager.default.attributesOfItem(atPath: path)[.modificationDate] as? Date
            for command in [["schema", path], ["query", path, "SELECT * FROM books"], ["generate", path]] {
                let run = try CLIFixtures.runTool(command)
                #expect(run.status == 0, "\(command[0]): \(run.error)")
            }
            // No journal, WAL or shared-memory file, and not one byte changed.
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["library.sqlite"])
            #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
            #expect(
                try FileManager.default.attributesOfItem(atPath: path)[.modificationDate] as? Date == modified
            )
        }
    }

    @Test func invalidSQLAndWritesAreRefusedWithOneLine() throws {
        try withTemporaryDirectory { directory in
            let path = try library(in: directory)
            expectFailure(
                try CLIFixtures.runTool(["query", path, "SELEC * FROM books"]), status: 1,
                prefix: "literecord query: query failed: ", containing: ["syntax error"])
            expectFailure(
                try CLIFixtures.runTool(["query", path, "SELECT * FROM nowhere"]), status: 1,
                prefix: "literecord query: query failed: ", containing: ["no such table: nowhere"])
            expectFailure(
                try CLIFixtures.runTool(["query", path, "DELETE FROM books"]), status: 1,
                prefix: "literecord query: query failed: ", containing: ["readonly"])
            expectFailure(
                try CLIFixtures.runTool(["query", path, "SELECT 1; SELECT 2"]), status: 1,
                prefix: "literecord query: the SQL holds more than one statement; query runs exactly one")
            expectFailure(
                try CLIFixtures.runTool(["explain", path, "SELECT FROM"]), status: 1,
                prefix: "literecord explain: explain failed: ", containing: ["syntax error"])
            let db = try Database(path: path)
            #expect(try db.fetchOne(Int.self, sql: "SELECT count(*) FROM books") == 2)
        }
    }

    // MARK: - Output

    @Test func queryPrintsAnAlignedTable() throws {
        try withTemporaryDirectory { directory in
            let path = try library(in: directory)
            let run = try CLIFixtures.runTool([
                "query", path, "SELECT id, title, cover, price FROM books ORDER BY id",
            ])
            #expect(run.status == 0, "\(run.error)")
            #expect(
                run.output == """
                    id  title                                     cover    price
                    --  ----------------------------------------  -------  -----
                     1  The Hobbit                                x'cafe'    9.5
                     2  A Wizard of Earthsea, and a title much …  NULL        10
                    (2 rows)

                    """)
        }
    }

    @Test func queryPrintsJSONWithBlobsInBase64() throws {
        try withTemporaryDirectory { directory in
            let path = try library(in: directory)
            let run = try CLIFixtures.runTool([
                "query", path, "SELECT id, cover, price, NULL AS missing FROM books", "--json",
            ])
            #expect(run.status == 0, "\(run.error)")
            #expect(
                run.output == """
                    [
                      {
                        "id": 1,
                        "cover": "yv4=",
                        "price": 9.5,
                        "missing": null
                      },
                      {
                        "id": 2,
                        "cover": null,
                        "price": 10,
                        "missing": null
                      }
                    ]

                    """)
            let parsed = try JSONSerialization.jsonObject(with: Data(run.output.utf8)) as? [[String: Any]]
            #expect(parsed?.count == 2)
        }
    }

    @Test func explainDrawsATreeAndWarnsAboutFullScans() throws {
        try withTemporaryDirectory { directory in
            let path = try library(in: directory)
            let scan = try CLIFixtures.runTool(
                [
                    "explain", path,
                    "SELECT * FROM books JOIN authors ON authors.id = books.author_id WHERE price > 5",
                ])
            #expect(scan.status == 0, "\(scan.error)")
            let lines = scan.output.split(separator: "\n").map(String.init)
            #expect(lines.first == "QUERY PLAN")
            #expect(lines.contains("├── SCAN books"))
            #expect(lines.contains("└── SEARCH authors USING INTEGER PRIMARY KEY (rowid=?)"))
            #expect(lines.last == "warning: full table scan of books: every row is read (no index is used)")
            let indexed = try CLIFixtures.runTool([
                "explain", path, "SELECT * FROM books WHERE author_id = 1",
            ])
            #expect(indexed.output == "QUERY PLAN\n└── SEARCH books USING INDEX books_author (author_id=?)\n")
        }
    }

    @Test func schemaDescribesTablesViewsKeysAndRowCounts() throws {
        try withTemporaryDirectory { directory in
            let path = try library(in: directory)
            let text = try CLIFixtures.runTool(["schema", path])
            #expect(text.status == 0, "\(text.error)")
            #expect(text.output.hasPrefix("table authors (2 rows)\n"))
            #expect(text.output.contains("  born    DATE               DEFAULT '1900-01-01'"))
            #expect(text.output.contains("  unique sqlite_autoindex_authors_1 (name) (UNIQUE constraint)"))
            #expect(text.output.contains("  index books_author (author_id)"))
            #expect(
                text.output.contains(
                    "  foreign key (author_id) references authors(id) ON DELETE CASCADE ON UPDATE NO ACTION"))
            #expect(text.output.contains("view titles (2 rows)"))

            let json = try CLIFixtures.runTool(["schema", path, "--json"])
            #expect(json.status == 0, "\(json.error)")
            let object = try #require(
                try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [String: Any])
            let tables = try #require(object["tables"] as? [[String: Any]])
            let tableNames = tables.map { $0["name"] as? String }
            #expect(tableNames == ["authors", "books"])
            let rowCounts = tables.map { $0["rowCount"] as? Int }
            #expect(rowCounts == [2, 2])
            let columns = try #require(tables[1]["columns"] as? [[String: Any]])
            let columnNames = columns.map { $0["name"] as? String }
            #expect(columnNames == ["id", "author_id", "title", "cover", "price"])
            #expect(columns[1]["notNull"] as? Bool == true && columns[1]["type"] as? String == "INTEGER")
            let keys = try #require(tables[1]["foreignKeys"] as? [[String: Any]])
            #expect(
                keys.first?["parentTable"] as? String == "authors"
                    && keys.first?["onDelete"] as? String == "CASCADE")
            #expect((object["views"] as? [[String: Any]])?.first?["name"] as? String == "titles")
        }
    }

    @Test func backupCopiesAndRefusesToOverwrite() throws {
        try withTemporaryDirectory { directory in
            let path = try library(in: directory)
            let copy = directory.file("copy.sqlite")
            let run = try CLIFixtures.runTool(["backup", path, copy])
            #expect(run.status == 0 && run.output.isEmpty, "\(run.error)")
            #expect(try Database(path: copy).fetchOne(Int.self, sql: "SELECT count(*) FROM books") == 2)
            expectFailure(
                try CLIFixtures.runTool(["backup", path, copy]), status: 1,
                prefix: "literecord backup: \(copy) already exists (use --force to replace it)")
            #expect(try CLIFixtures.runTool(["backup", path, copy, "--force"]).status == 0)
        }
    }
}
