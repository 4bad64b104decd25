import Foundation
import LiteRecord
import LiteRecordPostgres
import Testing

// `?` → `$n` (issue 29, item 14): every lexical form of PostgreSQL where a `?` is text, checked
// by hand and by a seeded fuzz against the server's own parser.

@Suite struct PostgresPlaceholderTests {
    @Test(arguments: [
        // (SQL, numbered SQL, parameters)
        (
            "SELECT '?', \"a?b\", ? -- what?\n, $$ ? $$, ? FROM t WHERE x = 'it''s ?' AND y = ?",
            "SELECT '?', \"a?b\", $1 -- what?\n, $$ ? $$, $2 FROM t WHERE x = 'it''s ?' AND y = $3", 3
        ),
        ("SELECT /* ? */ ?", "SELECT /* ? */ $1", 1),
        ("SELECT /* a /* nested ? */ still ? */ ?", "SELECT /* a /* nested ? */ still ? */ $1", 1),
        ("SELECT /* **/ ?", "SELECT /* **/ $1", 1),
        ("SELECT $tag$ it's ? $$ ? $tag$, ?", "SELECT $tag$ it's ? $$ ? $tag$, $1", 1),
        ("SELECT $a$ $b$ ? $b$ $a$, ?", "SELECT $a$ $b$ ? $b$ $a$, $1", 1),
        ("SELECT $é$ ? $é$, ?", "SELECT $é$ ? $é$, $1", 1),
        ("SELECT E'it\\'s ?', ?", "SELECT E'it\\'s ?', $1", 1),
        ("SELECT e'\\\\', ?, E'?''?'", "SELECT e'\\\\', $1, E'?''?'", 1),
        ("SELECT 'a\\', ?", "SELECT 'a\\', $1", 1),  // a backslash ends nothing in '…'
        ("SELECT U&'d\\0061?', U&\"?\", ?", "SELECT U&'d\\0061?', U&\"?\", $1", 1),
        ("SELECT B'1', X'1F', N'?', ?", "SELECT B'1', X'1F', N'?', $1", 1),
        ("SELECT a$b$c, ? FROM t", "SELECT a$b$c, $1 FROM t", 1),  // `$` inside an identifier
        ("SELECT $1, '?' FROM t", "SELECT $1, '?' FROM t", 0),  // `$1` opens no dollar quote
        ("SELECT type'?' , ?", "SELECT type'?' , $1", 1),  // `e` ending a word opens no E-string
        ("SELECT ? -- comment\r?", "SELECT $1 -- comment\r$2", 2),
        ("SELECT 'unterminated ?", "SELECT 'unterminated ?", 0),
        ("SELECT /* unterminated ?", "SELECT /* unterminated ?", 0),
        ("SELECT $$ unterminated ?", "SELECT $$ unterminated ?", 0),
        ("SELECT ?|?", "SELECT $1|$2", 2),  // jsonb's `?|` is not an operator here
    ])
    func numbering(_ sql: String, _ numbered: String, _ count: Int) {
        let result = PostgresPlaceholders(numbering: sql)
        #expect(result.text == numbered)
        #expect(result.count == count)
    }

    @Test(arguments: [
        ("UPDATE t SET x = ? WHERE y = 'SET a = 1'", PostgresSessionChange.none),
        ("SET LOCAL statement_timeout = 50", .none),
        ("set transaction isolation level serializable", .none),
        ("SET CONSTRAINTS ALL DEFERRED", .none),
        ("BEGIN ISOLATION LEVEL READ COMMITTED", .none),
        ("INSERT INTO t (a) VALUES (1) ON CONFLICT DO NOTHING", .none),
        ("SELECT pg_advisory_xact_lock(1)", .none),
        ("-- SET x = 1\nSELECT 1", .none),
        ("SET statement_timeout = 50", .settings),
        ("set Session statement_timeout to 50", .settings),
        ("BEGIN; SET search_path = x; COMMIT", .settings),
        ("SELECT set_config('a.b', 'c', false)", .settings),
        ("SET SESSION AUTHORIZATION nobody", .everything),
        ("SELECT pg_advisory_lock(1)", .everything),
        ("SELECT pg_try_advisory_lock_shared(1)", .everything),
        ("CREATE TEMP TABLE x (a int)", .everything),
        ("CREATE TEMPORARY TABLE x (a int)", .everything),
        ("CREATE TABLE pg_temp.x (a int)", .everything),
        ("LISTEN channel", .everything),
        ("DECLARE c CURSOR WITH HOLD FOR SELECT 1", .everything),
        ("PREPARE p AS SELECT 1", .everything),
        ("DO $$ BEGIN PERFORM 1; END $$", .everything),
        ("CALL procedure()", .everything),
    ])
    func sessionChanges(_ sql: String, _ change: PostgresSessionChange) {
        #expect(PostgresPlaceholders(numbering: sql).sessionChange == change)
    }
}

@Suite(.enabled(if: PostgresTestServer.isAvailable, PostgresTestServer.skipMessage))
struct PostgresPlaceholderServerTests {
    /// One column of a fuzzed `SELECT`: its SQL, the text the server must return for it, and
    /// the argument its parameter binds, if it has one.
    struct Fragment {
        var sql: String
        var expected: String
        var argument: DatabaseValue?
    }

    /// The seeded generator of the parity checks, so that a failure is reproduced by its seed.
    typealias Generator = SplitMix64

    /// The pieces text inside a literal or comment is made of: everything that opens, closes or
    /// escapes something in one form or another.
    static let pieces = [
        "?", "??", "a", "é", " ", "\\", "\"", "''", "$", "$$", "$t$", "-", "--", "/*", "*/", ";", "\n", "x1",
        "E'", "?|", "U&",
    ]

    static func text(_ generator: inout Generator, excluding forbidden: [String] = []) -> String {
        var text = ""
        for _ in 0..<generator.below(6) {
            let piece = generator.pick(pieces)
            if forbidden.contains(where: { piece.contains($0) }) { continue }
            text += piece
        }
        return text
    }

    static func fragment(_ generator: inout Generator) -> Fragment {
        switch generator.below(8) {
        case 0, 1:
            let value = text(&generator)
            return Fragment(sql: "?::text", expected: value, argument: .text(value))
        case 2:
            let value = text(&generator)
            return Fragment(sql: "'" + value.replacingOccurrences(of: "'", with: "''") + "'", expected: value)
        case 3:
            let value = text(&generator)
            var sql = ""
            for character in value {
                switch character {
                case "\\": sql += "\\\\"
                case "'": sql += generator.below(2) == 0 ? "\\'" : "''"
                case "?": sql += generator.below(2) == 0 ? "\\?" : "?"  // `\?` is `?`
                default: sql.append(character)
                }
            }
            return Fragment(sql: generator.pick(["E'", "e'"]) + sql + "'", expected: value)
        case 4:
            let tag = generator.pick(["", "t", "q_1", "é", "T2"])
            let delimiter = "$" + tag + "$"
            let value = text(&generator, excluding: ["$"])
            return Fragment(sql: delimiter + value + delimiter, expected: value)
        case 5:
            let value = text(&generator)
            let sql = value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(
                of: "'", with: "''")
            return Fragment(sql: "U&'" + sql + "'", expected: value)
        case 6:
            let alias = text(&generator).replacingOccurrences(of: "\"", with: "\"\"")
            return Fragment(
                sql: "(SELECT a$1 FROM (SELECT 'v'::text AS a$1) AS \"s\(alias)\")", expected: "v")
        default:
            let value = text(&generator)
            return Fragment(sql: "(?::text || ?::text)", expected: value + value, argument: .text(value))
        }
    }

    static func comment(_ generator: inout Generator) -> String {
        switch generator.below(4) {
        case 0: return " /* " + text(&generator, excluding: ["/*", "*/", "/", "*"]) + " */ "
        case 1:
            return " /* " + text(&generator, excluding: ["/", "*"]) + " /* "
                + text(&generator, excluding: ["/", "*"]) + " */ " + text(&generator, excluding: ["/", "*"])
                + " */ "
        case 2: return " -- " + text(&generator, excluding: ["\n", "\r"]) + "\n"
        default: return " "
        }
    }

    /// A `SELECT` of random fragments separated by random comments, with its expected row.
    static func statement(_ generator: inout Generator) -> (
        sql: String, expected: [String], arguments: [DatabaseValue]
    ) {
        var sql = "SELECT"
        var expected: [String] = []
        var arguments: [DatabaseValue] = []
        for index in 0..<(1 + generator.below(5)) {
            let fragment = fragment(&generator)
            sql += (index == 0 ? "" : ",") + comment(&generator) + fragment.sql + " AS \"c\(index)?\""
            expected.append(fragment.expected)
            if let argument = fragment.argument {
                arguments.append(argument)
                if fragment.sql.hasPrefix("(?::text || ") { arguments.append(argument) }
            }
        }
        return (sql + comment(&generator), expected, arguments)
    }

    /// 300 random statements run with their arguments: the server returns every literal's text
    /// unchanged and every argument where it was bound.
    @Test func fuzzedStatementsReturnTheirLiteralsAndArguments() throws {
        let pg = try PostgresTestServer.freshDatabase()
        var generator = Generator(state: 29)
        for caseNumber in 0..<300 {
            let (sql, expected, arguments) = Self.statement(&generator)
            let rows = try pg.fetchRows(sql: SQL(sql, arguments: StatementArguments(positional: arguments)))
            let values = try rows.first.map { row in
                try (0..<row.count).map { try row.value(String.self, at: $0) }
            }
            #expect(values == expected, "case \(caseNumber): \(sql)")
        }
    }

    /// The same statements: the number of parameters LiteRecord counts is the number the
    /// server's parser finds in the numbered text (`PREPARE`, then `pg_prepared_statements`).
    @Test func fuzzedParameterCountsMatchTheServersParse() throws {
        let pg = try PostgresTestServer.freshDatabase()
        var generator = Generator(state: 29)
        for caseNumber in 0..<300 {
            let (sql, _, arguments) = Self.statement(&generator)
            let numbered = PostgresPlaceholders(numbering: sql)
            #expect(numbered.count == arguments.count, "case \(caseNumber): \(sql)")
            let name = "fuzz_\(caseNumber)"
            let serverCount = try pg.transaction { tx in
                try tx.execute(sql: SQL(verbatim: "PREPARE \(name) AS " + numbered.text))
                defer { _ = try? tx.execute(sql: SQL(verbatim: "DEALLOCATE \(name)")) }
                return try tx.fetchOne(
                    Int.self,
                    sql:
                        "SELECT cardinality(parameter_types) FROM pg_prepared_statements WHERE name = \(name)"
                )
            }
            #expect(serverCount == arguments.count, "case \(caseNumber): \(sql)")
        }
    }

    @Test func jsonbQuestionMarkOperatorsAreParametersSoTheFunctionsAreUsed() throws {
        let pg = try PostgresTestServer.freshDatabase()
        let error = #expect(throws: DatabaseError.self) {
            try pg.fetchOne(Bool.self, sql: "SELECT '{\"a\": 1}'::jsonb ? 'a'")
        }
        #expect(error?.resultCode == .misuse)
        #expect(error?.message == "the SQL has 1 parameters but 0 arguments were given")
        let key = "a"
        #expect(try pg.fetchOne(Bool.self, sql: "SELECT jsonb_exists('{\"a\": 1}'::jsonb, \(key))") == true)
    }
}
