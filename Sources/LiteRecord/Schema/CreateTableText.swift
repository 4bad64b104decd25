import Foundation

/// The text of a `CREATE TABLE` statement as SQLite stores it in `sqlite_master`, read just
/// well enough to remove the `NOT NULL` constraint of some columns and leave every other
/// character as it was, and to find the expressions of generated columns (which SQLite's
/// pragmas do not give; `literecord schema` shows them).
///
/// The text is split into SQL tokens (words, quoted names, string literals, comments,
/// punctuation), the column definitions are found between the outermost parentheses, and in a
/// column's definition only what stands outside parentheses belongs to the column: a
/// `NOT NULL` there is a constraint of the column (a `CHECK (x IS NOT NULL)` or a comment
/// holding `NOT NULL` stays), an `AS (...)` there gives a generated column's expression (a
/// `CAST(x AS INT)` does not). The constraint's name (`CONSTRAINT "n" NOT NULL`) and conflict
/// clause (`ON CONFLICT FAIL`) go with it.
package struct CreateTableText {
    /// One SQL token: its kind and its range of UTF-8 bytes in the text.
    private struct Token {
        enum Kind { case word, quoted, string, comment, space, punctuation }
        let kind: Kind
        let range: Range<Int>
    }

    private let bytes: [UInt8]
    private let tokens: [Token]

    /// Reads `sql`, or returns `nil` when it is not one complete statement of plain tokens
    /// (an unterminated quote or comment).
    package init?(_ sql: String) {
        bytes = Array(sql.utf8)
        guard let tokens = CreateTableText.tokenize(bytes) else { return nil }
        self.tokens = tokens
    }

    /// The statement without the `NOT NULL` constraints of `columns` (names compared ignoring
    /// ASCII case, as SQLite compares them), or `nil` when a column is not found or has no
    /// `NOT NULL` the reading can see: then the text is not one LiteRecord can rewrite faithfully.
    func removingNotNull(from columns: Set<String>) -> String? {
        guard let definitions = definitions() else { return nil }
        let wanted = Set(columns.map { $0.lowercased() })
        var found = Set<String>()
        var removed: [Range<Int>] = []
        for definition in definitions {
            guard let first = definition.first, let name = identifier(first)?.lowercased(),
                wanted.contains(name), !isTableConstraint(first)
            else { continue }
            let ranges = notNullRanges(in: definition)
            guard !ranges.isEmpty else { return nil }
            found.insert(name)
            removed += ranges
        }
        guard found == wanted else { return nil }
        var result: [UInt8] = []
        var position = 0
        for range in removed.sorted(by: { $0.lowerBound < $1.lowerBound }) {
            result += bytes[position..<range.lowerBound]
            position = range.upperBound
        }
        result += bytes[position...]
        return String(decoding: result, as: UTF8.self)
    }

    /// The expression of each generated column (`GENERATED ALWAYS AS (w * h) VIRTUAL`, or just
    /// `AS (w * h)`) as written between its parentheses, by column name lowercased; a column
    /// whose expression is not found is missing, never guessed.
    package func generatedColumnExpressions() -> [String: String] {
        var expressions: [String: String] = [:]
        for definition in definitions() ?? [] {
            guard let first = definition.first, let name = identifier(first), !isTableConstraint(first),
                let expression = generatedExpression(in: definition)
            else { continue }
            expressions[name.lowercased()] = expression
        }
        return expressions
    }

    /// The column and table-constraint definitions, each as the indexes of its significant
    /// tokens (no space or comment): the tokens between the outer parentheses, split at commas
    /// outside nested parentheses. `nil` when the text is no `CREATE TABLE` with a column list.
    private func definitions() -> [[Int]]? {
        let significant = tokens.indices.filter { tokens[$0].kind != .space && tokens[$0].kind != .comment }
        guard significant.count >= 4, word(significant[0]) == "CREATE" else { return nil }
        // `CREATE [TEMP] TABLE [IF NOT EXISTS] [schema.]name (`, not a virtual table, nor
        // `CREATE TABLE name AS SELECT ...`, whose first parenthesis is no column list.
        guard let open = significant.first(where: { text($0) == "(" }),
            significant.prefix(while: { $0 < open }).allSatisfy({ index in
                (tokens[index].kind != .punctuation || text(index) == ".")
                    && word(index) != "AS" && word(index) != "VIRTUAL"
            })
        else { return nil }
        var definitions: [[Int]] = [[]]
        var depth = 0
        for index in significant where index > open {
            let token = text(index)
            if token == "(" { depth += 1 }
            if token == ")" {
                if depth == 0 { return definitions }
                depth -= 1
            }
            if token == "," && depth == 0 {
                definitions.append([])
            } else {
                definitions[definitions.count - 1].append(index)
            }
        }
        return nil
    }

    /// The text between the parentheses after an `AS` outside parentheses in one column
    /// definition, trimmed, or `nil` when there is none.
    private func generatedExpression(in definition: [Int]) -> String? {
        var depth = 0
        for (position, index) in definition.enumerated() {
            if text(index) == "(" { depth += 1 }
            if text(index) == ")" { depth -= 1 }
            guard depth == 0, position > 0, word(index) == "AS" else { continue }
            guard position + 1 < definition.count, text(definition[position + 1]) == "(" else { return nil }
            let open = definition[position + 1]
            var inner = 0
            for close in definition[(position + 1)...] {
                if text(close) == "(" { inner += 1 }
                if text(close) == ")" { inner -= 1 }
                guard inner == 0 else { continue }
                let body = String(
                    decoding: bytes[tokens[open].range.upperBound..<tokens[close].range.lowerBound],
                    as: UTF8.self)
                return body.trimmingCharacters(in: .whitespacesAndNewlines)
            }
            return nil
        }
        return nil
    }

    /// The byte ranges of the `NOT NULL` constraints of one column definition, each with the
    /// white space before it, its `CONSTRAINT name` and its `ON CONFLICT` clause.
    private func notNullRanges(in definition: [Int]) -> [Range<Int>] {
        var ranges: [Range<Int>] = []
        var depth = 0
        var position = 1  // after the column name
        while position < definition.count {
            let index = definition[position]
            if text(index) == "(" { depth += 1 }
            if text(index) == ")" { depth -= 1 }
            guard depth == 0, word(index) == "NOT", position + 1 < definition.count,
                word(definition[position + 1]) == "NULL"
            else {
                position += 1
                continue
            }
            var start = position
            if start >= 2, word(definition[start - 2]) == "CONSTRAINT",
                identifier(definition[start - 1]) != nil
            {
                start -= 2
            }
            var end = position + 1
            if end + 2 < definition.count, word(definition[end + 1]) == "ON",
                word(definition[end + 2]) == "CONFLICT", end + 3 < definition.count
            {
                end += 3
            }
            // Take the white space right before the constraint along with it, unless it ends a
            // `--` comment, which would then run on over the text that follows.
            var lower = definition[start]
            if lower > 0, tokens[lower - 1].kind == .space, lower < 2 || tokens[lower - 2].kind != .comment {
                lower -= 1
            }
            ranges.append(tokens[lower].range.lowerBound..<tokens[definition[end]].range.upperBound)
            position = end + 1
        }
        return ranges
    }

    private func isTableConstraint(_ index: Int) -> Bool {
        guard let keyword = word(index) else { return false }
        return ["CONSTRAINT", "PRIMARY", "UNIQUE", "CHECK", "FOREIGN"].contains(keyword)
    }

    private func text(_ index: Int) -> String {
        String(decoding: bytes[tokens[index].range], as: UTF8.self)
    }

    /// An unquoted word, uppercased (ASCII), or `nil`.
    private func word(_ index: Int) -> String? {
        tokens[index].kind == .word ? text(index).uppercased() : nil
    }

    /// The name a word or a quoted name (`"a""b"`, `[a]`, `` `a` ``, or `'a'`, which SQLite
    /// takes as a name where a name must be) stands for.
    private func identifier(_ index: Int) -> String? {
        let token = text(index)
        switch tokens[index].kind {
        case .word: return token
        case .quoted, .string:
            guard let quote = token.first, token.count >= 2 else { return nil }
            let inner = String(token.dropFirst().dropLast())
            if quote == "[" { return inner }
            return inner.replacingOccurrences(of: String(repeating: quote, count: 2), with: String(quote))
        default: return nil
        }
    }

    private static func tokenize(_ bytes: [UInt8]) -> [Token]? {
        var tokens: [Token] = []
        var index = 0
        func isWordByte(_ byte: UInt8) -> Bool {
            byte >= 0x80 || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "$")
                || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
                || (byte | 0x20 >= UInt8(ascii: "a") && byte | 0x20 <= UInt8(ascii: "z"))
        }
        /// The end of a quoted token starting at `start`, closed by `close`; a doubled `close`
        /// is an escaped one, except in `[...]`.
        func quotedEnd(from start: Int, close: UInt8, doubling: Bool) -> Int? {
            var position = start + 1
            while position < bytes.count {
                if bytes[position] == close {
                    if doubling, position + 1 < bytes.count, bytes[position + 1] == close {
                        position += 2
                        continue
                    }
                    return position + 1
                }
                position += 1
            }
            return nil
        }
        while index < bytes.count {
            let byte = bytes[index]
            let start = index
            let kind: Token.Kind
            switch byte {
            case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\n"), UInt8(ascii: "\r"), 0x0C:
                while index < bytes.count, [0x20, 0x09, 0x0A, 0x0D, 0x0C].contains(bytes[index]) {
                    index += 1
                }
                kind = .space
            case UInt8(ascii: "-") where index + 1 < bytes.count && bytes[index + 1] == UInt8(ascii: "-"):
                while index < bytes.count, bytes[index] != UInt8(ascii: "\n") { index += 1 }
                kind = .comment
            case UInt8(ascii: "/") where index + 1 < bytes.count && bytes[index + 1] == UInt8(ascii: "*"):
                var position = index + 2
                while position + 1 < bytes.count,
                    !(bytes[position] == UInt8(ascii: "*") && bytes[position + 1] == UInt8(ascii: "/"))
                {
                    position += 1
                }
                guard position + 1 < bytes.count else { return nil }
                index = position + 2
                kind = .comment
            case UInt8(ascii: "'"):
                guard let end = quotedEnd(from: index, close: byte, doubling: true) else { return nil }
                index = end
                kind = .string
            case UInt8(ascii: "\""), UInt8(ascii: "`"):
                guard let end = quotedEnd(from: index, close: byte, doubling: true) else { return nil }
                index = end
                kind = .quoted
            case UInt8(ascii: "["):
                guard let end = quotedEnd(from: index, close: UInt8(ascii: "]"), doubling: false) else {
                    return nil
                }
                index = end
                kind = .quoted
            default:
                if isWordByte(byte) {
                    while index < bytes.count, isWordByte(bytes[index]) { index += 1 }
                    kind = .word
                } else {
                    index += 1
                    kind = .punctuation
                }
            }
            tokens.append(Token(kind: kind, range: start..<index))
        }
        return tokens
    }
}
