/// A JSON array of strings parsed the way a C programmer would: one pass over the bytes with a
/// pointer, no Foundation, strings made straight from the bytes (escapes decoded, `\uXXXX`
/// with surrogate pairs included), whitespace allowed where JSON allows it.
///
/// The C side of `fetch-all-hand-json` reads its `[String]` column with this instead of
/// `JSONDecoder`, so that LiteRecord's own array shortcut is compared with code that does no
/// more than it must. Malformed text is an error, as it would be for any C reader.
enum CStringArrayParser {
    struct Malformed: Error, CustomStringConvertible {
        let offset: Int
        var description: String { "malformed JSON string array at byte \(offset)" }
    }

    static func parse(_ text: UnsafeBufferPointer<UInt8>) throws -> [String] {
        var position = 0
        func fail() -> Malformed { Malformed(offset: position) }
        @inline(__always) func skipWhitespace() {
            while position < text.count,
                text[position] == 0x20 || text[position] == 0x09 || text[position] == 0x0A
                    || text[position] == 0x0D
            {
                position += 1
            }
        }
        skipWhitespace()
        guard position < text.count, text[position] == UInt8(ascii: "[") else { throw fail() }
        position += 1
        skipWhitespace()
        var strings: [String] = []
        if position < text.count, text[position] == UInt8(ascii: "]") {
            position += 1
        } else {
            while true {
                guard position < text.count, text[position] == UInt8(ascii: "\"") else { throw fail() }
                position += 1
                strings.append(try string(text, &position))
                skipWhitespace()
                guard position < text.count else { throw fail() }
                let separator = text[position]
                position += 1
                if separator == UInt8(ascii: "]") { break }
                guard separator == UInt8(ascii: ",") else { throw fail() }
                skipWhitespace()
            }
        }
        skipWhitespace()
        guard position == text.count else { throw fail() }
        return strings
    }

    /// The string after an opening quote, up to and past its closing quote.
    @inline(__always)
    private static func string(_ text: UnsafeBufferPointer<UInt8>, _ position: inout Int) throws -> String {
        let start = position
        // The common case: no escape, the bytes are the string.
        while position < text.count {
            let byte = text[position]
            if byte == UInt8(ascii: "\"") {
                position += 1
                return String(
                    decoding: UnsafeBufferPointer(rebasing: text[start..<position - 1]), as: UTF8.self)
            }
            if byte == UInt8(ascii: "\\") { break }
            position += 1
        }
        var bytes = Array(text[start..<position])
        while position < text.count {
            let byte = text[position]
            position += 1
            if byte == UInt8(ascii: "\"") { return String(decoding: bytes, as: UTF8.self) }
            guard byte == UInt8(ascii: "\\") else {
                bytes.append(byte)
                continue
            }
            guard position < text.count else { break }
            let escape = text[position]
            position += 1
            switch escape {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): bytes.append(escape)
            case UInt8(ascii: "b"): bytes.append(0x08)
            case UInt8(ascii: "f"): bytes.append(0x0C)
            case UInt8(ascii: "n"): bytes.append(0x0A)
            case UInt8(ascii: "r"): bytes.append(0x0D)
            case UInt8(ascii: "t"): bytes.append(0x09)
            case UInt8(ascii: "u"):
                var scalar = try hex4(text, &position)
                if (0xD800..<0xDC00).contains(scalar), position + 1 < text.count,
                    text[position] == UInt8(ascii: "\\"), text[position + 1] == UInt8(ascii: "u")
                {
                    position += 2
                    let low = try hex4(text, &position)
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low &- 0xDC00)
                }
                let character = Unicode.Scalar(scalar) ?? "\u{FFFD}"
                bytes.append(contentsOf: Array(String(character).utf8))
            default: throw Malformed(offset: position)
            }
        }
        throw Malformed(offset: position)
    }

    private static func hex4(_ text: UnsafeBufferPointer<UInt8>, _ position: inout Int) throws -> UInt32 {
        guard position + 4 <= text.count else { throw Malformed(offset: position) }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = text[position]
            position += 1
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw Malformed(offset: position)
            }
            value = value << 4 | UInt32(digit)
        }
        return value
    }
}
