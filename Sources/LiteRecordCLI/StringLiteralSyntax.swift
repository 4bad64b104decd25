import Foundation

/// How a language writes a double-quoted string literal: Swift in generated models and
/// messages, JSON in `--json` output.
///
/// Both escape a quote, a backslash, newline, return and tab by name, and any other control
/// character (C0 and DEL) by its code, each in its own notation; everything else stays as is.
enum StringLiteralSyntax {
    case swift
    case json

    /// The escapes both syntaxes spell by name.
    private static let commonEscapes: [Unicode.Scalar: String] = [
        "\"": "\\\"", "\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t",
    ]

    /// Swift also names NUL `\0`. (JSON names `\b` and `\f` too; their codes are as valid and
    /// are what the tool has always written.)
    private static let swiftEscapes = commonEscapes.merging(["\0": "\\0"]) { common, _ in common }

    /// `text` as a literal of this syntax, quotes included.
    func literal(_ text: String) -> String {
        let namedEscapes = self == .swift ? Self.swiftEscapes : Self.commonEscapes
        var result = "\""
        for scalar in text.unicodeScalars {
            if let escape = namedEscapes[scalar] {
                result += escape
            } else if scalar.value < 0x20 || scalar.value == 0x7F {
                result += codeEscape(scalar)
            } else {
                result.unicodeScalars.append(scalar)
            }
        }
        return result + "\""
    }

    /// A control character by its code: `\u{1f}` in Swift, `\u001f` in JSON.
    private func codeEscape(_ scalar: Unicode.Scalar) -> String {
        switch self {
        case .swift: "\\u{" + String(scalar.value, radix: 16) + "}"
        case .json: String(format: "\\u%04x", scalar.value)
        }
    }
}
