/// A mistake in the command line: printed with a hint, exit code 64 (`EX_USAGE`).
struct UsageError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// The command line, split into positional words and `--name value` options.
///
/// Hand-written to keep the example free of dependencies; swift-argument-parser does this
/// (and help text) for a real tool.
struct Arguments {
    private(set) var positionals: [String] = []
    /// `--help` or `-h` appeared (before any `--`).
    private(set) var wantsHelp = false
    private var options: [String: [String]] = [:]

    /// Splits `words`; every option but `--help` takes a value, and `--` ends the options (so
    /// `add -- --title-with-dashes body` works).
    init(_ words: some Sequence<String>) throws(UsageError) {
        var words = words.makeIterator()
        while let word = words.next() {
            if word == "--" {
                while let rest = words.next() { positionals.append(rest) }
            } else if word == "--help" || word == "-h" {
                wantsHelp = true
            } else if word.hasPrefix("--"), word.count > 2 {
                guard let value = words.next() else {
                    throw UsageError("option \(word) needs a value")
                }
                options[String(word.dropFirst(2)), default: []].append(value)
            } else {
                positionals.append(word)
            }
        }
    }

    /// Removes and returns the first positional word (the command's name).
    mutating func popFirst() -> String? {
        positionals.isEmpty ? nil : positionals.removeFirst()
    }

    /// Every value given for `--name`, in order (`--tag a --tag b`).
    func values(_ name: String) -> [String] {
        options[name] ?? []
    }

    /// The value of `--name`, or `nil`; giving it twice is an error.
    func value(_ name: String) throws(UsageError) -> String? {
        let given = values(name)
        guard given.count <= 1 else { throw UsageError("option --\(name) is given more than once") }
        return given.first
    }

    /// Removes `--name` and returns its value, or `nil`; giving it twice is an error.
    mutating func take(_ name: String) throws(UsageError) -> String? {
        let given = try value(name)
        options[name] = nil
        return given
    }

    /// Fails on options the command does not know, instead of silently ignoring a typo.
    func allowOnly(_ names: Set<String>) throws(UsageError) {
        if let unknown = options.keys.sorted().first(where: { !names.contains($0) }) {
            throw UsageError("unknown option --\(unknown)")
        }
    }

    /// Exactly `count` positional words, named in the error when some are missing or extra.
    func exactly(_ count: Int, _ what: String) throws(UsageError) -> [String] {
        guard positionals.count == count else {
            throw UsageError("expected \(what), got \(positionals.count) argument(s)")
        }
        return positionals
    }
}

/// A note id typed by the user: a positive number.
func noteID(_ text: String) throws(UsageError) -> Int64 {
    guard let id = Int64(text), id > 0 else {
        throw UsageError("a note id is a positive number, not \"\(text)\"")
    }
    return id
}

/// The value of `--name` when it must be a whole number above zero (`--until 3`).
func positiveNumber(_ text: String, for name: String) throws(UsageError) -> Int {
    guard let number = Int(text), number > 0 else {
        throw UsageError("--\(name) takes a positive number, not \"\(text)\"")
    }
    return number
}
