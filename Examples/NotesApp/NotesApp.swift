import Foundation
import LiteRecord
import LiteRecordPostgres

/// `notes`: a command-line notebook on a SQLite file or a PostgreSQL database, with one code
/// path for both: the commands are written over `ModelDatabase`.
///
/// Exit codes: 0 on success, 1 when the request fails (no such note, a database error),
/// 64 (`EX_USAGE`) for a mistake in the command line.
@main
enum NotesApp {
    static let usage = """
        usage: notes [--database PATH|URL] COMMAND [ARGUMENTS]

          --database notes.sqlite            a SQLite file (the default; --db is the same option)
          --database postgresql://HOST/DB    a PostgreSQL database (also postgres://)

          add TITLE BODY [--tag TAG]... [--notebook NAME]   add a note (to "Inbox" by default)
          list [--notebook NAME] [--tag TAG]                notes, pinned first, newest first
          search WORDS...                                   full-text search, best match first
          notebooks                                         every notebook with its notes
          tag ID TAG...                                     add tags to a note
          pin ID | unpin ID                                 pinned notes come first
          delete ID | delete --notebook NAME                a note, or a notebook and its notes
          migrate [--to MIGRATION]                          apply schema migrations (all by default)
          migrations                                        applied and pending migrations
          watch [--until N] [--timeout SECONDS]             print the titles live, one line per change;
                                                            --until: stop at N notes (fail after
                                                            --timeout, 60 s by default)
        """

    static let commands: Set = [
        "add", "list", "search", "notebooks", "tag", "pin", "unpin", "delete", "migrate", "migrations",
        "watch",
    ]

    @MainActor
    static func main() async {
        let words = CommandLine.arguments.dropFirst()
        if words.isEmpty {
            printError("missing command\n\(usage)")
            exit(64)
        }
        do {
            let arguments = try Arguments(words)
            if arguments.wantsHelp || arguments.positionals.first == "help" {
                print(usage)
                exit(0)
            }
            try await run(arguments)
        } catch let error as UsageError {
            printError("\(error)\nRun `notes --help` for usage.")
            exit(64)
        } catch {
            // NotesError, and LiteRecord's errors, whose descriptions name the cause.
            printError("\(error)")
            exit(1)
        }
    }

    @MainActor
    static func run(_ arguments: Arguments) async throws {
        var arguments = arguments
        guard let command = arguments.popFirst() else { throw UsageError("missing command") }
        // Checked before opening: a typo must not create a database file.
        guard commands.contains(command) else { throw UsageError("unknown command \"\(command)\"") }
        let database = try arguments.take("database")
        let alias = try arguments.take("db")
        if database != nil, alias != nil { throw UsageError("give --database or --db, not both") }
        let location = database ?? alias ?? "notes.sqlite"
        // The only place that knows the backend: everything below runs on `some ModelDatabase`.
        if location.hasPrefix("postgresql://") || location.hasPrefix("postgres://") {
            try await run(command, arguments, on: PostgresDatabase(url: location))
        } else {
            try await run(command, arguments, on: Database(path: location))
        }
    }

    /// Runs a command on an open database, whichever backend it is.
    @MainActor
    static func run(_ command: String, _ arguments: Arguments, on db: some ModelDatabase) async throws {
        let migrator = NotesMigrations.migrator

        switch command {
        case "migrate":
            try arguments.allowOnly(["to"])
            _ = try arguments.exactly(0, "no argument")
            if let target = try arguments.value("to") {
                try migrator.migrate(db, upTo: target)
            } else {
                try migrator.migrate(db)
            }
            print("Applied: \(try migrator.appliedMigrations(in: db).joined(separator: ", "))")
            return
        case "migrations":  // before `migrate` below, to show what is pending
            try arguments.allowOnly([])
            _ = try arguments.exactly(0, "no argument")
            let applied = try migrator.appliedMigrations(in: db)
            for name in migrator.migrationNames {
                print("\(applied.contains(name) ? "applied" : "pending")  \(name)")
            }
            return
        default:
            break
        }
        // Every launch brings the database up to date before anything reads it.
        try migrator.migrate(db)
        let notes = Notes(db: db)

        switch command {
        case "add":
            try arguments.allowOnly(["tag", "notebook"])
            let words = try arguments.exactly(2, "a title and a body")
            try notes.add(
                title: words[0], body: words[1], tags: arguments.values("tag"),
                notebook: arguments.value("notebook") ?? "Inbox")
        case "list":
            try arguments.allowOnly(["notebook", "tag"])
            _ = try arguments.exactly(0, "no argument (filter with --notebook or --tag)")
            try notes.list(notebook: arguments.value("notebook"), tag: arguments.value("tag"))
        case "search":
            try arguments.allowOnly([])
            guard !arguments.positionals.isEmpty else { throw UsageError("search needs words to find") }
            try notes.search(arguments.positionals.joined(separator: " "))
        case "notebooks":
            try arguments.allowOnly([])
            _ = try arguments.exactly(0, "no argument")
            try notes.notebooks()
        case "tag":
            try arguments.allowOnly([])
            guard arguments.positionals.count >= 2 else { throw UsageError("usage: tag ID TAG...") }
            try notes.tag(noteID(arguments.positionals[0]), with: Array(arguments.positionals.dropFirst()))
        case "pin", "unpin":
            try arguments.allowOnly([])
            let words = try arguments.exactly(1, "a note id")
            try notes.pin(noteID(words[0]), command == "pin")
        case "delete":
            try arguments.allowOnly(["notebook"])
            if let name = try arguments.value("notebook") {
                _ = try arguments.exactly(0, "either a note id or --notebook NAME")
                try notes.deleteNotebook(named: name)
            } else {
                let words = try arguments.exactly(1, "a note id")
                try notes.delete(noteID(words[0]))
            }
        case "watch":
            try arguments.allowOnly(["until", "timeout"])
            _ = try arguments.exactly(0, "no argument (stop with --until N)")
            let count = try arguments.value("until").map { try positiveNumber($0, for: "until") }
            let seconds = try arguments.value("timeout").map { try positiveNumber($0, for: "timeout") }
            // A count to reach fails after a minute by default; a plain watch runs until interrupted.
            let timeout = seconds.map { Duration.seconds($0) } ?? (count == nil ? nil : .seconds(60))
            try await NotesWatch(db: db).run(until: count, timeout: timeout)
        default:
            throw UsageError("unknown command \"\(command)\"")
        }
    }

    static func printError(_ message: String) {
        FileHandle.standardError.write(Data("notes: \(message)\n".utf8))
    }
}
