import Foundation
import LiteRecord

/// A minimal JSON writer that keeps keys in the order given (column order), which
/// `JSONSerialization` does not.
package indirect enum JSONValue: Equatable, Sendable {
    case null
    case bool(Bool)
    case integer(Int64)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([(String, JSONValue)])

    package static func == (lhs: JSONValue, rhs: JSONValue) -> Bool { lhs.text() == rhs.text() }

    /// A database value as JSON: blobs become base64 text; reals JSON cannot write as numbers
    /// become the strings `"Infinity"`, `"-Infinity"` and `"NaN"` rather than `null`, which
    /// would lose them.
    package init(_ value: DatabaseValue) {
        switch value {
        case .null: self = .null
        case .integer(let integer): self = .integer(integer)
        case .real(let real):
            if real.isFinite {
                self = .number(real)
            } else {
                self = .string(real.isNaN ? "NaN" : real < 0 ? "-Infinity" : "Infinity")
            }
        case .text(let text): self = .string(text)
        case .blob(let data): self = .string(data.base64EncodedString())
        }
    }

    /// The JSON text; `indent` spaces per level, or compact when nil.
    package func text(indent: Int? = nil) -> String {
        var output = ""
        write(to: &output, indent: indent, level: 0)
        return output
    }

    private func write(to output: inout String, indent: Int?, level: Int) {
        switch self {
        case .null: output += "null"
        case .bool(let value): output += value ? "true" : "false"
        case .integer(let value): output += String(value)
        case .number(let value): output += "\(value)"
        case .string(let value): output += JSONValue.quoted(value)
        case .array(let items):
            Self.writeList(items, in: "[]", to: &output, indent: indent, level: level) { item, output in
                item.write(to: &output, indent: indent, level: level + 1)
            }
        case .object(let members):
            Self.writeList(members, in: "{}", to: &output, indent: indent, level: level) { pair, output in
                output += JSONValue.quoted(pair.0) + (indent == nil ? ":" : ": ")
                pair.1.write(to: &output, indent: indent, level: level + 1)
            }
        }
    }

    /// An array's or object's elements between its `brackets` (`[]`, `{}`), separated by commas:
    /// compact, or one element a line at `level + 1` when indented; an empty one is the
    /// brackets alone.
    private static func writeList<Element>(
        _ elements: [Element], in brackets: String, to output: inout String, indent: Int?, level: Int,
        element writeElement: (Element, inout String) -> Void
    ) {
        let (opening, closing) = (brackets.prefix(1), brackets.dropFirst())
        guard !elements.isEmpty else {
            output += brackets
            return
        }
        let newline = indent == nil ? "" : "\n"
        let pad = { (level: Int) in String(repeating: " ", count: (indent ?? 0) * level) }
        output += opening + newline
        for (index, element) in elements.enumerated() {
            output += pad(level + 1)
            writeElement(element, &output)
            output += (index < elements.count - 1 ? "," : "") + newline
        }
        output += pad(level) + closing
    }

    /// A JSON string literal: quotes, backslashes and control characters escaped.
    package static func quoted(_ text: String) -> String {
        StringLiteralSyntax.json.literal(text)
    }
}

/// Lays out rows as an aligned text table for a terminal.
package enum TextTable {
    /// The longest cell shown, in characters; longer values end with `…`.
    package static let cellLimit = 40

    /// Renders `header` and `rows` with columns padded to their widest cell, numbers right-aligned.
    ///
    /// - Parameters:
    ///   - header: Column titles.
    ///   - rows: Cells per row; each row has `header.count` cells.
    ///   - rightAligned: Which columns hold numbers.
    /// - Returns: The table, one line per row after a title line and a rule, ending in a newline.
    package static func render(header: [String], rows: [[String]], rightAligned: Set<Int> = []) -> String {
        let cut = { (text: String) -> String in cell(text) }
        let header = header.map(cut)
        let rows = rows.map { $0.map(cut) }
        var widths = header.map(\.count)
        for row in rows {
            for (index, value) in row.enumerated() where index < widths.count {
                widths[index] = max(widths[index], value.count)
            }
        }
        func line(_ cells: [String]) -> String {
            cells.enumerated().map { index, value in
                let padding = String(repeating: " ", count: max(0, widths[index] - value.count))
                let isLast = index == cells.count - 1
                if rightAligned.contains(index) { return padding + value }
                return isLast ? value : value + padding
            }.joined(separator: "  ")
        }
        var lines = [line(header), widths.map { String(repeating: "-", count: $0) }.joined(separator: "  ")]
        lines += rows.map(line)
        return lines.joined(separator: "\n") + "\n"
    }

    /// One cell: control characters shown as escapes, cut to ``cellLimit`` characters.
    package static func cell(_ text: String) -> String {
        var shown = ""
        for character in text {
            switch character {
            case "\n": shown += "\\n"
            case "\r\n": shown += "\\r\\n"
            case "\r": shown += "\\r"
            case "\t": shown += "\\t"
            default:
                if let scalar = character.unicodeScalars.first, character.unicodeScalars.count == 1,
                    scalar.value < 0x20 || scalar.value == 0x7F
                {
                    shown += String(format: "\\x%02x", scalar.value)
                } else {
                    shown.append(character)
                }
            }
        }
        guard shown.count > cellLimit else { return shown }
        return String(shown.prefix(cellLimit - 1)) + "…"
    }

    /// A database value as a cell: `NULL`, the number, the text, or `x'hex'` for a blob.
    package static func cell(_ value: DatabaseValue) -> String {
        switch value {
        case .null: return "NULL"
        case .integer(let integer): return String(integer)
        case .real(let real): return String(real)
        case .text(let text): return text
        case .blob(let data):
            let hex = data.prefix(cellLimit).map { String(format: "%02x", $0) }.joined()
            return "x'\(hex)'"
        }
    }
}
