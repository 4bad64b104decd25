import Foundation

// Text predicates and functions, on `String` and `String?` columns. They mean what Swift's
// methods mean on the decoded value (with Foundation imported), except where noted; on an
// optional column `nil` never matches a predicate, and `!` of a predicate matches `nil`.

extension Column {
    /// A text predicate over this column, in its dialect; `guardingNull` makes it false
    /// for NULL (not NULL).
    fileprivate func textPredicate(_ kind: TextPredicate, _ text: String, guardingNull: Bool) -> Condition {
        let predicate = dialect.textPredicate(kind, column: sql, value: .text(text))
        guard guardingNull else { return Condition("(\(predicate))", error: error) }
        return Condition("(\(sql) IS NOT NULL AND \(predicate))", error: error)
    }

    fileprivate func hasPrefixCondition(_ prefix: String, guardingNull: Bool) -> Condition {
        textPredicate(.hasPrefix, prefix, guardingNull: guardingNull)
    }

    fileprivate func hasSuffixCondition(_ suffix: String, guardingNull: Bool) -> Condition {
        guard !suffix.isEmpty else { return Condition("(\(sql) IS NOT NULL)", error: error) }
        return textPredicate(.hasSuffix, suffix, guardingNull: guardingNull)
    }

    fileprivate func containsCondition(_ other: String, guardingNull: Bool) -> Condition {
        // Foundation's `contains("")` is false (instr() finds the empty text everywhere).
        guard !other.isEmpty else { return Condition(SQL(dialect.falseCondition), error: error) }
        return textPredicate(.contains, other, guardingNull: guardingNull)
    }

    fileprivate func caseInsensitiveHasPrefixCondition(_ prefix: String, guardingNull: Bool) -> Condition {
        textPredicate(.caseInsensitiveHasPrefix, prefix, guardingNull: guardingNull)
    }

    fileprivate func caseInsensitiveHasSuffixCondition(_ suffix: String, guardingNull: Bool) -> Condition {
        guard !suffix.isEmpty else { return Condition("(\(sql) IS NOT NULL)", error: error) }
        return textPredicate(.caseInsensitiveHasSuffix, suffix, guardingNull: guardingNull)
    }

    fileprivate func caseInsensitiveContainsCondition(_ other: String, guardingNull: Bool) -> Condition {
        guard !other.isEmpty else { return Condition(SQL(dialect.falseCondition), error: error) }
        return textPredicate(.caseInsensitiveContains, other, guardingNull: guardingNull)
    }

    fileprivate func caseInsensitiveEqualsCondition(_ other: String, guardingNull: Bool) -> Condition {
        textPredicate(.caseInsensitiveEquals, other, guardingNull: guardingNull)
    }

    /// A text function of this column, in its dialect.
    fileprivate func textFunction<T>(_ function: QueryFunctions.Text) -> Column<T> {
        do {
            return derived(try dialect.textFunction(function, of: sql))
        } catch {
            return failed(self.error ?? error)
        }
    }
}

// MARK: - String columns

extension Column where Value: StringProtocol {
    /// Whether the text starts with `prefix`, case-sensitively; `%`, `_` and `\` are plain
    /// characters.
    ///
    /// Swift's answer, on characters (grapheme clusters): `"👍🏽"` does not start with `"👍"`.
    /// The UTF-8 bytes must match too (NUL characters included), so a canonically equivalent
    /// spelling with other bytes does not match, as for `==`. The bytes narrow the rows (an
    /// index can serve them); then on SQLite Swift's `hasPrefix` decides on those, and on
    /// PostgreSQL a regular expression built in Swift for `prefix` and bound as a parameter.
    ///
    /// - Parameter prefix: The prefix; `""` matches every row.
    /// - Returns: The condition.
    public func hasPrefix(_ prefix: String) -> Condition { hasPrefixCondition(prefix, guardingNull: false) }

    /// Whether the text ends with `suffix`, case-sensitively: Swift's answer where the UTF-8 bytes
    /// match (see `hasPrefix(_:)` above).
    ///
    /// - Parameter suffix: The suffix; `""` matches every row.
    /// - Returns: The condition.
    public func hasSuffix(_ suffix: String) -> Condition { hasSuffixCondition(suffix, guardingNull: false) }

    /// Whether the text contains `other`, case-sensitively: Foundation's answer where the UTF-8
    /// bytes match (see `hasPrefix(_:)` above); `"👍🏽"` does not contain `"👍"`. On PostgreSQL,
    /// text whose combining marks are not in canonical order can still get another answer than
    /// Foundation's, which also accepts the value with its marks reordered (a known issue).
    ///
    /// - Parameter other: The text to look for; `""` matches no row, as Foundation's
    ///   `"abc".contains("")` is `false`.
    /// - Returns: The condition.
    public func contains(_ other: String) -> Condition { containsCondition(other, guardingNull: false) }

    /// Whether the text starts with `prefix`, ignoring the case of ASCII letters.
    ///
    /// - Parameter prefix: The prefix.
    /// - Returns: The condition.
    public func caseInsensitiveHasPrefix(_ prefix: String) -> Condition {
        caseInsensitiveHasPrefixCondition(prefix, guardingNull: false)
    }

    /// Whether the text ends with `suffix`, ignoring the case of ASCII letters.
    ///
    /// - Parameter suffix: The suffix.
    /// - Returns: The condition.
    public func caseInsensitiveHasSuffix(_ suffix: String) -> Condition {
        caseInsensitiveHasSuffixCondition(suffix, guardingNull: false)
    }

    /// Whether the text contains `other`, ignoring the case of ASCII letters; `""` matches no row.
    ///
    /// - Parameter other: The text to look for.
    /// - Returns: The condition.
    public func caseInsensitiveContains(_ other: String) -> Condition {
        caseInsensitiveContainsCondition(other, guardingNull: false)
    }

    /// Whether the text equals `other`, ignoring the case of ASCII letters (SQLite's `NOCASE`:
    /// `"É"` and `"é"` differ). An index of a `.collation(.nocase)` column finds the rows.
    ///
    /// - Parameter other: The text to compare with.
    /// - Returns: The condition.
    public func caseInsensitiveEquals(_ other: String) -> Condition {
        caseInsensitiveEqualsCondition(other, guardingNull: false)
    }

    /// The text lowercased as Swift's `lowercased()` does (all of Unicode, not only ASCII).
    ///
    /// - Returns: The expression, for comparisons: `$0.name.lowercased() == "émile"`.
    public func lowercased() -> Column<String> { textFunction(.lowercased) }

    /// The text uppercased as Swift's `uppercased()` does (`"ß"` becomes `"SS"`).
    ///
    /// - Returns: The expression.
    public func uppercased() -> Column<String> { textFunction(.uppercased) }

    /// The number of characters (grapheme clusters), as Swift's `count`: `"👍🏽"` counts 1 where
    /// SQLite's `length()` counts 2 code points.
    public var count: Column<Int> { textFunction(.characterCount) }

    /// Whether the text is empty (a lone NUL character is not).
    public var isEmpty: Condition { Condition("(\(sql) = '')", error: error) }
}

// MARK: - Optional string columns

extension Column where Value: OptionalProtocol, Value.Wrapped: StringProtocol {
    /// Whether the text starts with `prefix`; `nil` never does.
    ///
    /// - Parameter prefix: The prefix.
    /// - Returns: The condition.
    public func hasPrefix(_ prefix: String) -> Condition { hasPrefixCondition(prefix, guardingNull: true) }

    /// Whether the text ends with `suffix`; `nil` never does.
    ///
    /// - Parameter suffix: The suffix.
    /// - Returns: The condition.
    public func hasSuffix(_ suffix: String) -> Condition { hasSuffixCondition(suffix, guardingNull: true) }

    /// Whether the text contains `other` (never `""`); `nil` never does.
    ///
    /// - Parameter other: The text to look for.
    /// - Returns: The condition.
    public func contains(_ other: String) -> Condition { containsCondition(other, guardingNull: true) }

    /// Whether the text starts with `prefix`, ignoring ASCII case; `nil` never does.
    ///
    /// - Parameter prefix: The prefix.
    /// - Returns: The condition.
    public func caseInsensitiveHasPrefix(_ prefix: String) -> Condition {
        caseInsensitiveHasPrefixCondition(prefix, guardingNull: true)
    }

    /// Whether the text ends with `suffix`, ignoring ASCII case; `nil` never does.
    ///
    /// - Parameter suffix: The suffix.
    /// - Returns: The condition.
    public func caseInsensitiveHasSuffix(_ suffix: String) -> Condition {
        caseInsensitiveHasSuffixCondition(suffix, guardingNull: true)
    }

    /// Whether the text contains `other`, ignoring ASCII case; `nil` never does.
    ///
    /// - Parameter other: The text to look for.
    /// - Returns: The condition.
    public func caseInsensitiveContains(_ other: String) -> Condition {
        caseInsensitiveContainsCondition(other, guardingNull: true)
    }

    /// Whether the text equals `other`, ignoring ASCII case; `nil` never does.
    ///
    /// - Parameter other: The text to compare with.
    /// - Returns: The condition.
    public func caseInsensitiveEquals(_ other: String) -> Condition {
        caseInsensitiveEqualsCondition(other, guardingNull: true)
    }

    /// The text lowercased as Swift's `lowercased()` does, or `nil`.
    ///
    /// - Returns: The expression.
    public func lowercased() -> Column<String?> { textFunction(.lowercased) }

    /// The text uppercased as Swift's `uppercased()` does, or `nil`.
    ///
    /// - Returns: The expression.
    public func uppercased() -> Column<String?> { textFunction(.uppercased) }

    /// The number of characters (grapheme clusters), or `nil`: Swift's `nick?.count`.
    public var count: Column<Int?> { textFunction(.characterCount) }
}
