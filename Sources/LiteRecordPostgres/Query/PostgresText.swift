import LiteRecord

// The text predicates and functions of `Column+Strings.swift` in PostgreSQL's dialect, with
// SQLite's semantics (LiteRecord's documented ones):
// - case-sensitive predicates match exact bytes: `starts_with`, `strpos` and `=` under any
//   deterministic collation compare bytes, and `%`, `_` and `\` are plain characters (no LIKE);
//   `hasPrefix`, `hasSuffix` and `contains` then give Swift's answer on characters, by a
//   regular expression built in Swift for the needle and bound (`GraphemeTextPattern`);
// - the case-insensitive forms fold ASCII letters only, as SQLite's `lower()` and `NOCASE` do:
//   PostgreSQL's `lower()` under the "C" collation folds ASCII only, whatever the database's
//   locale (`"É"` and `"é"` differ);
// - `lowercased()` / `uppercased()` map all of Unicode as Swift does, through ICU's root locale
//   (`upper('ß')` is `SS`), without ICU's final-sigma rule, which Swift does not apply; the
//   result compares by bytes, as a column does. This needs a server built with ICU (the
//   `und-x-icu` collation), as Debian's, Ubuntu's and the official images are.
// Values are bound and cast to `text`, so that the server never has to guess their type.

/// PostgreSQL SQL for LiteRecord's text predicates and functions.
enum PostgresText {
    /// The collation whose `lower()` and `upper()` fold ASCII letters only.
    private static let asciiCase: SQL = "COLLATE \"C\""

    /// Text that compares and sorts by its bytes, as SQLite's `BINARY` and Swift's `String` (for
    /// the NFC text LiteRecord writes): `(text COLLATE "C")`.
    ///
    /// Every text expression the query language builds in PostgreSQL states it, so that `<`,
    /// `ORDER BY`, `min`/`max` and ranges never follow the database's default collation (an ICU
    /// `en-US` database sorts `_z` before `a` and `a` before `A`): members of JSON columns (`#>>`
    /// reads them as text of the default collation) and text columns (LiteRecord creates them
    /// `COLLATE "C"`; a column created by hand may have any collation). An index of a `"C"`
    /// column still serves the comparison.
    ///
    /// - Parameter text: A text expression.
    /// - Returns: The expression under the "C" collation.
    static func byBytes(_ text: SQL) -> SQL { "(\(text) \(asciiCase))" }

    /// The value as text, folded to ASCII lowercase when `foldingCase`.
    private static func operand(_ sql: SQL, foldingCase: Bool) -> SQL {
        foldingCase ? "lower(\(sql) \(asciiCase))" : sql
    }

    private static func text(_ value: DatabaseValue) -> SQL { "CAST(\(value) AS text)" }

    /// A text predicate (see ``LiteRecord/TextPredicate``) over a column and a bound value.
    ///
    /// The suffix: the last `char_length(value)` characters of valid UTF-8 text are its last
    /// bytes of the value's length when they match, so comparing characters is comparing bytes.
    static func predicate(_ predicate: TextPredicate, column: SQL, value: DatabaseValue) -> SQL {
        let (text, other) = operands(column, value, foldingCase: predicate.foldsCase)
        let bytes: SQL
        switch predicate {
        case .hasPrefix, .caseInsensitiveHasPrefix: bytes = "starts_with(\(text), \(other))"
        case .hasSuffix, .caseInsensitiveHasSuffix: bytes = "right(\(text), char_length(\(other))) = \(other)"
        case .contains, .caseInsensitiveContains: bytes = "strpos(\(text), \(other)) > 0"
        case .caseInsensitiveEquals: bytes = "\(text) = \(other)"
        }
        guard case .text(let needle) = value,
            let (pattern, subject) = characterPattern(predicate, needle, text, other)
        else {
            return bytes
        }
        // PostgreSQL orders a condition's terms by their estimated cost, and would run the
        // pattern on every row: CASE runs it on the rows whose bytes match only.
        return "\(bytes) AND CASE WHEN \(bytes) THEN \(subject) ~ \(self.text(.text(pattern))) END"
    }

    /// The bound pattern that makes a byte match Swift's answer (see `GraphemeTextPattern`), and
    /// the text it is matched on: a suffix's pattern that looks back one scalar only needs the
    /// text's end.
    private static func characterPattern(
        _ predicate: TextPredicate, _ needle: String, _ text: SQL, _ other: SQL
    ) -> (String, SQL)? {
        switch predicate {
        case .hasPrefix: return GraphemeTextPattern.hasPrefix(needle).map { ($0, text) }
        case .hasSuffix:
            guard let suffix = GraphemeTextPattern.hasSuffix(needle) else { return nil }
            return (
                suffix.pattern, suffix.oneScalarBefore ? "right(\(text), char_length(\(other)) + 1)" : text
            )
        case .contains: return GraphemeTextPattern.contains(needle).map { ($0, text) }
        default: return nil
        }
    }

    private static func operands(
        _ column: SQL, _ value: DatabaseValue, foldingCase: Bool
    ) -> (column: SQL, value: SQL) {
        (operand(column, foldingCase: foldingCase), operand(text(value), foldingCase: foldingCase))
    }

    /// A text function with Swift's semantics.
    ///
    /// - Throws: ``SchemaError`` for the character count: PostgreSQL has no function counting
    ///   grapheme clusters (`char_length` counts code points, so `"👍🏽"` would count 2), and a
    ///   different number would silently select other rows than Swift's `count`.
    static func function(_ function: QueryFunctions.Text, of column: SQL) throws -> SQL {
        switch function {
        case .lowercased:
            // ICU lowercases a final capital sigma to `ς` (by its context); Swift maps each
            // character alone, to `σ`: map `Σ` first, so that ICU has no sigma left to decide.
            return "(lower(replace(\(column), 'Σ', 'σ') COLLATE \"und-x-icu\") \(asciiCase))"
        case .uppercased: return "(upper(\(column) COLLATE \"und-x-icu\") \(asciiCase))"
        case .characterCount:
            throw SchemaError(
                "count of \(column.text) (characters) is not available on PostgreSQL: it has no function "
                    + "counting grapheme clusters as Swift's count does (char_length counts code points)")
        }
    }
}

extension BackendTable {
    /// A column as PostgreSQL sorts it by bytes: its quoted name, under `COLLATE "C"` when the
    /// column holds text (a table created by hand may give it another collation).
    ///
    /// - Parameter name: The column's name.
    /// - Returns: The SQL text of the expression.
    func byteOrderExpression(of name: String) -> String {
        let quoted = SQL.quoteIdentifier(name)
        guard let column = columns.first(where: { $0.name == name }),
            PostgresDialect().holdsText(
                column.declaredType, isJSON: column.isJSON, isBoolean: column.isBoolean)
        else {
            return quoted
        }
        return PostgresText.byBytes(SQL(quoted)).text
    }
}
