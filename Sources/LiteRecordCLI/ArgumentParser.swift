import Foundation

/// What a command accepts on its command line: positional operands, options that take a value,
/// and flags.
package struct CommandSpecification: Sendable {
    /// The command's name, as typed after `literecord`.
    package let name: String
    /// One line saying what the command does, for the overview.
    package let summary: String
    /// The positional operands, in order, as shown in the usage line (`DB`, `SQL`).
    package let operands: [String]
    /// Options that take a value (`--output FILE`), with the value's name and a description.
    package let options: [Option]
    /// Flags that take no value (`--json`), with a description.
    package let flags: [Flag]
    /// Text after the option list: what the command prints, an example.
    package let discussion: String

    /// An option that takes a value.
    package struct Option: Sendable {
        package let name: String
        package let valueName: String
        package let help: String
        /// Whether it may be given several times (`--table A --table B`).
        package let repeats: Bool

        package init(_ name: String, valueName: String, help: String, repeats: Bool = false) {
            self.name = name
            self.valueName = valueName
            self.help = help
            self.repeats = repeats
        }
    }

    /// A flag without a value; `hidden` ones are left out of the help.
    package struct Flag: Sendable {
        package let name: String
        package let help: String

        package init(_ name: String, help: String) {
            self.name = name
            self.help = help
        }
    }

    package init(
        name: String, summary: String, operands: [String], options: [Option] = [], flags: [Flag] = [],
        discussion: String = ""
    ) {
        self.name = name
        self.summary = summary
        self.operands = operands
        self.options = options
        self.flags = flags
        self.discussion = discussion
    }

    /// `usage: literecord NAME [options] OPERAND...`.
    package var usageLine: String {
        var parts = ["usage: literecord", name]
        for option in options {
            parts.append("[\(option.name) \(option.valueName)]" + (option.repeats ? "..." : ""))
        }
        for flag in flags { parts.append("[\(flag.name)]") }
        parts += operands
        return parts.joined(separator: " ")
    }

    /// The full `--help` text.
    package var helpText: String {
        var lines = [summary, "", usageLine]
        let entries =
            options.map { ("\($0.name) \($0.valueName)", $0.help) } + flags.map { ($0.name, $0.help) }
            + [("-h, --help", "Show this help.")]
        let width = entries.map(\.0.count).max() ?? 0
        lines.append("")
        lines.append("options:")
        for (name, help) in entries {
            lines.append("  " + name.padding(toLength: width, withPad: " ", startingAt: 0) + "  " + help)
        }
        if !discussion.isEmpty {
            lines.append("")
            lines.append(discussion)
        }
        return lines.joined(separator: "\n") + "\n"
    }
}

/// A command line parsed against a ``CommandSpecification``.
package struct ParsedArguments: Equatable, Sendable {
    /// The operands, in the order of the specification.
    package var operands: [String] = []
    /// The values of each option given, in order (one unless the option repeats).
    package var options: [String: [String]] = [:]
    /// The flags given.
    package var flags: Set<String> = []
    /// Whether `--help` or `-h` was given (nothing else is checked then).
    package var wantsHelp = false

    /// The operand named `name` in the specification's operand list.
    package func operand(_ index: Int) -> String { operands[index] }

    /// The last value of an option, or `nil` when it was not given.
    package func option(_ name: String) -> String? { options[name]?.last }
}

/// A command line the tool cannot run: the message is printed on one line, exit status 2.
package struct UsageError: Error, Equatable, CustomStringConvertible {
    package let message: String
    package init(_ message: String) { self.message = message }
    package var description: String { message }
}

extension CommandSpecification {
    /// Parses the words after the command name.
    ///
    /// `--name value` and `--name=value` both set an option; `--` ends the options, so an
    /// operand may start with `-` (SQL such as `-- comment` or a file named `-x`). A lone `-`
    /// is an operand.
    ///
    /// - Parameter words: The arguments after the command name.
    /// - Returns: The operands, options and flags.
    /// - Throws: ``UsageError`` naming the unknown option, the missing value or operand, or
    ///   the extra operand.
    package func parse(_ words: [String]) throws(UsageError) -> ParsedArguments {
        var parsed = ParsedArguments()
        var index = 0
        var optionsEnded = false
        while index < words.count {
            let word = words[index]
            index += 1
            guard !optionsEnded, word.hasPrefix("-"), word != "-" else {
                parsed.operands.append(word)
                continue
            }
            if word == "--" {
                optionsEnded = true
                continue
            }
            if word == "-h" || word == "--help" {
                parsed.wantsHelp = true
                continue
            }
            let (name, inlineValue) = Self.split(word)
            if let option = options.first(where: { $0.name == name }) {
                let value: String
                if let inlineValue {
                    value = inlineValue
                } else if index < words.count {
                    value = words[index]
                    index += 1
                } else {
                    throw UsageError(
                        "\(self.name): option \(name) needs a value (\(name) \(option.valueName))")
                }
                if !option.repeats && parsed.options[name] != nil {
                    throw UsageError("\(self.name): option \(name) is given twice")
                }
                parsed.options[name, default: []].append(value)
            } else if flags.contains(where: { $0.name == name }) {
                guard inlineValue == nil else {
                    throw UsageError("\(self.name): flag \(name) takes no value")
                }
                parsed.flags.insert(name)
            } else {
                throw UsageError("\(self.name): unknown option \(name) (see literecord \(self.name) --help)")
            }
        }
        if parsed.wantsHelp { return parsed }
        if parsed.operands.count < operands.count {
            let missing = operands[parsed.operands.count...].joined(separator: " ")
            throw UsageError("\(name): missing \(missing) (\(usageLine))")
        }
        if parsed.operands.count > operands.count {
            let extra = parsed.operands[operands.count]
            throw UsageError("\(name): unexpected argument '\(extra)' (\(usageLine))")
        }
        return parsed
    }

    /// `--name=value` → (`--name`, `value`); `--name` → (`--name`, nil).
    private static func split(_ word: String) -> (String, String?) {
        guard word.hasPrefix("--"), let equals = word.firstIndex(of: "=") else { return (word, nil) }
        return (String(word[..<equals]), String(word[word.index(after: equals)...]))
    }
}
