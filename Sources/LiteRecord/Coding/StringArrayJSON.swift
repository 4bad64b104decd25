/// Reads the most common JSON column, an array of strings, without `JSONDecoder`.
///
/// `JSONDecoder` costs more than the rest of a row's decoding together. The stored text of a
/// `[String]` is nearly always brackets around quoted strings that need no escapes; that form
/// is read here directly. Anything else (an escape, a control character, invalid UTF-8, another
/// shape, trailing text) returns `nil` and goes through `JSONDecoder`, which decides and reports
/// errors, so every accepted text reads exactly as the decoder would read it.
package enum StringArrayJSON {
    /// Whether `[String]` is stored as JSON, as it is unless an app gives it its own storage
    /// with a `DatabaseValueConvertible` conformance; the shortcuts stand aside then.
    package static let isJSONStorage = !([String].self is any DatabaseValueConvertible.Type)

    /// The strings of a JSON array of plain strings, or `nil` when the text is anything else.
    package static func parse(_ text: UnsafeBufferPointer<UInt8>) -> [String]? {
        var reader = Reader(text: text)
        reader.skipWhitespace()
        guard reader.take(UInt8(ascii: "[")) else { return nil }
        reader.skipWhitespace()
        var strings: [String] = []
        if !reader.take(UInt8(ascii: "]")) {
            // Plain strings hold no quote, so the quotes count the elements: one allocation
            // instead of one per doubling (about 400 instructions each for a short array).
            strings.reserveCapacity(reader.quotesLeft / 2)
            while true {
                guard let string = reader.plainString() else { return nil }
                strings.append(string)
                reader.skipWhitespace()
                if reader.take(UInt8(ascii: "]")) { break }
                guard reader.take(UInt8(ascii: ",")) else { return nil }
                reader.skipWhitespace()
            }
        }
        reader.skipWhitespace()
        return reader.isAtEnd ? strings : nil
    }

    private struct Reader {
        let text: UnsafeBufferPointer<UInt8>
        var position = 0

        var isAtEnd: Bool { position == text.count }

        /// The number of quote characters from the position on.
        var quotesLeft: Int {
            var count = 0
            for index in position..<text.count where text[index] == UInt8(ascii: "\"") { count += 1 }
            return count
        }

        /// Skips JSON's four whitespace characters.
        mutating func skipWhitespace() {
            while position < text.count {
                switch text[position] {
                case 0x20, 0x09, 0x0A, 0x0D: position += 1
                default: return
                }
            }
        }

        mutating func take(_ byte: UInt8) -> Bool {
            guard position < text.count, text[position] == byte else { return false }
            position += 1
            return true
        }

        /// A quoted string with no escape and no control character, as valid UTF-8.
        mutating func plainString() -> String? {
            guard take(UInt8(ascii: "\"")) else { return nil }
            let start = position
            // The bytes or-ed together, so that the scan also tells whether they are all ASCII.
            var allBits: UInt8 = 0
            while position < text.count {
                let byte = text[position]
                if byte == UInt8(ascii: "\"") {
                    let bytes = UnsafeBufferPointer(rebasing: text[start..<position])
                    position += 1
                    // ASCII is valid UTF-8, and the plain decoding initializer skips the
                    // validating one's unspecialized generic path (about 1,000 instructions a
                    // string, most of them metadata lookups); the same shortcut as text columns.
                    if allBits < 0x80 { return String(decoding: bytes, as: UTF8.self) }
                    return String(validating: bytes, as: UTF8.self)
                }
                guard byte >= 0x20, byte != UInt8(ascii: "\\") else { return nil }
                allBits |= byte
                position += 1
            }
            return nil
        }
    }
}
