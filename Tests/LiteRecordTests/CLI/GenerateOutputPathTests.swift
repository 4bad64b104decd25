import Foundation
import LiteRecord
import LiteRecordTestSupport
import Testing

/// `generate --output PATH`: a directory receives `Models.swift` (or `NAME.swift` with
/// `--namespace NAME`); a path that cannot be written says why in plain words, never with a
/// Foundation error number.
@Suite(.offCooperativePool) struct GenerateOutputPathTests {
    private func database(in directory: TemporaryDirectory) throws -> String {
        let path = directory.file("shop.db")
        try CLIFixtures.shell(
            path: path,
            script:
                "CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT NOT NULL); INSERT INTO items (name) VALUES ('a');"
        )
        return path
    }

    @Test func aDirectoryReceivesModelsSwift() throws {
        try withTemporaryDirectory { directory in
            let path = try database(in: directory)
            let standardOutput = try CLIFixtures.runTool(["generate", path])
            let models = directory.file("models")
            try FileManager.default.createDirectory(atPath: models, withIntermediateDirectories: false)
            for output in [models, models + "/"] {
                let run = try CLIFixtures.runTool(["generate", path, "--output", output])
                #expect(run.status == 0 && run.output.isEmpty && run.error.isEmpty, "\(run.error)")
                let written = try String(contentsOfFile: models + "/Models.swift", encoding: .utf8)
                #expect(written == standardOutput.output)
            }
            let named = try CLIFixtures.runTool(["generate", path, "--output", models, "--namespace", "Shop"])
            #expect(named.status == 0, "\(named.error)")
            let source = try String(contentsOfFile: models + "/Shop.swift", encoding: .utf8)
            #expect(source.contains("enum Shop"))
            #expect(
                try FileManager.default.contentsOfDirectory(atPath: models).sorted() == [
                    "Models.swift", "Shop.swift",
                ])
        }
    }

    @Test func unwritablePathsAreNamedPlainly() throws {
        try withTemporaryDirectory { directory in
            let path = try database(in: directory)
            let missingParent = directory.file("nowhere/Models.swift")
            let run = try CLIFixtures.runTool(["generate", path, "--output", missingParent])
            #expect(run.status == 1 && run.output.isEmpty)
            #expect(
                run.error
                    == "literecord generate: cannot write \(missingParent): the directory \(directory.file("nowhere")) does not exist\n"
            )
            let missingDirectory = directory.file("absent") + "/"
            let slash = try CLIFixtures.runTool(["generate", path, "--output", missingDirectory])
            #expect(
                slash.error
                    == "literecord generate: cannot write \(missingDirectory): the directory \(directory.file("absent")) does not exist\n"
            )
            let file = directory.file("plain.txt")
            try Data("x".utf8).write(to: URL(fileURLWithPath: file))
            let underFile = try CLIFixtures.runTool(["generate", path, "--output", file + "/Models.swift"])
            #expect(
                underFile.error
                    == "literecord generate: cannot write \(file)/Models.swift: \(file) is a file, not a directory\n"
            )
            for failed in [run, slash, underFile] {
                #expect(!failed.error.contains("NSCocoaErrorDomain"))
            }
            // Nothing was created by the failed runs.
            #expect(
                try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted() == [
                    "plain.txt", "shop.db",
                ])
        }
    }
}
