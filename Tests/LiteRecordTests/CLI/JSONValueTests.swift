import Foundation
import LiteRecordCLI
import Testing

/// The JSON text the tool writes for `--json`: arrays and objects, empty and nested, compact
/// and indented, with keys in the order given.
@Suite struct JSONValueTests {
    private static let nested = JSONValue.object([
        ("a", .array([])),
        ("b", .object([])),
        ("c", .array([.integer(1), .null, .object([("d", .bool(true))])])),
        ("e", .string("x")),
    ])

    @Test func compactTextHasNoSpaceOrLineBreak() {
        #expect(Self.nested.text() == #"{"a":[],"b":{},"c":[1,null,{"d":true}],"e":"x"}"#)
        #expect(JSONValue.array([]).text() == "[]")
        #expect(JSONValue.object([]).text() == "{}")
    }

    @Test func indentedTextPutsOneElementALine() {
        #expect(
            Self.nested.text(indent: 2) == """
                {
                  "a": [],
                  "b": {},
                  "c": [
                    1,
                    null,
                    {
                      "d": true
                    }
                  ],
                  "e": "x"
                }
                """)
        #expect(JSONValue.array([.number(2.5)]).text(indent: 4) == "[\n    2.5\n]")
        #expect(JSONValue.object([]).text(indent: 2) == "{}")
    }
}
