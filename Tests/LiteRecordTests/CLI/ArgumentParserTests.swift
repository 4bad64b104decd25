import LiteRecordCLI
import Testing

/// The tool's own command-line parser: operands, options (`--name value`, `--name=value`,
/// repeated), flags, `--`, `--help`, and a one-line error for every mistake.
@Suite struct ArgumentParserTests {
    private let specification = CommandSpecification(
        name: "generate", summary: "Write models.", operands: ["DB"],
        options: [
            .init("--table", valueName: "NAME", help: "A table.", repeats: true),
            .init("--output", valueName: "FILE", help: "A file."),
        ],
        flags: [.init("--json", help: "JSON.")])

    @Test func operandsOptionsAndFlagsInAnyOrder() throws {
        let parsed = try specification.parse([
            "--table", "a", "db.sqlite", "--json", "--table=b c", "--output=x.swift",
        ])
        #expect(parsed.operands == ["db.sqlite"])
        #expect(parsed.options["--table"] == ["a", "b c"])
        #expect(parsed.option("--output") == "x.swift")
        #expect(parsed.flags == ["--json"])
        #expect(!parsed.wantsHelp)
    }

    @Test func doubleDashEndsOptionsAndLoneDashIsAnOperand() throws {
        #expect(try specification.parse(["--", "--json"]).operands == ["--json"])
        #expect(try specification.parse(["-"]).operands == ["-"])
        #expect(try specification.parse(["--", "-x"]).flags.isEmpty)
    }

    @Test func helpWinsOverEverythingElse() throws {
        #expect(try specification.parse(["--help"]).wantsHelp)
        #expect(try specification.parse(["db", "extra", "-h"]).wantsHelp)
    }

    @Test(arguments: [
        (["--nope", "db"], "generate: unknown option --nope (see literecord generate --help)"),
        (["db", "--output"], "generate: option --output needs a value (--output FILE)"),
        (["db", "--output", "a", "--output", "b"], "generate: option --output is given twice"),
        (["db", "--json=yes"], "generate: flag --json takes no value"),
        (
            [],
            "generate: missing DB (usage: literecord generate [--table NAME]... [--output FILE] [--json] DB)"
        ),
        (
            ["a", "b"],
            "generate: unexpected argument 'b' (usage: literecord generate [--table NAME]... [--output FILE] [--json] DB)"
        ),
    ])
    func mistakesAreOneLineErrors(words: [String], message: String) {
        #expect(throws: UsageError(message)) { try specification.parse(words) }
    }

    @Test func helpTextListsEveryOption() {
        let help = specification.helpText
        #expect(help.contains("usage: literecord generate [--table NAME]... [--output FILE] [--json] DB"))
        for name in ["--table NAME", "--output FILE", "--json", "-h, --help"] {
            #expect(help.contains(name), "\(name) missing from help")
        }
    }
}
