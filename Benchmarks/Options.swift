/// The command line of `LiteRecordBenchmarks`.
struct Options: Sendable, Equatable {
    /// The default size N of a workload that does not set its own (``Workload/defaultSize``).
    static let defaultSize = 2_000
    /// The default number of recorded rounds (after one warm-up round).
    static let defaultRounds = 7
    /// The size and rounds of `--quick`, a smoke test that finishes in a few seconds (a slow
    /// workload may set a smaller ``Workload/quickSize``).
    static let quickSize = 200
    static let quickRounds = 3

    var quick = false
    /// N for every workload (`--size`), or `nil` for each workload's own: its default size, or
    /// its quick size under `--quick`.
    var size: Int?
    var rounds = Options.defaultRounds
    var filter: String?
    var jsonPath: String?
    var svgPath: String?
    var listOnly = false

    /// What the command line asks for.
    enum Command: Equatable {
        case run(Options)
        case help
    }

    static let usage = """
        Usage: LiteRecordBenchmarks [options]

        Runs each workload through hand-written sqlite3_* C code and through LiteRecord,
        interleaved, and prints the median times and the ratio LiteRecord / C.

        Options:
          --quick          Small N (\(quickSize), less for the slowest workloads), \(quickRounds) rounds
                           and 0.2 s concurrent-reads windows (instead of 1 s): a smoke
                           test for CI.
          --size N         Size parameter N, such as rows to insert, for every workload
                           (default: each workload's own, shown by --list; \(defaultSize) unless
                           the workload sets one).
          --rounds K       Measured rounds after one warm-up round (default \(defaultRounds)).
          --filter NAME    Only workloads whose slug (or group slug) contains NAME.
          --json PATH      Also write the results as a JSON array to PATH.
          --svg PATH       Also write a bar chart of the ratios to PATH.
          --list           List the workloads and exit.
          --help, -h       Show this help and exit.

        --size and --rounds override the values --quick sets.
        """

    /// Parses the arguments that follow the program name.
    ///
    /// Options taking a value accept `--size 100` and `--size=100`.
    ///
    /// - Parameter arguments: `CommandLine.arguments.dropFirst()`.
    /// - Returns: What to do.
    /// - Throws: ``UsageError`` for an unknown option, a missing or invalid value.
    static func parse(_ arguments: some Sequence<String>) throws(UsageError) -> Command {
        var options = Options()
        var explicitSize: Int?
        var explicitRounds: Int?
        var iterator = arguments.makeIterator()
        while let argument = iterator.next() {
            let (name, inlineValue) = split(argument)
            func value() throws(UsageError) -> String {
                if let inlineValue { return inlineValue }
                guard let next = iterator.next() else { throw UsageError("\(name) needs a value") }
                return next
            }
            func rejectInlineValue() throws(UsageError) {
                if inlineValue != nil { throw UsageError("\(name) takes no value") }
            }
            switch name {
            case "--help", "-h":
                return .help
            case "--quick":
                try rejectInlineValue()
                options.quick = true
            case "--list":
                try rejectInlineValue()
                options.listOnly = true
            case "--size":
                explicitSize = try positiveInteger(value(), for: name)
            case "--rounds":
                explicitRounds = try positiveInteger(value(), for: name)
            case "--filter":
                let filter = try value()
                guard !filter.isEmpty else { throw UsageError("--filter needs a non-empty NAME") }
                options.filter = filter
            case "--json":
                options.jsonPath = try path(value(), for: name)
            case "--svg":
                options.svgPath = try path(value(), for: name)
            default:
                throw UsageError("unknown option '\(argument)'")
            }
        }
        options.size = explicitSize
        options.rounds = explicitRounds ?? (options.quick ? quickRounds : defaultRounds)
        return .run(options)
    }

    /// The size N a workload runs with: `--size`, else its quick size under `--quick`, else its
    /// default size.
    ///
    /// - Parameter workload: The workload.
    /// - Returns: N.
    func size(for workload: Workload) -> Int {
        size ?? (quick ? workload.quickSize : workload.defaultSize)
    }

    /// `--size=10` → (`--size`, `10`); anything else → (argument, nil).
    private static func split(_ argument: String) -> (String, String?) {
        guard argument.hasPrefix("--"), let equals = argument.firstIndex(of: "=") else {
            return (argument, nil)
        }
        return (String(argument[..<equals]), String(argument[argument.index(after: equals)...]))
    }

    private static func positiveInteger(_ text: String, for name: String) throws(UsageError) -> Int {
        guard let number = Int(text), number > 0 else {
            throw UsageError("\(name) needs a positive integer, not '\(text)'")
        }
        return number
    }

    private static func path(_ text: String, for name: String) throws(UsageError) -> String {
        guard !text.isEmpty, !text.hasPrefix("--") else { throw UsageError("\(name) needs a PATH") }
        return text
    }
}

/// A command line the program does not understand; reported with the usage, exit status 2.
struct UsageError: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) {
        self.description = description
    }
}
