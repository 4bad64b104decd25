import Foundation
import LiteRecord
import LiteRecordTestSupport
import Testing

/// Databases the command-line tool tests run on, written as another tool would (rollback
/// journal, no LiteRecord models), and a way to run the built `literecord` executable.
enum CLIFixtures {
    /// The Northwind script: `../shared/datasets/northwind/northwind.sql` from the repository root.
    static var northwindScriptPath: String {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<4 { url.deleteLastPathComponent() }  // CLI, LiteRecordTests, Tests, file
        return url.appendingPathComponent("../shared/datasets/northwind/northwind.sql").standardized.path
    }

    /// The directory of the golden files (`Golden/`, next to this file).
    static var goldenDirectory: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Golden").path
    }

    /// A database file at `path` made by running `script`, in the DELETE journal mode.
    static func makeDatabase(at path: String, script: String) throws {
        var configuration = Configuration()
        configuration.journalMode = .delete
        configuration.foreignKeys = false  // Northwind's script violates its own keys while loading
        let db = try Database(path: path, configuration: configuration)
        try db.execute(sql: SQL(script))
    }

    /// Northwind as a file named `northwind.sqlite` in `directory`. Fails (never skips) when
    /// the script is missing.
    static func northwind(in directory: TemporaryDirectory) throws -> String {
        let script = northwindScriptPath
        try #require(
            FileManager.default.fileExists(atPath: script), "the Northwind script is missing at \(script)")
        let path = directory.file("northwind.sqlite")
        try makeDatabase(at: path, script: try String(contentsOfFile: script, encoding: .utf8))
        return path
    }

    /// The hostile-names database as `hostile.sqlite` in `directory`.
    static func hostile(in directory: TemporaryDirectory) throws -> String {
        let path = directory.file("hostile.sqlite")
        try makeDatabase(at: path, script: hostileScript)
        return path
    }

    /// Names with spaces, quotes, keywords, non-ASCII letters and edge types: a NUMERIC column
    /// holding reals and integers, a column mixing storage classes, dates that parse and that do
    /// not, booleans, an untyped empty column, a WITHOUT ROWID table, partial and expression
    /// indexes, composite keys and unique constraints.
    static let hostileScript = #"""
        CREATE TABLE "order items" (
            "order id" INTEGER NOT NULL, "line" INTEGER NOT NULL, "unit price" NUMERIC NOT NULL,
            "qty" INT DEFAULT 1, "a b" TEXT, "a_b" TEXT,
            PRIMARY KEY ("order id", "line"));
        INSERT INTO "order items" VALUES (1, 1, 10, 2, 'x', 'y'), (1, 2, 10.5, NULL, NULL, NULL), (2, 1, 3, 1, '', '');
        CREATE TABLE "select" (
            "default" TEXT PRIMARY KEY, "from" TEXT, "where" INTEGER, "class" REAL, "self" TEXT,
            "Type" TEXT, "init" BLOB);
        INSERT INTO "select" VALUES ('k1', 'a', 1, 1.5, 's', 't', x'00ff'), ('k2', NULL, NULL, NULL, NULL, NULL, NULL);
        CREATE TABLE "Quote""Table" ("it's" TEXT, "say ""hi""" TEXT, "back\slash" TEXT, "semi;colon -- x" TEXT);
        INSERT INTO "Quote""Table" VALUES ('it''s', '"hi"', '\', '; DROP TABLE x; --');
        CREATE TABLE "Größe" (
            "id" INTEGER PRIMARY KEY, "Größe" REAL, "名前" TEXT NOT NULL, "café" TEXT, "Ünïcödé" INTEGER);
        INSERT INTO "Größe" VALUES (1, 1.5, '名前', 'crème', 3), (2, NULL, 'ß', NULL, NULL);
        CREATE TABLE events (
            id INTEGER PRIMARY KEY, "happened at" DATETIME NOT NULL, "maybe date" DATE, "bad date" TIMESTAMP,
            "flag" BOOLEAN NOT NULL DEFAULT 0, "mixed", "nothing", "payload" BLOB, "2nd" TEXT,
            "URLPath" TEXT, "snake_case_name" TEXT, "ALLCAPS" INT,
            UNIQUE ("URLPath"), UNIQUE ("2nd", "snake_case_name"));
        CREATE INDEX "idx on events" ON events("flag", "happened at");
        CREATE INDEX partial_idx ON events("ALLCAPS") WHERE "ALLCAPS" > 0;
        CREATE INDEX expression_idx ON events(lower("URLPath"));
        INSERT INTO events VALUES
            (1, '1996-07-04 00:00:00.000', '2024-02-29', 'yesterday', 1, 1, NULL, x'', 'a', '/a', 's', 7),
            (2, '2024-05-17T13:45:30Z', NULL, '2024-01-01', 0, 'text', NULL, 'text as blob', 'b', '/b', 's', NULL),
            (3, '2024-05-17 13:45:30.25+02:00', '2001-01-01', NULL, 1, 2.5, NULL, NULL, NULL, NULL, NULL, -1),
            (4, '2000-01-01', NULL, NULL, 0, x'01', NULL, NULL, NULL, NULL, NULL, NULL);
        CREATE TABLE "Model" ("x" TEXT);
        INSERT INTO "Model" VALUES ('m');
        CREATE TABLE "empty" ("a" VARCHAR(10), "b" DECIMAL(10,2), "c" DOUBLE PRECISION, "d", "e" BLOB);
        CREATE TABLE "Without" ("k" TEXT PRIMARY KEY, "v" INTEGER NOT NULL) WITHOUT ROWID;
        INSERT INTO "Without" VALUES ('k', 1);
        CREATE VIEW "event view" AS SELECT id, "happened at" FROM events;
        """#

    /// Runs `script` with the `sqlite3` shell on the file at `path`, as another tool would
    /// (its own connection, its own journal mode handling); fails on the first error.
    static func shell(path: String, script: String) throws {
        let process = Process.child(
            running: URL(fileURLWithPath: "/usr/bin/sqlite3"), arguments: ["-bail", path])
        let input = Pipe()
        let errors = Pipe()
        process.standardInput = input
        process.standardOutput = FileHandle.nullDevice
        process.standardError = errors
        try process.run()
        input.fileHandleForWriting.write(Data(script.utf8))
        try input.fileHandleForWriting.close()
        let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw ToolLocationError(
                description: "sqlite3 exited with \(process.terminationStatus): \(message)")
        }
    }

    // MARK: - Running the tool

    /// What a run of `literecord` produced.
    struct Run {
        var status: Int32
        var output: String
        var error: String
    }

    /// Runs the built `literecord` with `arguments` and waits for it (at most `seconds`).
    ///
    /// With `asUnprivilegedUser`, when the tests run as root (containers, CI) the tool runs as
    /// `nobody` (uid and gid 65534, through util-linux's `setpriv`), since root ignores file
    /// permissions; otherwise it runs as the tests' own user, whom permissions already bind.
    static func runTool(
        _ arguments: [String], seconds: Double = 120, asUnprivilegedUser: Bool = false
    ) throws -> Run {
        var executable = try toolURL()
        var arguments = arguments
        if asUnprivilegedUser && geteuid() == 0 {
            let setpriv = URL(fileURLWithPath: "/usr/bin/setpriv")
            guard FileManager.default.isExecutableFile(atPath: setpriv.path) else {
                throw ToolLocationError(
                    description: "running as root, \(setpriv.path) (util-linux) is needed to run as nobody")
            }
            // A tool built with coverage (`swift test --enable-code-coverage`, as CI runs) writes
            // its profile beside the build at exit, where `nobody` may not write: its complaint
            // on standard error would be taken for the tool's. Its profile goes nowhere instead.
            arguments =
                [
                    "--reuid=65534", "--regid=65534", "--clear-groups",
                    "/usr/bin/env", "LLVM_PROFILE_FILE=/dev/null", executable.path,
                ] + arguments
            executable = setpriv
        }
        let process = Process.child(running: executable, arguments: arguments)
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        process.standardInput = FileHandle.nullDevice
        try process.run()
        // Read both pipes to the end on their own threads, so a large output cannot block the tool.
        let outputData = Locked(Data())
        let errorData = Locked(Data())
        let group = DispatchGroup()
        for (pipe, sink) in [(output, outputData), (errors, errorData)] {
            group.enter()
            Thread.detachNewThread {
                let data = pipe.fileHandleForReading.readDataToEndOfFile()
                sink.withLock { $0 = data }
                group.leave()
            }
        }
        guard group.wait(timeout: .now() + seconds) == .success else {
            process.terminate()
            throw ToolLocationError(description: "literecord \(arguments) did not finish in \(seconds) s")
        }
        process.waitUntilExit()
        return Run(
            status: process.terminationStatus,
            output: String(decoding: outputData.withLock { $0 }, as: UTF8.self),
            error: String(decoding: errorData.withLock { $0 }, as: UTF8.self))
    }

    struct ToolLocationError: Error, CustomStringConvertible {
        let description: String
    }

    /// The `literecord` executable next to the test bundle (built because the test target
    /// depends on it), as `HelperProcess` finds `LiteRecordTestHelper`; `LITERECORD_TOOL`
    /// overrides it.
    static func toolURL() throws -> URL {
        if let explicit = ProcessInfo.processInfo.environment["LITERECORD_TOOL"] {
            return URL(fileURLWithPath: explicit)
        }
        let helper = try HelperProcess.executableURL()
        let tool = helper.deletingLastPathComponent().appendingPathComponent("literecord")
        guard FileManager.default.isExecutableFile(atPath: tool.path) else {
            throw ToolLocationError(
                description: "literecord not found at \(tool.path) (swift build --build-tests)")
        }
        return tool
    }
}
