import Foundation

/// The expressions of a table's generated columns, read from its `CREATE TABLE` text.
///
/// SQLite's pragmas say that a column is generated (`hidden` 2 or 3 in `table_xinfo`) but not
/// how; only the SQL kept in `sqlite_master` does. The text is scanned token by token (strings,
/// quoted names and comments may hold commas, parentheses and the word AS), the column
/// definitions are split at the commas between the table's parentheses, and a definition's
/// expression is the parenthesised text after an `AS` outside any parentheses
/// (`GENERATED ALWAYS AS (w * h)` or just `AS (w * h)`).
enum GeneratedColumnExpressions {
    /// One token and where it is in the text.
    private struct Token {
        enum Kind: Equatable { case word, quotedName, string, open, close, comma, other }
        var kind: Kind
        var range: Range<String.Index>
    }

    /// The expression text of each generated column, by column name (compared without case, as
    /// SQLite does); columns it cannot find are missing, never guessed.
    ///
    /// - Parameter createTableSQL: The table's `sql` from `sqlite_master`.
    static func expressions(in createTableSQL: String) -> [String: String] {
        let tokens = tokenize(createTableSQL)
        guard let open = tokens.firstIndex(where: { $0.kind == .open }) else { return [:] }
        var result: [String: String] = [:]
        var depth = 0
        var definition: [Token] = []
        func finish() {
            if let (name, expression) = generated(definition, in: createTableSQL) {
                result[name.lowercased()] = expression
            }
            definition = []
        }
        for token in tokens[(open + 1)...] {
            switch token.kind {
            case .open: depth += 1
            case .close:
                if depth == 0 {
                    finish()
                    return result
                }
                depth -= 1
            case .comma where depth == 0:
                finish()
                continue
            default: break
            }
            definition.append(token)
        }
        return result
    }

    /// The column name and expression when `definition` (one column definition's tokens) is a
    /// generated column.
    private static func generated(_ definition: [Token], in text: String) -> (String, String)? {
        guard let first = definition.first, first.kind == .word || first.kind == .quotedName else {
            return nil
        }
        var depth = 0
        for (index, token) in definition.enumerated() {
            switch token.kind {
            case .open: depth += 1
            case .close: depth -= 1
            case .word where depth == 0 && index > 0 && text[token.range].uppercased() == "AS":
                guard index + 1 < definition.count, definition[index + 1].kind == .open else { return nil }
                var inner = 0
                for closing in definition[(index + 1)...] {
                    if closing.kind == .open { inner += 1 }
                    if closing.kind == .close {
                        inner -= 1
                        if inner == 0 {
                            let body = text[definition[index + 1].range.upperBound..<closing.range.lowerBound]
                            return (
                                name(text[first.range]), body.trimmingCharacters(in: .whitespacesAndNewlines)
                            )
                        }
                    }
                }
                return nil
            default: break
            }
        }
        return nil
    }

    /// A column name without its quotes (`"a ""b"""` → `a "b"`, `[x]` → `x`).
    private static func name(_ token: Substring) -> String {
        guard let first = token.first, "\"`[".contains(first) else { return String(token) }
        let inner = token.dropFirst().dropLast()
        switch first {
        case "\"": return inner.replacingOccurrences(of: "\"\"", with: "\"")
        case "`": return inner.replacingOccurrences(of: "``", with: "`")
        default: return String(inner)
        }
    }

    /// Splits SQL into tokens; comments and spaces are dropped.
    private static func tokenize(_ text: String) -> [Token] {
        var tokens: [Token] = []
        var index = text.startIndex
        func advance(_ count: Int = 1) {
            for _ in 0..<count where index < text.endIndex { index = text.index(after: index) }
        }
        /// Moves past a quoted token that ends at `close`, a doubled `close` being part of it.
        func skipQuoted(_ close: Character, doubles: Bool) {
            advance()
            while index < text.endIndex {
                if text[index] == close {
                    advance()
                    guard doubles, index < text.endIndex, text[index] == close else { return }
                }
                advance()
            }
        }
        while index < text.endIndex {
            let start = index
            let character = text[index]
            let next = text.index(after: index) < text.endIndex ? text[text.index(after: index)] : nil
            let kind: Token.Kind
            switch character {
            case _ where character.isWhitespace:
                advance()
                continue
            case "-" where next == "-":
                while index < text.endIndex && text[index] != "\n" { advance() }
                continue
            case "/" where next == "*":
                advance(2)
                while index < text.endIndex && !text[index...].hasPrefix("*/") { advance() }
                advance(2)
                continue
            case "'":
                skipQuoted("'", doubles: true)
                kind = .string
            case "\"", "`":
                skipQuoted(character, doubles: true)
                kind = .quotedName
            case "[":
                skipQuoted("]", doubles: false)
                kind = .quotedName
            case "(":
                advance()
                kind = .open
            case ")":
                advance()
                kind = .close
            case ",":
                advance()
                kind = .comma
            case _ where character == "_" || character.isLetter || character.isNumber || character == "$":
                while index < text.endIndex,
                    text[index] == "_" || text[index] == "$" || text[index].isLetter || text[index].isNumber
                {
                    advance()
                }
                kind = .word
            default:
                advance()
                kind = .other
            }
            tokens.append(Token(kind: kind, range: start..<index))
        }
        return tokens
    }
}
