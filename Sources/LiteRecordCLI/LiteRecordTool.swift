import Foundation
import LiteRecord

/// The `literecord` command-line tool: each command's parsing and output, runnable in-process
/// (tests call ``run(_:)`` directly; `main.swift` prints what it returns).
package enum LiteRecordTool {
    /// What running a command line produced.
    package struct Outcome: Equatable, Sendable {
        /// The exit status: 0 on success, 1 when the command failed, 2 for a bad command line.
        package var status: Int32
        /// Text for standard output.
        package var output: String
        /// Text for standard error: one line ending in a newline on failure, else empty.
        package var error: String
    }

    static let commands: [(CommandSpecification, @Sendable (ParsedArguments) throws -> String)] = [
        (SchemaCommand.specification, SchemaCommand.run),
        (QueryCommand.specification, QueryCommand.run),
        (ExplainCommand.specification, ExplainCommand.run),
        (GenerateCommand.specification, GenerateCommand.run),
        (BackupCommand.specification, BackupCommand.run),
    ]

    /// The overview printed by `literecord --help`.
    package static var overview: String {
        let width = commands.map(\.0.name.count).max() ?? 0
        let list = commands.map {
            "  " + $0.0.name.padding(toLength: width, withPad: " ", startingAt: 0) + "  " + $0.0.summary
        }
        return """
            literecord: inspect an SQLite database, generate LiteRecord models from it, query it.

            usage: literecord COMMAND [options] ARGUMENTS...

            commands:
            \(list.joined(separator: "\n"))

            Run `literecord COMMAND --help` for a command's options.

            """
    }

    /// Runs one command line (the words after the program name).
    ///
    /// - Parameter arguments: The command name and its arguments.
    /// - Returns: The exit status and the text for standard output and standard error.
    package static func run(_ arguments: [String]) -> Outcome {
        guard let name = arguments.first else {
            return Outcome(
                status: 2, output: "", error: "literecord: missing command (see literecord --help)\n")
        }
        if name == "--help" || name == "-h" || name == "help" {
            return Outcome(status: 0, output: overview, error: "")
        }
        guard let (specification, body) = commands.first(where: { $0.0.name == name }) else {
            let known = commands.map(\.0.name).joined(separator: ", ")
            let what = name.hasPrefix("-") ? "unknown option" : "unknown command"
            return Outcome(
                status: 2, output: "",
                error: "literecord: \(what) '\(name)' (commands: \(known); see literecord --help)\n")
        }
        do {
            let parsed = try specification.parse(Array(arguments.dropFirst()))
            if parsed.wantsHelp { return Outcome(status: 0, output: specification.helpText, error: "") }
            return Outcome(status: 0, output: try body(parsed), error: "")
        } catch let error as UsageError {
            return Outcome(status: 2, output: "", error: "literecord \(error.message)\n")
        } catch {
            return Outcome(
                status: 1, output: "",
                error: "literecord \(name): \(ToolError.describing(error, context: name))\n")
        }
    }
}

/// `literecord backup DB DEST`.
enum BackupCommand {
    static let specification = CommandSpecification(
        name: "backup", summary: "Copy a database consistently while other processes use it.",
        operands: ["DB", "DEST"],
        flags: [.init("--force", help: "Replace DEST when it already exists.")],
        discussion: """
            Uses SQLite's online backup API (see Database.backup(to:)): the copy is one snapshot \
            of committed transactions. DEST is a file, or a directory that receives the copy \
            under DB's file name; the copy must not exist unless --force is given.
            """)

    static func run(_ arguments: ParsedArguments) throws -> String {
        let source = arguments.operand(0)
        // As `cp`: a directory receives the copy under the source's name.
        let destination = try OutputFile.resolve(
            arguments.operand(1), defaultName: URL(fileURLWithPath: source).lastPathComponent)
        if OutputFile.isSameFile(destination, source) {
            throw ToolError("\(destination) is \(source) itself: give another path for the copy")
        }
        if FileManager.default.fileExists(atPath: destination) && !arguments.flags.contains("--force") {
            throw ToolError("\(destination) already exists (use --force to replace it)")
        }
        let db = try ReadOnlyDatabase.open(source)
        do {
            try db.backup(to: destination)
        } catch {
            throw ToolError(ToolError.describing(error, context: destination))
        }
        return ""
    }
}
