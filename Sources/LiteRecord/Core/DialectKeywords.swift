/// The keywords and literals that a ``SQLDialect`` spells its own way in conditions and
/// clauses.
package struct DialectKeywords: Sendable {
    /// NULL-safe equality (SQLite: `IS`).
    package let nullSafeEqual: String
    /// NULL-safe inequality (SQLite: `IS NOT`).
    package let nullSafeNotEqual: String
    /// A condition that is always false (SQLite, which has no boolean type: `0`).
    package let falseCondition: String
    /// `LIMIT` without a bound, for an `OFFSET` alone (SQLite: `-1`).
    package let unboundedLimit: String

    package init(
        nullSafeEqual: String, nullSafeNotEqual: String, falseCondition: String, unboundedLimit: String
    ) {
        self.nullSafeEqual = nullSafeEqual
        self.nullSafeNotEqual = nullSafeNotEqual
        self.falseCondition = falseCondition
        self.unboundedLimit = unboundedLimit
    }
}

extension SQLDialect {
    /// See ``DialectKeywords/nullSafeEqual``.
    package var nullSafeEqual: String { keywords.nullSafeEqual }
    /// See ``DialectKeywords/nullSafeNotEqual``.
    package var nullSafeNotEqual: String { keywords.nullSafeNotEqual }
    /// See ``DialectKeywords/falseCondition``.
    package var falseCondition: String { keywords.falseCondition }
    /// See ``DialectKeywords/unboundedLimit``.
    package var unboundedLimit: String { keywords.unboundedLimit }
}
