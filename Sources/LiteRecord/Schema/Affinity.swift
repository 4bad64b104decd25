/// SQLite's type affinity of a declared column type (https://sqlite.org/datatype3.html §3.1):
/// auto-migration asks whether a stored column holds a model's values unchanged, and
/// `literecord generate` starts from it to choose a property's type.
package enum Affinity: Equatable, Sendable {
    case integer, text, blob, real, numeric

    /// SQLite's rules 1 to 4, in the order it applies them: the first rule with a word the
    /// declared type contains decides, and a type that contains none is `NUMERIC` (rule 5).
    private static let rules: [(words: [String], affinity: Affinity)] = [
        (["INT"], .integer),
        (["CHAR", "CLOB", "TEXT"], .text),
        (["BLOB"], .blob),
        (["REAL", "FLOA", "DOUB"], .real),
    ]

    /// The affinity of a column declared with `declaredType` (any case; empty when none).
    package init(declaredType: String) {
        let type = declaredType.uppercased()
        // Rule 3 also covers a column with no declared type, which contains no rule's word.
        guard !type.isEmpty else {
            self = .blob
            return
        }
        self = Self.rules.first { rule in rule.words.contains { type.contains($0) } }?.affinity ?? .numeric
    }

    /// Whether a column of this affinity holds a model column of `other` without changing
    /// its values. Numbers mix freely; text in a NUMERIC column (dates declared `DATETIME`)
    /// is kept as text unless it looks like a number; an untyped column keeps everything.
    func accepts(_ other: Affinity) -> Bool {
        switch (self, other) {
        case (.blob, _), (_, .blob): return true
        case (.integer, .integer), (.integer, .real), (.integer, .numeric): return true
        case (.real, .integer), (.real, .real), (.real, .numeric): return true
        case (.numeric, _): return true
        case (.text, .text): return true
        default: return false
        }
    }
}
