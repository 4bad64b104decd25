// The scalar classes of Unicode's character-break rules (UAX #29), as the Swift standard library
// applies them. The standard library does not expose them, so they are read from its answers: a
// scalar `s` is an extending mark when `"a" + s` is one character, a prepended one when `s + "a"`
// is, and so on. Reading every scalar takes about a second, so the result is kept in a generated
// table (`GraphemeClassTable.swift`), which a test compares with the running standard library.
// PostgreSQL cannot call Swift, so its text predicates state these classes in regular
// expressions (see `GraphemeTextPattern`).

/// A set of Unicode scalars as sorted, disjoint ranges of code points.
package struct ScalarRanges: Sendable, Equatable {
    package init() {}

    /// The ranges of pairs of first and last code points, in order.
    package init(pairs: [UInt32]) {
        ranges = stride(from: 0, to: pairs.count - 1, by: 2).map { pairs[$0]...pairs[$0 + 1] }
    }

    package private(set) var ranges: [ClosedRange<UInt32>] = []

    /// Adds a code point greater than every one already held.
    package mutating func append(_ value: UInt32) {
        if let last = ranges.last, last.upperBound &+ 1 == value {
            ranges[ranges.count - 1] = last.lowerBound...value
        } else {
            ranges.append(value...value)
        }
    }

    package func contains(_ scalar: Unicode.Scalar) -> Bool {
        var (low, high) = (0, ranges.count)
        while low < high {
            let middle = (low + high) / 2
            if ranges[middle].upperBound < scalar.value {
                low = middle + 1
            } else {
                high = middle
            }
        }
        return low < ranges.count && ranges[low].contains(scalar.value)
    }

    /// The members of a PostgreSQL bracket expression, in `\uXXXX` / `\UXXXXXXXX` escapes
    /// (without NUL, which PostgreSQL's text never holds and its patterns refuse).
    package var bracketMembers: String {
        ranges.compactMap { range in
            let low = max(range.lowerBound, 1)
            guard low <= range.upperBound else { return nil }
            return low == range.upperBound
                ? Self.escape(low) : Self.escape(low) + "-" + Self.escape(range.upperBound)
        }.joined()
    }

    private static func escape(_ value: UInt32) -> String {
        let hex = String(value, radix: 16, uppercase: true)
        return value <= 0xFFFF
            ? "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            : "\\U" + String(repeating: "0", count: 8 - hex.count) + hex
    }
}

/// The class of a scalar that follows a position, as the character-break rules tell them apart.
package enum GraphemeClass: CaseIterable, Sendable {
    case carriageReturn, lineFeed, control
    /// Grapheme_Extend (the `Extend` of the emoji rule), ZWJ, and spacing marks: joins any
    /// character that is not a control.
    case extend, zeroWidthJoiner, spacingMark
    case prepend
    case hangulL, hangulV, hangulT, hangulLV, hangulLVT
    case regionalIndicator, pictographic
    /// Indic conjunct consonant (InCB=Consonant).
    case conjunctConsonant
    case other

    /// A scalar of the class.
    package var representative: Unicode.Scalar {
        switch self {
        case .carriageReturn: "\r"
        case .lineFeed: "\n"
        case .control: "\u{1}"
        case .extend: "\u{301}"
        case .zeroWidthJoiner: "\u{200D}"
        case .spacingMark: "\u{93F}"
        case .prepend: "\u{600}"
        case .hangulL: "\u{1100}"
        case .hangulV: "\u{1161}"
        case .hangulT: "\u{11A8}"
        case .hangulLV: "\u{AC00}"
        case .hangulLVT: "\u{AC01}"
        case .regionalIndicator: "\u{1F1EB}"
        case .pictographic: "\u{1F468}"
        case .conjunctConsonant: "\u{915}"
        case .other: "a"
        }
    }
}

/// The classes of every Unicode scalar, as the standard library breaks characters.
package struct GraphemeClasses: Sendable, Equatable {
    /// Each class's scalars; `.other` is left empty (it is the complement of the rest).
    private(set) var members: [GraphemeClass: ScalarRanges] = [:]
    /// InCB=Linker (viramas that join two consonants).
    package private(set) var conjunctLinker = ScalarRanges()
    /// InCB=Extend or InCB=Linker: what may stand between the consonants of a conjunct.
    package private(set) var conjunctExtend = ScalarRanges()

    /// The classes of the standard library this was built with, from the table generated from
    /// it (`GraphemeClassTable.swift`; a test checks it against the running standard library).
    package static let current = GraphemeClasses(
        table: table, linker: conjunctLinkerTable, extend: conjunctExtendTable)

    package subscript(_ kind: GraphemeClass) -> ScalarRanges { members[kind] ?? ScalarRanges() }

    /// The class of a scalar.
    package func classify(_ scalar: Unicode.Scalar) -> GraphemeClass {
        GraphemeClass.allCases.first { $0 != .other && self[$0].contains(scalar) } ?? .other
    }

    private init(table: [GraphemeClass: [UInt32]], linker: [UInt32], extend: [UInt32]) {
        for (kind, pairs) in table { members[kind] = ScalarRanges(pairs: pairs) }
        // Hangul syllables: every 28th (no final consonant) is LV, the others LVT.
        var (syllablesLV, syllablesLVT) = (ScalarRanges(), ScalarRanges())
        for value in UInt32(0xAC00)...0xD7A3 {
            if (value - 0xAC00) % 28 == 0 { syllablesLV.append(value) } else { syllablesLVT.append(value) }
        }
        (members[.hangulLV], members[.hangulLVT]) = (syllablesLV, syllablesLVT)
        (conjunctLinker, conjunctExtend) = (ScalarRanges(pairs: linker), ScalarRanges(pairs: extend))
    }

    /// The classes as the running standard library breaks characters: every scalar is tried
    /// (about a second).
    package static func readFromStandardLibrary() -> GraphemeClasses { GraphemeClasses(reading: ()) }

    private init(reading: Void) {
        for value in UInt32(0)...0x10FFFF {
            guard let scalar = Unicode.Scalar(value) else { continue }
            let kind = Self.read(scalar)
            if kind != .other { members[kind, default: ScalarRanges()].append(value) }
            if kind == .extend || kind == .zeroWidthJoiner || kind == .spacingMark {
                let text = String(scalar)
                if Self.joins("\u{915}", text, "\u{915}") { conjunctLinker.append(value) }
                if Self.joins("\u{915}\u{94D}", text, "\u{915}") { conjunctExtend.append(value) }
            }
        }
    }

    private static func joins(_ before: String, _ text: String, _ after: String = "") -> Bool {
        (before + text + after).count == 1
    }

    /// One scalar's class, from how the standard library breaks characters around it.
    private static func read(_ scalar: Unicode.Scalar) -> GraphemeClass {
        let text = String(scalar)
        switch scalar {
        case "\r": return .carriageReturn
        case "\n": return .lineFeed
        case "\u{200D}": return .zeroWidthJoiner
        default: break
        }
        // A prepended scalar joins all that follows but controls.
        if !joins("\u{600}", text) { return .control }
        if joins("a", text) {
            return joins("\u{1F468}", text, "\u{200D}\u{1F469}") ? .extend : .spacingMark
        }
        if joins(text, "a") { return .prepend }
        if joins("\u{11A8}", text) { return .hangulT }
        if joins("\u{1161}", text) { return .hangulV }
        if joins("\u{1100}", text) {
            switch (joins(text, "\u{1161}"), joins(text, "\u{11A8}")) {
            case (true, true): return .hangulLV
            case (false, true): return .hangulLVT
            default: return .hangulL
            }
        }
        if joins("\u{1F1EB}", text) { return .regionalIndicator }
        if joins("\u{1F468}\u{200D}", text) { return .pictographic }
        if joins("\u{915}\u{94D}", text) { return .conjunctConsonant }
        return .other
    }
}
