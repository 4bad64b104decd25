// The text predicates and functions of `Column+Strings.swift` in PostgreSQL's dialect, with
// SQLite's semantics (LiteRecord's documented ones):
// - case-sensitive predicates compare exact bytes: `starts_with`, `strpos` and `=` under any
//   deterministic collation compare bytes, and `%`, `_` and `\` are plain characters (no LIKE);
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

    /// A predicate over a column and a bound value, as `Column+Strings.swift` builds them.
    typealias Predicate = (_ column: SQL, _ value: DatabaseValue) -> SQL

    /// Whether the column starts with the value, by bytes (ASCII case folded when `foldingCase`).
    static func hasPrefix(foldingCase: Bool) -> Predicate {
        { column, value in
            let (column, prefix) = operands(column, value, foldingCase: foldingCase)
            return "starts_with(\(column), \(prefix))"
        }
    }

    /// Whether the column ends with the value. The last `char_length(value)` characters of
    /// valid UTF-8 text are its last bytes of the value's length when they match, so comparing
    /// characters is comparing bytes.
    static func hasSuffix(foldingCase: Bool) -> Predicate {
        { column, value in
            let (column, suffix) = operands(column, value, foldingCase: foldingCase)
            return "right(\(column), char_length(\(suffix))) = \(suffix)"
        }
    }

    /// Whether the column contains the value (never called with an empty value).
    static func contains(foldingCase: Bool) -> Predicate {
        { column, value in
            let (column, other) = operands(column, value, foldingCase: foldingCase)
            return "strpos(\(column), \(other)) > 0"
        }
    }

    /// Whether the column equals the value (ASCII case folded when `foldingCase`).
    static func equals(foldingCase: Bool) -> Predicate {
        { column, value in
            let (column, other) = operands(column, value, foldingCase: foldingCase)
            return "\(column) = \(other)"
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

extension TableSchema.Column {
    /// The column as a query reads, compares and sorts it: its quoted name, and in PostgreSQL
    /// (``SQLDialect/current``) a text column under `COLLATE "C"` (see ``PostgresText/byBytes(_:)``).
    var queryExpression: SQL {
        let name = SQL(SQL.quoteIdentifier(self.name))
        guard SQLDialect.current == .postgres, holdsPostgresText else { return name }
        return PostgresText.byBytes(name)
    }

    /// Whether PostgreSQL stores the column as text (see ``SQLDialect/columnType(_:isJSON:isBoolean:)``):
    /// only text takes a collation.
    var holdsPostgresText: Bool {
        let isBoolean = swiftTypeName == "Bool" || swiftTypeName == "Optional<Bool>"
        let type = SQLDialect.postgres.columnType(declaredType, isJSON: isJSON, isBoolean: isBoolean)
        return type.hasPrefix("text")
    }
}

extension BackendTable {
    /// A column as PostgreSQL sorts it by bytes: its quoted name, under `COLLATE "C"` when the
    /// column holds text (a table created by hand may give it another collation).
    ///
    /// - Parameter name: The column's name.
    /// - Returns: The SQL text of the expression.
    package func byteOrderExpression(of name: String) -> String {
        let quoted = SQL.quoteIdentifier(name)
        guard let column = schema.columns.first(where: { $0.name == name }), column.holdsPostgresText else {
            return quoted
        }
        return PostgresText.byBytes(SQL(quoted)).text
    }
}
