import Foundation
import LiteRecordCLI
import Testing

/// The string literals the tool writes: Swift ones in generated models and messages, JSON ones
/// in `--json` output. Both escape quotes, backslashes and every control character.
@Suite struct StringLiteralTests {
    /// Every character that needs an escape, between plain ones (a euro sign stays as is).
    static let awkward = "a\"b\\c\nd\re\tf\0g\u{1}h\u{1F}i\u{7F}j\r\n€ k"

    @Test func swiftLiteralsEscapeByNameThenByCode() {
        #expect(
            SwiftNaming.stringLiteral(Self.awkward)
                == #""a\"b\\c\nd\re\tf\0g\u{1}h\u{1f}i\u{7f}j\r\n€ k""#)
        #expect(SwiftNaming.stringLiteral("") == #""""#)
    }

    @Test func jsonLiteralsEscapeByNameThenByCode() {
        #expect(
            JSONValue.quoted(Self.awkward)
                == #""a\"b\\c\nd\re\tf\u0000g\u0001h\u001fi\u007fj\r\n€ k""#)
        #expect(JSONValue.quoted("") == #""""#)
    }

    /// A JSON parser reads back exactly the text that was quoted.
    @Test func jsonLiteralsReadBackAsTheText() throws {
        let quoted = JSONValue.array([.string(Self.awkward)]).text()
        let parsed = try JSONSerialization.jsonObject(with: Data(quoted.utf8)) as? [String]
        #expect(parsed == [Self.awkward])
    }
}
