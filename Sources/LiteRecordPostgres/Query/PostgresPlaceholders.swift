/// LiteRecord's `?` parameters numbered as PostgreSQL's `$1`, `$2`, ...: one pass of a lexer
/// that knows every place of PostgreSQL's syntax where a `?` is text, not a parameter.
///
/// The forms skipped whole, as PostgreSQL's own lexer reads them ("Lexical Structure" in its
/// manual):
/// - `'…'` strings, where `''` is a quote and a backslash an ordinary character (every
///   LiteRecord connection sets `standard_conforming_strings`); the `B'…'`, `X'…'`, `N'…'` and
///   `U&'…'` forms lex the same way;
/// - `E'…'` strings, where a backslash escapes the next character (`\'` included) and `''` is
///   a quote too; an `E` opens one only as a token of its own (`type'…'` is an identifier and
///   a string);
/// - `"…"` identifiers (`""` is a quote), `U&"…"` too;
/// - `$$…$$` and `$tag$…$tag$` dollar-quoted strings, closed by the first repetition of their
///   delimiter; a `$` inside an identifier (`a$b`) or a positional parameter (`$1`) opens none;
/// - `--` comments to the end of the line (`\n` or `\r`), and `/* … */` comments, which nest.
///
/// Everywhere else every `?` is a parameter, including where PostgreSQL would read it as (part
/// of) an operator: `jsonb`'s `?`, `?|` and `?&` are written `jsonb_exists`,
/// `jsonb_exists_any` and `jsonb_exists_all` in LiteRecord's SQL.
///
/// The same pass notes the statements that may change the connection's session state, for
/// ``PostgresSessionReset``.
package struct PostgresPlaceholders: Sendable {
    /// The SQL text with `$n` in place of each parameter `?`.
    package let text: String
    /// How many parameters the text has.
    package let count: Int
    /// What the text's statements may leave behind on the connection after they run.
    package let sessionChange: PostgresSessionChange
    /// Whether the text is one statement PostgreSQL can prepare (a `SELECT`, `INSERT`,
    /// `UPDATE`, `DELETE`, `MERGE`, `VALUES` or `WITH`), which ``PostgresStatementCache`` may
    /// keep prepared.
    package let isPreparable: Bool
    /// Whether the text removes prepared statements (`DEALLOCATE`, `DISCARD`).
    package let dropsPreparedStatements: Bool

    /// Numbers the parameters of `sql`.
    ///
    /// Unterminated strings, identifiers and comments run to the end of the text, unchanged:
    /// the server reports them as syntax errors.
    ///
    /// - Parameter sql: SQL text with `?` parameters.
    package init(numbering sql: String) {
        var lexer = Lexer(Array(sql.utf8))
        lexer.run()
        text = String(decoding: lexer.output, as: UTF8.self)
        count = lexer.count
        sessionChange = lexer.detector.change
        isPreparable = lexer.detector.statementCount == 1 && lexer.detector.firstStatementIsPreparable
        dropsPreparedStatements = lexer.detector.dropsPreparedStatements
    }
}

/// The lexer's state: the input bytes, the position, and what it wrote. It works on UTF-8 bytes:
/// every character that matters is ASCII, and a byte of a multi-byte character is an identifier
/// character, as in PostgreSQL's lexer.
private struct Lexer {
    let input: [UInt8]
    var position = 0
    var output: [UInt8] = []
    var count = 0
    var detector = PostgresSessionChangeDetector()

    init(_ input: [UInt8]) {
        self.input = input
        output.reserveCapacity(input.count + 8)
    }

    mutating func run() {
        while position < input.count {
            let byte = input[position]
            switch byte {
            case UInt8(ascii: "?"):
                count += 1
                output.append(UInt8(ascii: "$"))
                output.append(contentsOf: String(count).utf8)
                position += 1
            case UInt8(ascii: "'"), UInt8(ascii: "\""):
                copyQuoted(backslashEscapes: false)
            case UInt8(ascii: "-") where next == UInt8(ascii: "-"):
                copyLineComment()
            case UInt8(ascii: "/") where next == UInt8(ascii: "*"):
                copyBlockComment()
            case UInt8(ascii: "$"):
                copyDollarToken()
            case UInt8(ascii: ";"):
                detector.endStatement()
                copy(1)
            case _ where Lexer.isIdentifierStart(byte):
                copyIdentifier()
            default:
                copy(1)
            }
        }
    }

    private var next: UInt8? { position + 1 < input.count ? input[position + 1] : nil }

    private mutating func copy(_ length: Int) {
        let end = min(position + length, input.count)
        output.append(contentsOf: input[position..<end])
        position = end
    }

    /// A string or quoted identifier from its opening quote to its closing one; a doubled quote
    /// is a quote inside it, and with `backslashEscapes` (an `E'…'` string) so is `\'`.
    private mutating func copyQuoted(backslashEscapes: Bool) {
        let quote = input[position]
        var end = position + 1
        while end < input.count {
            let byte = input[end]
            if backslashEscapes && byte == UInt8(ascii: "\\") {
                end += 2
            } else if byte == quote {
                if end + 1 < input.count && input[end + 1] == quote {
                    end += 2
                } else {
                    end += 1
                    break
                }
            } else {
                end += 1
            }
        }
        copy(end - position)
    }

    private mutating func copyLineComment() {
        var end = position + 2
        while end < input.count && input[end] != UInt8(ascii: "\n") && input[end] != UInt8(ascii: "\r") {
            end += 1
        }
        copy(end - position)
    }

    /// A `/* … */` comment, with the comments nested in it.
    private mutating func copyBlockComment() {
        var depth = 0
        var end = position
        repeat {
            if end + 1 < input.count && input[end] == UInt8(ascii: "/") && input[end + 1] == UInt8(ascii: "*")
            {
                depth += 1
                end += 2
            } else if end + 1 < input.count && input[end] == UInt8(ascii: "*")
                && input[end + 1] == UInt8(ascii: "/")
            {
                depth -= 1
                end += 2
            } else {
                end += 1
            }
        } while depth > 0 && end < input.count
        copy(end - position)
    }

    /// At a `$` outside an identifier: a dollar-quoted string (`$$…$$`, `$tag$…$tag$`), a
    /// positional parameter (`$1`, copied as it is), or a lone `$`.
    private mutating func copyDollarToken() {
        var tagEnd = position + 1
        if tagEnd < input.count && Lexer.isIdentifierStart(input[tagEnd]) {
            while tagEnd < input.count && Lexer.isIdentifierStart(input[tagEnd])
                || tagEnd < input.count && Lexer.isDigit(input[tagEnd])
            {
                tagEnd += 1
            }
        }
        guard tagEnd < input.count, input[tagEnd] == UInt8(ascii: "$") else {
            var end = position + 1
            while end < input.count && Lexer.isDigit(input[end]) { end += 1 }
            copy(end - position)
            return
        }
        let delimiter = input[position...tagEnd]
        var end = tagEnd + 1
        while end < input.count {
            if input[end] == UInt8(ascii: "$") && input[end...].starts(with: delimiter) {
                end += delimiter.count
                break
            }
            end += 1
        }
        copy(min(end, input.count) - position)
    }

    /// An unquoted identifier or key word, `$` and digits included; an `E` or `e` alone before a
    /// quote opens an escape string.
    private mutating func copyIdentifier() {
        var end = position + 1
        while end < input.count
            && (Lexer.isIdentifierStart(input[end]) || Lexer.isDigit(input[end])
                || input[end] == UInt8(ascii: "$"))
        {
            end += 1
        }
        let isEscapeString =
            end == position + 1 && (input[position] | 0x20) == UInt8(ascii: "e") && end < input.count
            && input[end] == UInt8(ascii: "'")
        if isEscapeString {
            copy(1)
            copyQuoted(backslashEscapes: true)
            return
        }
        detector.word(input[position..<end])
        copy(end - position)
    }

    static func isIdentifierStart(_ byte: UInt8) -> Bool {
        (byte | 0x20) >= UInt8(ascii: "a") && (byte | 0x20) <= UInt8(ascii: "z") || byte == UInt8(ascii: "_")
            || byte >= 0x80
    }

    static func isDigit(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
    }
}
