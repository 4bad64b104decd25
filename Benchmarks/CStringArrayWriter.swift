import Foundation

/// A JSON array of strings written the way a C programmer would: into one reused byte buffer,
/// each string's UTF-8 bytes copied and escaped as needed, no Foundation.
///
/// The escaping is exactly `JSONEncoder`'s with LiteRecord's settings (`withoutEscapingSlashes`):
/// `\"`, `\\`, `\b`, `\t`, `\n`, `\f`, `\r`, other control characters as `\u00xx` (lowercase
/// hex), everything else as is. ``verifyAgainstLiteRecord()`` checks this byte for byte at
/// start-up, so the C side stores what LiteRecord stores.
struct CStringArrayWriter {
    /// The text of the last ``write(_:)``; reused, so writing allocates only while it grows.
    private(set) var bytes: [UInt8] = []

    init() {
        bytes.reserveCapacity(256)
    }

    /// Replaces ``bytes`` with the JSON text of `strings`.
    @inline(__always)
    mutating func write(_ strings: [String]) {
        bytes.removeAll(keepingCapacity: true)
        bytes.append(UInt8(ascii: "["))
        var first = true
        for var string in strings {
            if !first { bytes.append(UInt8(ascii: ",")) }
            first = false
            bytes.append(UInt8(ascii: "\""))
            string.withUTF8 { utf8 in
                var plainStart = 0
                for index in utf8.indices {
                    let byte = utf8[index]
                    guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else {
                        continue
                    }
                    bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[plainStart..<index]))
                    plainStart = index + 1
                    Self.appendEscape(of: byte, to: &bytes)
                }
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[plainStart...]))
            }
            bytes.append(UInt8(ascii: "\""))
        }
        bytes.append(UInt8(ascii: "]"))
    }

    private static func appendEscape(of byte: UInt8, to bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "\\"))
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"): bytes.append(byte)
        case 0x08: bytes.append(UInt8(ascii: "b"))
        case 0x09: bytes.append(UInt8(ascii: "t"))
        case 0x0A: bytes.append(UInt8(ascii: "n"))
        case 0x0C: bytes.append(UInt8(ascii: "f"))
        case 0x0D: bytes.append(UInt8(ascii: "r"))
        default:
            let hex: [UInt8] = Array("0123456789abcdef".utf8)
            bytes.append(contentsOf: [
                UInt8(ascii: "u"), 0x30, 0x30, hex[Int(byte >> 4)], hex[Int(byte & 0xF)],
            ])
        }
    }

    /// Throws unless this writes the same bytes as `JSONEncoder` with the output formatting of
    /// LiteRecord's JSON columns for arrays that need every kind of escape, and unless
    /// ``CStringArrayParser`` reads them back.
    static func verifyAgainstLiteRecord() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let everyASCII = String(decoding: (0..<0x80).map { UInt8($0) }, as: UTF8.self)
        let samples: [[String]] = [
            [], [""], ["swift", "orm"], [everyASCII], ["a/b", "\u{7F}", "é\u{2028}😀", "\"\\\"", "x\ny"],
        ]
        var writer = CStringArrayWriter()
        for sample in samples {
            writer.write(sample)
            let expected = Array(try encoder.encode(sample))
            guard writer.bytes == expected else {
                throw FixtureError(
                    description: "C JSON writer wrote \(String(decoding: writer.bytes, as: UTF8.self)), "
                        + "JSONEncoder \(String(decoding: expected, as: UTF8.self))")
            }
            let parsed = try writer.bytes.withUnsafeBufferPointer { try CStringArrayParser.parse($0) }
            guard parsed == sample else {
                throw FixtureError(description: "C JSON parser read \(parsed), expected \(sample)")
            }
        }
    }
}
