import Foundation

// PostgreSQL compares bytes; Swift compares characters (grapheme clusters): `"👍🏽"` starts with
// the bytes of `"👍"`, not with its character. PostgreSQL cannot call Swift, so the text
// predicates keep their byte condition (which an index or a quick `strpos` decides) and AND a
// regular expression built here, in Swift, for the one needle, and bound as a parameter: the
// scalars around the match that would make Swift answer otherwise, in bracket expressions of
// the classes `GraphemeClasses` read from the standard library.
//
// - hasPrefix: the text holds the prefix's bytes and a character ends right after them (Swift's
//   `hasPrefix` on the characters then agrees: before that point the text's characters are the
//   prefix's). Whether one ends depends on the prefix and the next scalar only, so the pattern
//   is `^prefix(?![scalars that join the prefix's end])`.
// - hasSuffix: a character ends right before the suffix's bytes; that depends on the suffix's
//   first scalar and what precedes it (a Hangul jamo, a prepended mark, an odd run of regional
//   indicators, an emoji and ZWJ, an Indic consonant and virama): `(?<!joining context)suffix$`.
// - contains: Foundation's `contains` (what a closure calls with Foundation imported) is not
//   Swift's character rule: it finds `"🇷🇩"` in `"🇫🇷🇩🇪"` and `"\n"` in `"\r\n"`, and rejects a
//   match followed by a scalar that extends it (`"👍🏽"`, `"e\u{301}"`, `"क्ष"` for `"क्"`).
//   Which scalars do is asked of Foundation itself, one representative of each class after the
//   needle: `other(?![scalars after which Foundation rejects the match])`. After a virama (or a
//   ZWJ that follows one) Foundation also refuses a letter when the cluster before the virama
//   starts with one (`"a\u{94D}a"`, not `"1\u{94D}a"`), which Swift's classes cannot tell:
//   `FoundationJoiners` adds that constraint.

/// The regular expression, if any, that a byte match of a text predicate must also satisfy for
/// PostgreSQL to give Swift's answer.
package enum GraphemeTextPattern {
    /// The pattern for `hasPrefix(prefix)`, or `nil` when the bytes alone answer.
    package static func hasPrefix(_ prefix: String) -> String? {
        guard !prefix.isEmpty else { return nil }
        let count = prefix.count
        let joining = GraphemeClass.allCases.filter { (prefix + String($0.representative)).count == count }
        return bracket(joining).map { "^" + escaped(prefix) + "(?!" + $0 + ")" }
    }

    /// The pattern for `hasSuffix(suffix)`, or `nil` when the bytes alone answer; with
    /// `oneScalarBefore` when it reads no further back than the scalar before the suffix, so
    /// that the text's last `suffix.unicodeScalars.count + 1` scalars are enough to match it on.
    package static func hasSuffix(_ suffix: String) -> (pattern: String, oneScalarBefore: Bool)? {
        guard let first = suffix.unicodeScalars.first else { return nil }
        let table = GraphemeClasses.current
        let context: [String]
        switch table.classify(first) {
        case .carriageReturn, .control: return nil
        case .lineFeed: context = ["\\r"]
        case .extend, .zeroWidthJoiner, .spacingMark:
            context = [classes(of: [.carriageReturn, .lineFeed, .control], complement: true)]
        case let kind:
            var joining = [GraphemeClass.prepend]
            switch kind {
            case .hangulL, .hangulLV, .hangulLVT: joining.append(.hangulL)
            case .hangulV: joining += [.hangulL, .hangulV, .hangulLV]
            case .hangulT: joining += [.hangulV, .hangulT, .hangulLV, .hangulLVT]
            default: break
            }
            var alternatives = [classes(of: joining)]
            switch kind {
            case .regionalIndicator:
                let indicator = classes(of: [.regionalIndicator])
                let other = classes(of: [.regionalIndicator], complement: true)
                alternatives.append("(?:^|\(other))(?:\(indicator)\(indicator))*\(indicator)")
            case .pictographic: alternatives.append(emoji(marks: "*") + "\\u200D")
            case .conjunctConsonant: alternatives.append(conjunct)
            default: break
            }
            context = alternatives
        }
        return ("(?<!(?:" + context.joined(separator: "|") + "))" + escaped(suffix) + "$", context.count == 1)
    }

    /// The pattern for Foundation's `contains(other)`, or `nil` when the bytes alone answer.
    ///
    /// Foundation's answer at an occurrence depends on the scalar after it, and for some needles
    /// on what precedes it (`"\u{200D}"` is not found in `"👨\u{200D}👩"` nor `"🏳️\u{200D}🌈"`, but
    /// is in `"a\u{200D}"`): the occurrences are grouped by their context before, each group
    /// with the classes after it that make Foundation reject the occurrence.
    package static func contains(_ other: String) -> String? {
        // Foundation traps on some texts holding NUL; PostgreSQL's text holds none anyway.
        guard !other.isEmpty, !other.unicodeScalars.contains("\0") else { return nil }
        var groups: [(rejecting: [ContainsFollower?], contexts: [Context])] = []
        let followers = ContainsFollower.all.filter { $0.sample != nil }
        for context in Context.all {
            let rejecting = ([nil] + followers).filter { after in
                !foundationFinds(other, after: context.sample, before: after?.sample)
            }
            if let index = groups.firstIndex(where: { $0.rejecting == rejecting }) {
                groups[index].contexts.append(context)
            } else {
                groups.append((rejecting, [context]))
            }
        }
        let joining = FoundationJoiners.current.constraint(after: other)
        guard groups.contains(where: { !$0.rejecting.isEmpty }) || joining != nil else { return nil }
        let needle = escaped(other)
        let pattern =
            groups.count == 1
            ? needle + lookahead(refusing: groups[0].rejecting)
            : groups.map { group in
                "(?:" + group.contexts.map(\.lookbehind).joined(separator: "|") + ")" + needle
                    + lookahead(refusing: group.rejecting)
            }.joined(separator: "|")
        return joining.map { "(?:" + pattern + ")" + $0 } ?? pattern
    }

    /// What precedes an occurrence, as far as Foundation's `contains` looks.
    private enum Context {
        case start
        case scalar(GraphemeClass)
        /// An emoji and extending marks, which a ZWJ would join to a following emoji.
        case pictographicExtended

        // No Indic conjunct: Foundation joins across a virama by its own rule, which
        // `FoundationJoiners` states (and Swift's conjunct context would only blur it).
        static let all: [Context] =
            [.start, .pictographicExtended] + GraphemeClass.allCases.map(Context.scalar)

        var sample: String {
            switch self {
            case .start: ""
            // No letter where the class has others (`-` for `a`, a base before a mark), so that
            // Foundation's joining of letters is left to `FoundationJoiners`, which sees the
            // actual scalars.
            case .scalar(.extend): "-\u{301}"
            case .scalar(let kind): String(ContainsFollower.nonLetter(of: kind))
            case .pictographicExtended: "\u{1F468}\u{FE0F}"
            }
        }

        /// The pattern that holds where the context precedes (a mark alone: not after the
        /// longer contexts that end with one).
        var lookbehind: String {
            switch self {
            case .start: return "^"
            case .pictographicExtended: return "(?<=" + emoji(marks: "+") + ")"
            case .scalar(let kind):
                let own = "(?<=" + (bracket([kind]) ?? ".") + ")"
                guard [.extend, .zeroWidthJoiner, .spacingMark].contains(kind) else { return own }
                return own + "(?<!" + emoji(marks: "+") + ")"
            }
        }

    }

    /// Whether Foundation finds `other` right after `after` and right before `before` (`nil`:
    /// the end of the text), at that place.
    private static func foundationFinds(_ other: String, after: String, before: Unicode.Scalar?) -> Bool {
        let text = after + other + (before.map { String($0) } ?? "")
        let start = text.unicodeScalars.index(text.startIndex, offsetBy: after.unicodeScalars.count)
        return text.range(of: other, options: .anchored, range: start..<text.endIndex) != nil
    }

    /// A lookahead refusing the followers (`nil`: the end of the text), or `""` for none.
    private static func lookahead(refusing followers: [ContainsFollower?]) -> String {
        let kinds = followers.compactMap { $0 }
        var refused: [String] = []
        if kinds.contains(where: { $0.kind == .other }) {
            let rest = ContainsFollower.all.filter { !kinds.contains($0) }
            refused.append(bracket(members: rest.map(\.members.bracketMembers).joined(), complement: true))
        } else if !kinds.isEmpty {
            refused.append(bracket(members: kinds.map(\.members.bracketMembers).joined()))
        }
        if followers.contains(nil) { refused.append("$") }
        return refused.isEmpty ? "" : "(?!" + refused.joined(separator: "|") + ")"
    }

    /// An emoji and extending marks (the `Extend*` of the emoji-sequence rule), as many as the
    /// quantifier says (`"*"`, `"+"`).
    private static func emoji(marks quantifier: String) -> String {
        classes(of: [.pictographic]) + classes(of: [.extend]) + quantifier
    }

    /// An Indic consonant, a virama, and marks: what joins a following consonant (InCB).
    private static var conjunct: String {
        let table = GraphemeClasses.current
        let between = bracket(members: table.conjunctExtend.bracketMembers) + "*"
        return classes(of: [.conjunctConsonant]) + between
            + bracket(members: table.conjunctLinker.bracketMembers)
            + between
    }

    /// A bracket expression of the classes' scalars, or `nil` for no class. With `.other`
    /// among them, the complement of the classes left out.
    private static func bracket(_ kinds: [GraphemeClass]) -> String? {
        guard !kinds.isEmpty else { return nil }
        guard kinds.contains(.other) else { return classes(of: kinds) }
        let rest = GraphemeClass.allCases.filter { !kinds.contains($0) }
        return rest.isEmpty ? "." : classes(of: rest, complement: true)
    }

    /// A bracket expression of the classes' scalars (or of all others, with `complement`).
    private static func classes(of kinds: [GraphemeClass], complement: Bool = false) -> String {
        let table = GraphemeClasses.current
        return bracket(members: kinds.map { table[$0].bracketMembers }.joined(), complement: complement)
    }

    /// A bracket expression of the members (or of all others, with `complement`).
    private static func bracket(members: String, complement: Bool = false) -> String {
        // A standard library without a class (an older Unicode): no scalar, or any.
        guard !members.isEmpty else { return complement ? "." : "[^\\u0001-\\U0010FFFF]" }
        return "[" + (complement ? "^" : "") + members + "]"
    }

    /// The text as a regular expression that matches exactly it: ASCII punctuation, spaces and
    /// controls escaped (a backslash before a non-alphanumeric character stands for it).
    package static func escaped(_ text: String) -> String {
        var pattern = ""
        for scalar in text.unicodeScalars {
            if scalar.isASCII && !(scalar.properties.isAlphabetic || ("0"..."9").contains(scalar)) {
                pattern += "\\"
            }
            pattern.unicodeScalars.append(scalar)
        }
        return pattern
    }
}
