import Foundation
import LiteRecord
import LiteRecordTestSupport
import Testing

/// `backup DB DEST` where DEST is a directory (the copy goes in it, as with `cp`), a path
/// under a missing directory, or the database itself: each done or refused in plain words.
@Suite(.offCooperativePool) struct BackupDestinationTests {
    @Test func directoryMissingDirectoryAndTheSourceItself() throws {
        try withTemporaryDirectory { directory in
            let path = directory.file("shop.db")
            try CLIFixtures.shell(
                path: path, script: "CREATE TABLE items (name TEXT); INSERT INTO items VALUES ('a'), ('b');")
            let copies = directory.file("copies")
            try FileManager.default.createDirectory(atPath: copies, withIntermediateDirectories: false)

            let intoDirectory = try CLIFixtures.runTool(["backup", path, copies])
            #expect(intoDirectory.status == 0 && intoDirectory.error.isEmpty, "\(intoDirectory.error)")
            let copy = try Database(path: copies + "/shop.db")
            #expect(
                try copy.fetchAll(String.self, sql: "SELECT name FROM items ORDER BY name") == ["a", "b"])
            let again = try CLIFixtures.runTool(["backup", path, copies + "/"])
            #expect(
                again.error
                    == "literecord backup: \(copies)/shop.db already exists (use --force to replace it)\n")

            let missing = directory.file("nowhere/shop.db")
            let run = try CLIFixtures.runTool(["backup", path, missing])
            #expect(
                run.error
                    == "literecord backup: cannot write \(missing): the directory \(directory.file("nowhere")) does not exist\n"
            )

            for itself in [path, directory.path + "/./shop.db", directory.path] {
                let run = try CLIFixtures.runTool(["backup", path, itself, "--force"])
                #expect(run.status == 1)
                #expect(run.error.hasPrefix("literecord backup: "), "\(run.error)")
                #expect(
                    run.error.hasSuffix(" is \(path) itself: give another path for the copy\n"),
                    "\(run.error)")
            }
            let db = try Database(path: path)
            #expect(try db.fetchOne(Int.self, sql: "SELECT count(*) FROM items") == 2)
        }
    }
}
