import Foundation
import LiteRecordPostgres
import Testing

// The scalar classes PostgreSQL's text predicates state, read from the running standard library,
// and the patterns built from them (GraphemeParityChecks checks the rows they select).

@Suite struct GraphemeTextPatternTests {
    /// Each class's representative, which the patterns use to ask Swift about the whole class,
    /// is read into its own class; and well-known scalars land where Unicode puts them.
    @Test func classesAreReadFromTheStandardLibrary() {
        let table = GraphemeClasses.current
        for kind in GraphemeClass.allCases {
            #expect(table.classify(kind.representative) == kind, "\(kind)")
        }
        let known: [(Unicode.Scalar, GraphemeClass)] = [
            ("\u{1F3FD}", .extend), ("\u{FE0F}", .extend), ("\u{94D}", .extend), ("\u{903}", .spacingMark),
            ("\u{110BD}", .prepend), ("\u{A960}", .hangulL), ("\u{D7B0}", .hangulV), ("\u{D7FB}", .hangulT),
            ("\u{D7A3}", .hangulLVT), ("\u{1F1FF}", .regionalIndicator), ("\u{A9}", .pictographic),
            ("\u{D30}", .conjunctConsonant), ("\u{7F}", .control), ("\u{E000}", .other), ("Z", .other),
        ]
        for (scalar, kind) in known {
            #expect(table.classify(scalar) == kind, "U+\(String(scalar.value, radix: 16))")
        }
        #expect(table.conjunctLinker.contains("\u{94D}") && !table.conjunctLinker.contains("\u{301}"))
        #expect(table.conjunctExtend.contains("\u{200D}"))
    }

    /// Bracket members are escapes (never a raw scalar a pattern could misread), without NUL.
    @Test func bracketMembersAreEscapes() {
        var ranges = ScalarRanges()
        for value: UInt32 in [0, 1, 2, 0x301, 0x1F1E6, 0x1F1E7] { ranges.append(value) }
        #expect(ranges.bracketMembers == "\\u0001-\\u0002\\u0301\\U0001F1E6-\\U0001F1E7")
        #expect(ranges.contains("\u{301}") && !ranges.contains("\u{300}"))
    }

    /// The needle's regular-expression characters are escaped; letters, digits and non-ASCII
    /// characters stand for themselves.
    @Test func needlesAreEscaped() {
        #expect(GraphemeTextPattern.escaped("a.b*(c)|[d]\\e 1👍") == "a\\.b\\*\\(c\\)\\|\\[d\\]\\\\e\\ 1👍")
    }

    /// Where the bytes decide alone, no pattern is added: an empty value, a suffix starting with
    /// a control (a character always starts there), contains with nothing that could join it.
    @Test func patternsOnlyWhereNeeded() {
        #expect(GraphemeTextPattern.hasPrefix("") == nil)
        #expect(GraphemeTextPattern.hasSuffix("") == nil)
        #expect(GraphemeTextPattern.hasSuffix("\r") == nil)
        #expect(GraphemeTextPattern.contains("") == nil)
        #expect(GraphemeTextPattern.hasPrefix("a")?.hasPrefix("^a(?![") == true)
        #expect(GraphemeTextPattern.hasSuffix("a")?.oneScalarBefore == true)
        #expect(GraphemeTextPattern.hasSuffix("\u{1F1E9}\u{1F1EA}")?.oneScalarBefore == false)
    }
}
