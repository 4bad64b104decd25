import Foundation
import LiteRecord
import LiteRecordTestSupport
import Testing

/// Every inspecting command (`schema`, `query`, `explain`, `generate` to standard output)
/// leaves the database's directory as it found it, in every journal mode another tool may have
/// left the file in: the same file names, and every file byte for byte.
@Suite(.offCooperativePool) struct InspectionLeavesNoTraceTests {
    /// Every file of `directory` with its bytes.
    private func snapshot(_ directory: TemporaryDirectory) throws -> [String: Data] {
        var files: [String: Data] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: directory.path) {
            files[name] = try Data(contentsOf: URL(fileURLWithPath: directory.file(name)))
        }
        return files
    }

    private func inspectingCommands(_ path: String) -> [[String]] {
        [
            ["schema", path], ["schema", path, "--json"], ["query", path, "SELECT * FROM items ORDER BY id"],
            ["query", path, "SELECT count(*) FROM items", "--json"],
            ["explain", path, "SELECT * FROM items WHERE name = 'a'"], ["generate", path],
        ]
    }

    /// Runs every inspecting command on `path` and checks the directory after each.
    private func expectNoTrace(
        _ path: String, in directory: TemporaryDirectory, sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let before = try snapshot(directory)
        for command in inspectingCommands(path) {
            let run = try CLIFixtures.runTool(command)
            #expect(run.status == 0, "\(command): \(run.error)", sourceLocation: sourceLocation)
            let after = try snapshot(directory)
            #expect(
                after.keys.sorted() == before.keys.sorted(),
                "\(command) changed the directory: \(before.keys.sorted()) → \(after.keys.sorted())",
                sourceLocation: sourceLocation)
            for (name, bytes) in before where after[name] != bytes {
                Issue.record("\(command) changed the bytes of \(name)", sourceLocation: sourceLocation)
            }
        }
    }

    @Test(arguments: ["delete", "truncate", "persist", "wal"])
    func everyJournalModeIsInspectedWithoutATrace(mode: String) throws {
        try withTemporaryDirectory { directory in
            let path = directory.file("other.db")
            // Two transactions, so that TRUNCATE and PERSIST leave their journal file behind.
            try CLIFixtures.shell(
                path: path,
                script: """
                    PRAGMA journal_mode = \(mode);
                    CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT NOT NULL);
                    INSERT INTO items (name) VALUES ('a'), ('b');
                    """)
            let names = try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
            switch mode {
            case "truncate", "persist": #expect(names == ["other.db", "other.db-journal"])
            default: #expect(names == ["other.db"])
            }
            try expectNoTrace(path, in: directory)
            // Statements that write are refused in every mode (a WAL file is opened read-write
            // so that SQLite removes its -wal and -shm on close, yet nothing may be written).
            // Leaving WAL would rewrite the header; between rollback modes, journal_mode only
            // sets the tool's own connection, so it may succeed there but changes no file.
            let before = try snapshot(directory)
            var writes = ["DELETE FROM items", "PRAGMA user_version = 3", "VACUUM"]
            if mode == "wal" { writes.append("PRAGMA journal_mode = delete") }
            for write in writes {
                let run = try CLIFixtures.runTool(["query", path, write])
                #expect(run.status == 1 && run.error.contains("query failed:"), "\(write): \(run.error)")
            }
            if mode != "wal" { _ = try CLIFixtures.runTool(["query", path, "PRAGMA journal_mode = delete"]) }
            #expect(try snapshot(directory) == before)
            // The rows are read, whatever the mode.
            let query = try CLIFixtures.runTool([
                "query", path, "SELECT name FROM items ORDER BY id", "--json",
            ])
            #expect(query.output == "[\n  {\n    \"name\": \"a\"\n  },\n  {\n    \"name\": \"b\"\n  }\n]\n")
        }
    }

    /// A WAL file whose `-wal` another process still holds open with commits not yet
    /// checkpointed: the tool reads those commits and neither checkpoints nor deletes anything.
    @Test func walFileInUseByAnotherConnectionIsLeftAlone() throws {
        try withTemporaryDirectory { directory in
            let path = directory.file("live.db")
            let other = try Database(path: path)
            try other.execute(
                sql: """
                    PRAGMA wal_autocheckpoint = 0;
                    CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT NOT NULL);
                    INSERT INTO items (name) VALUES ('a'), ('b');
                    """)
            let names = try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
            #expect(names == ["live.db", "live.db-shm", "live.db-wal"])
            let mainBefore = try Data(contentsOf: URL(fileURLWithPath: path))
            let walBefore = try Data(contentsOf: URL(fileURLWithPath: path + "-wal"))
            for command in inspectingCommands(path) {
                let run = try CLIFixtures.runTool(command)
                #expect(run.status == 0, "\(command): \(run.error)")
            }
            let count = try CLIFixtures.runTool(["query", path, "SELECT count(*) AS n FROM items", "--json"])
            #expect(count.output == "[\n  {\n    \"n\": 2\n  }\n]\n")
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted() == names)
            #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == mainBefore)
            #expect(try Data(contentsOf: URL(fileURLWithPath: path + "-wal")) == walBefore)
            #expect(try other.fetchOne(Int.self, sql: "SELECT count(*) FROM items") == 2)
        }
    }

    /// A WAL file the user may not write (mode 0444) in a writable directory: inspected, and
    /// still no companion file is left.
    @Test func readOnlyWALFileIsInspectedWithoutATrace() throws {
        try withTemporaryDirectory { directory in
            let path = directory.file("locked.db")
            try CLIFixtures.shell(
                path: path,
                script: """
                    PRAGMA journal_mode = wal;
                    CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT NOT NULL);
                    INSERT INTO items (name) VALUES ('a'), ('b');
                    """)
            try FileManager.default.setAttributes([.posixPermissions: 0o444], ofItemAtPath: path)
            defer { try? FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: path) }
            try expectNoTrace(path, in: directory)
        }
    }
}
