import Foundation
import LiteRecord
import LiteRecordTestSupport
import Testing

/// A WAL database in a directory the user may not write (a shared volume, a package's
/// resources, a read-only mount): SQLite cannot create the `-shm` index a WAL file is read
/// through. The inspecting commands still read it when nothing is lost by doing so, and say in
/// the tool's words what is wrong and what to do when something would be.
///
/// Root ignores file permissions, so when the tests run as root the tool runs as `nobody`
/// (``CLIFixtures/runTool(_:seconds:asUnprivilegedUser:)``).
@Suite(.offCooperativePool) struct ReadOnlyDirectoryTests {
    private func setPermissions(_ permissions: Int, _ path: String) throws {
        try FileManager.default.setAttributes([.posixPermissions: permissions], ofItemAtPath: path)
    }

    /// Every file of `directory` with its bytes.
    private func snapshot(_ path: String) throws -> [String: Data] {
        var files: [String: Data] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: path) {
            files[name] = try Data(contentsOf: URL(fileURLWithPath: path + "/" + name))
        }
        return files
    }

    /// Makes `directory` and each of `files` read-only (0555 and 0444), runs `body`, then makes
    /// them writable again so that the directory can be removed by any user.
    private func withReadOnly<T>(
        _ directory: TemporaryDirectory, files: [String], _ body: () throws -> T
    ) throws -> T {
        for file in files { try setPermissions(0o444, directory.file(file)) }
        try setPermissions(0o555, directory.path)
        defer {
            try? setPermissions(0o755, directory.path)
            for file in files { try? setPermissions(0o644, directory.file(file)) }
        }
        return try body()
    }

    private func inspectingCommands(_ path: String) -> [[String]] {
        [
            ["schema", path], ["schema", path, "--json"],
            ["query", path, "SELECT name FROM items ORDER BY id", "--json"],
            ["explain", path, "SELECT * FROM items WHERE name = 'a'"], ["generate", path],
        ]
    }

    /// A WAL-mode database of two items, written by the `sqlite3` shell, which checkpoints every
    /// commit and leaves no `-wal` or `-shm` beside it.
    private func writeWALFileAlone(at path: String) throws {
        try CLIFixtures.shell(
            path: path,
            script: """
                PRAGMA journal_mode = wal;
                CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT NOT NULL);
                INSERT INTO items (name) VALUES ('a'), ('b');
                """)
    }

    /// A WAL file with no `-wal` or `-shm` beside it (every commit checkpointed, as the
    /// `sqlite3` shell leaves it), file and directory read-only: every inspecting command reads
    /// it, with the output it gives in a writable directory, and the directory is left as found.
    @Test func aWALFileAloneInAReadOnlyDirectoryIsRead() throws {
        try withTemporaryDirectory { directory in
            let path = directory.file("shared.db")
            try writeWALFileAlone(at: path)
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["shared.db"])
            // What each command prints where it may write.
            var expected: [[String]: String] = [:]
            for command in inspectingCommands(path) {
                let run = try CLIFixtures.runTool(command)
                try #require(run.status == 0, "\(command): \(run.error)")
                expected[command] = run.output
            }

            let outputs = try withReadOnly(directory, files: ["shared.db"]) {
                let before = try snapshot(directory.path)
                var outputs: [[String]: String] = [:]
                for command in inspectingCommands(path) {
                    let run = try CLIFixtures.runTool(command, asUnprivilegedUser: true)
                    #expect(run.status == 0, "\(command): \(run.error)")
                    #expect(run.error == "", "\(command)")
                    outputs[command] = run.output
                }
                #expect(try snapshot(directory.path) == before)
                return outputs
            }
            for (command, output) in expected {
                #expect(outputs[command] == output, "\(command)")
            }
            #expect(
                outputs[["query", path, "SELECT name FROM items ORDER BY id", "--json"]]?.contains("\"b\"")
                    == true)
        }
    }

    /// A backup of such a file (the source is only read) into a directory the user may write.
    @Test func aWALFileAloneInAReadOnlyDirectoryIsBackedUp() throws {
        try withTemporaryDirectory { directory in
            try withTemporaryDirectory { destination in
                let path = directory.file("shared.db")
                try writeWALFileAlone(at: path)
                try setPermissions(0o777, destination.path)
                let copy = destination.file("copy.db")
                let run = try withReadOnly(directory, files: ["shared.db"]) {
                    try CLIFixtures.runTool(["backup", path, copy], asUnprivilegedUser: true)
                }
                #expect(run.status == 0, "\(run.error)")
                let backup = try Database(path: copy, configuration: .existingFile)
                #expect(
                    try backup.fetchAll(String.self, sql: "SELECT name FROM items ORDER BY id") == ["a", "b"])
            }
        }
    }

    /// Copies `database` and the companion files named by `suffixes` (`-wal`, `-shm`) into
    /// `directory` while a connection holds commits in the `-wal` that were never checkpointed,
    /// as a process that stopped (or another machine) leaves them.
    private func copyWithUncheckpointedCommits(
        to directory: TemporaryDirectory, suffixes: [String]
    ) throws -> String {
        try withTemporaryDirectory { source in
            let original = source.file("live.db")
            let writer = try Database(path: original)
            try writer.execute(
                sql: """
                    PRAGMA wal_autocheckpoint = 0;
                    CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT NOT NULL);
                    INSERT INTO items (name) VALUES ('a'), ('b'), ('only in the wal');
                    """)
            #expect(try Data(contentsOf: URL(fileURLWithPath: original + "-wal")).count > 0)
            for suffix in [""] + suffixes {
                try FileManager.default.copyItem(
                    atPath: original + suffix, toPath: directory.file("live.db" + suffix))
            }
            return directory.file("live.db")
        }
    }

    /// `-wal` and `-shm` left beside the file, everything read-only: read through them, with
    /// the commits only the `-wal` holds.
    @Test func aWALFileWithItsCompanionsInAReadOnlyDirectoryIsReadWithEveryCommit() throws {
        try withTemporaryDirectory { directory in
            let path = try copyWithUncheckpointedCommits(to: directory, suffixes: ["-wal", "-shm"])
            try withReadOnly(directory, files: ["live.db", "live.db-wal", "live.db-shm"]) {
                let before = try snapshot(directory.path)
                let run = try CLIFixtures.runTool(
                    ["query", path, "SELECT count(*) AS n FROM items", "--json"], asUnprivilegedUser: true)
                #expect(run.status == 0, "\(run.error)")
                #expect(run.output == "[\n  {\n    \"n\": 3\n  }\n]\n")
                let schema = try CLIFixtures.runTool(["schema", path], asUnprivilegedUser: true)
                #expect(schema.status == 0, "\(schema.error)")
                #expect(schema.output.contains("items"))
                #expect(try snapshot(directory.path) == before)
            }
        }
    }

    /// A `-wal` holding commits but no `-shm`, in a read-only directory: SQLite cannot read the
    /// `-wal` without creating the `-shm`, and reading the file alone would silently miss those
    /// commits. The tool refuses, saying why and what to do, instead of SQLite's
    /// "attempt to write a readonly database (SQLITE_READONLY_DIRECTORY)".
    @Test func aWALWithoutItsIndexInAReadOnlyDirectoryIsExplained() throws {
        try withTemporaryDirectory { directory in
            let path = try copyWithUncheckpointedCommits(to: directory, suffixes: ["-wal"])
            try withReadOnly(directory, files: ["live.db", "live.db-wal"]) {
                let before = try snapshot(directory.path)
                for command in inspectingCommands(path) {
                    let run = try CLIFixtures.runTool(command, asUnprivilegedUser: true)
                    #expect(run.status == 1, "\(command): \(run.output)")
                    #expect(
                        run.error
                            == "literecord \(command[0]): \(path): cannot read the transactions in "
                            + "\(path)-wal: its directory is read-only, so SQLite cannot create "
                            + "\(path)-shm to read them; copy \(path) and \(path)-wal to a directory "
                            + "you can write and inspect the copy, or open the database once where it "
                            + "can be written, so that it is checkpointed\n",
                        "\(command)")
                    #expect(!run.error.contains("SQLITE_"), "\(command)")
                }
                #expect(try snapshot(directory.path) == before)
            }
        }
    }
}
