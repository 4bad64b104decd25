import Foundation

// Foundation's `contains` (CoreFoundation's non-literal search, on Linux too) accepts an
// occurrence unless the text goes on with a mark, or the occurrence ends inside one of
// CoreFoundation's own clusters. Those are not Swift's characters: after a virama (and after a ZWJ
// that follows one) CoreFoundation joins the next *letter* (General Category L or M) when the
// cluster before the virama starts with a letter (or a ZWJ). So `"a\u{94D}a"` does not contain
// `"\u{94D}"` while `"1\u{94D}a"` does, and `"\u{915}\u{94D}\u{937}"` contains `"\u{94D}\u{937}"`.
// Swift's classes cannot tell `a` from `1`, nor see the base behind a run of marks, so for a
// needle that ends with a virama or a ZWJ this states CoreFoundation's rule itself:
//
// - the needle ends with a virama that is a mark: a base that is a letter or a ZWJ, marks, the
//   virama;
// - it ends with a ZWJ (or, rarely, a spacing virama): a base letter of the Basic Multilingual
//   Plane (CoreFoundation reads the base there as one UTF-16 unit), marks, a virama, an optional
//   ZWJ, then the needle's last scalar;
//
// and then refuses a letter right after the occurrence. A base is the scalar before the run of
// marks, or the text's first scalar when marks start the text. Viramas are those of the Basic
// Multilingual Plane only (canonical combining class 9, and U+034F COMBINING GRAPHEME JOINER),
// for CoreFoundation checks one UTF-16 unit. The sets are read from Foundation when first needed
// (about 0.1 s); a test checks them against Foundation's answers for every scalar.

/// The scalar sets of CoreFoundation's joining of letters across a virama.
package struct FoundationJoiners: Sendable {
    /// Letters: Foundation's `CharacterSet.letters` (General Category L and M).
    package let letters: ScalarRanges
    /// The marks CoreFoundation extends a cluster over, backwards: the grapheme extenders it
    /// knows, emoji modifiers, tags, and a few it treats as marks (U+FF9E, U+FF9F, U+F870–F87F).
    package let marks: ScalarRanges
    /// Viramas CoreFoundation joins letters across (Basic Multilingual Plane only).
    package let viramas: ScalarRanges

    /// The sets of the running Foundation.
    package static let current = FoundationJoiners()

    private init() {
        var (letters, marks, viramas) = (ScalarRanges(), ScalarRanges(), ScalarRanges())
        let letterSet = CharacterSet.letters
        for value in UInt32(1)...0x10FFFF {
            guard let scalar = Unicode.Scalar(value) else { continue }
            if letterSet.contains(scalar) { letters.append(value) }
            if Self.isMark(scalar) { marks.append(value) }
            if value <= 0xFFFF && (scalar.properties.canonicalCombiningClass == .virama || value == 0x34F) {
                viramas.append(value)
            }
        }
        (self.letters, self.marks, self.viramas) = (letters, marks, viramas)
        func based(_ base: ScalarRanges) -> String {
            "(?:" + Self.bracket(ScalarRanges.combine(base, marks) { $0 && !$1 }) + "|^"
                + Self.bracket(ScalarRanges.combine(base, marks) { $0 && $1 }) + ")" + Self.bracket(marks)
                + "*"
        }
        // After a ZWJ the base is read as one UTF-16 unit.
        let basicLetters = ScalarRanges.combine(letters, ScalarRanges(pairs: [1, 0xFFFF])) { $0 && $1 }
        linkedBefore = based(basicLetters) + Self.bracket(viramas) + "\\u200D?"
        markedBefore = based(
            ScalarRanges.combine(letters, ScalarRanges(pairs: [0x200D, 0x200D])) { $0 || $1 })
        letterAfter = Self.bracket(letters)
    }

    /// What precedes a joining ZWJ (or spacing virama) at a needle's end: a base letter, marks, a
    /// virama, and maybe a ZWJ.
    private let linkedBefore: String
    /// What precedes a joining virama that is a mark: a base letter or ZWJ, and marks.
    private let markedBefore: String
    private let letterAfter: String

    /// Whether CoreFoundation extends a cluster backwards over the scalar. Its grapheme
    /// extenders are asked of Foundation (a match followed by one is refused), among the scalars
    /// that can be one (marks, format characters, modifiers).
    private static func isMark(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0xF870...0xF87F, 0xFF9E, 0xFF9F, 0x1F3FB...0x1F3FF, 0xE0020...0xE007F: return true
        default: break
        }
        switch scalar.properties.generalCategory {
        case .nonspacingMark, .spacingMark, .enclosingMark, .format, .modifierLetter, .modifierSymbol:
            return !("a" + String(scalar)).contains("a")
        default: return false
        }
    }

    /// The constraint, placed right after the needle, that refuses an occurrence CoreFoundation
    /// joins to the letter after it; `nil` when the needle does not end with a virama or a ZWJ.
    package func constraint(after needle: String) -> String? {
        guard let last = needle.unicodeScalars.last else { return nil }
        let own = Self.bracket(ScalarRanges(pairs: [last.value, last.value]))
        let context: String
        if last == "\u{200D}" || (viramas.contains(last) && !marks.contains(last) && letters.contains(last)) {
            context = linkedBefore + own
        } else if viramas.contains(last) && marks.contains(last) {
            context = markedBefore + own
        } else {
            return nil
        }
        return "(?:(?<!" + context + ")|(?!" + letterAfter + "))"
    }

    /// A bracket expression of the set (one that matches nothing for an empty set).
    private static func bracket(_ set: ScalarRanges) -> String {
        let members = set.bracketMembers
        return members.isEmpty ? "[^\\u0001-\\U0010FFFF]" : "[" + members + "]"
    }
}

extension ScalarRanges {
    /// The scalars for which `keep` holds of their membership in the two sets.
    package static func combine(
        _ first: ScalarRanges, _ second: ScalarRanges, keep: (Bool, Bool) -> Bool
    ) -> ScalarRanges {
        // The sets are constant between consecutive bounds: decide each stretch once.
        var bounds = Set<UInt32>([0, 0x110000])
        for range in first.ranges + second.ranges {
            bounds.insert(range.lowerBound)
            bounds.insert(range.upperBound + 1)
        }
        let sorted = bounds.sorted()
        var pairs: [UInt32] = []
        for (low, next) in zip(sorted, sorted.dropFirst()) {
            guard keep(holds(first, low), holds(second, low)) else { continue }
            if let last = pairs.last, last + 1 == low {
                pairs[pairs.count - 1] = next - 1
            } else {
                pairs += [low, next - 1]
            }
        }
        return ScalarRanges(pairs: pairs)
    }

    /// Whether the set holds the code point (a surrogate too, which no `Unicode.Scalar` is).
    private static func holds(_ set: ScalarRanges, _ value: UInt32) -> Bool {
        set.ranges.contains { $0.contains(value) }
    }
}

/// What follows an occurrence, as Foundation's `contains` tells it apart: a class of Swift's
/// character rules, its marks split by whether CoreFoundation extends over them (Swift's newer
/// Unicode extends over more: U+0897, spacing viramas such as U+1B44).
package struct ContainsFollower: Equatable, Sendable {
    package let kind: GraphemeClass
    /// For marks: whether CoreFoundation extends over the scalar; `nil` for the other classes.
    package let foundationMark: Bool?
    /// The scalars (none for `.other`: it is the complement of the rest).
    package let members: ScalarRanges
    /// The scalar Foundation is asked about (`nil`: none in the cell). Not a letter where the
    /// cell has others: CoreFoundation's joining of letters is a constraint of its own.
    package let sample: Unicode.Scalar?

    package static let all: [ContainsFollower] = GraphemeClass.allCases.flatMap { kind in
        [.extend, .spacingMark].contains(kind) ? [Self(kind, true), Self(kind, false)] : [Self(kind, nil)]
    }

    private init(_ kind: GraphemeClass, _ foundationMark: Bool?) {
        (self.kind, self.foundationMark) = (kind, foundationMark)
        let all = GraphemeClasses.current[kind]
        switch foundationMark {
        case nil: (members, sample) = (all, Self.nonLetter(of: kind))
        case let mark?:
            members = ScalarRanges.combine(all, FoundationJoiners.current.marks) { $0 && $1 == mark }
            sample =
                Self.nonLetter(in: members) ?? members.ranges.first.flatMap { Unicode.Scalar($0.lowerBound) }
        }
    }

    /// The class's representative if it is no letter (`-` for `.other`), or else a scalar of the
    /// class that is none, if it has one.
    package static func nonLetter(of kind: GraphemeClass) -> Unicode.Scalar {
        let joiners = FoundationJoiners.current
        guard kind != .other else { return "-" }
        guard joiners.letters.contains(kind.representative) else { return kind.representative }
        return nonLetter(in: GraphemeClasses.current[kind]) ?? kind.representative
    }

    /// The first scalar of the set that CoreFoundation takes for no letter and no mark.
    private static func nonLetter(in set: ScalarRanges) -> Unicode.Scalar? {
        let joiners = FoundationJoiners.current
        return set.ranges.lazy.joined().compactMap(Unicode.Scalar.init).first {
            !joiners.letters.contains($0) && !joiners.marks.contains($0)
        }
    }

    package static func == (left: Self, right: Self) -> Bool {
        left.kind == right.kind && left.foundationMark == right.foundationMark
    }
}
