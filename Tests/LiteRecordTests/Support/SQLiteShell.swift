import Foundation
import LiteRecordTestSupport
import Testing

/// The `sqlite3` command-line shell, writing and reading a file as another tool does.
enum SQLiteShell {
    /// Its path, found on `PATH`; `nil` when it is not installed.
    static let path: String? = {
        let directories = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(
            separator: ":")
        return directories.map { "\($0)/sqlite3" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }()

    /// Runs `sql` on the database at `database` and returns the shell's exit status.
    static func run(_ sql: String, on database: String) throws -> Int32 {
        guard let path else { return -1 }
        let process = Process.child(
            running: URL(fileURLWithPath: path), arguments: ["-cmd", ".timeout 10000", database, sql])
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        return process.terminationStatus
    }

    /// Runs a script on the file (`-bail`: the first error stops it); the test fails when
    /// the shell does.
    static func write(_ file: String, _ script: String) throws {
        _ = try output(file, script)
    }

    /// Runs a script on the file and returns what the shell printed.
    static func output(_ file: String, _ script: String) throws -> String {
        let shell = Process.child(
            running: URL(fileURLWithPath: "/usr/bin/env"), arguments: ["sqlite3", "-bail", file, script])
        let pipe = Pipe()
        shell.standardOutput = pipe
        try shell.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        shell.waitUntilExit()
        try #require(shell.terminationStatus == 0, "sqlite3 failed on: \(script)")
        return String(decoding: data, as: UTF8.self)
    }
}
