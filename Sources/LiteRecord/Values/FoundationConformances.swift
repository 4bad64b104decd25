import Foundation

// MARK: - Date

/// Stored as UTC text, exact to the last bit: see ``DateStorage/text``.
///
/// `2024-05-17 13:45:30.25` in a TEXT column; reading also accepts date-only, ISO 8601 and
/// numeric forms (see ``DateStorage``). The row encoder and decoder use
/// ``Configuration/dateStorage`` instead, which may pick a numeric strategy.
extension Date: DatabaseValueConvertible {
    /// TEXT.
    public static var databaseColumnType: DatabaseColumnType { .text }

    /// The UTC text of the date.
    ///
    /// - Throws: ``ValueConversionError`` for a year outside 0000...9999 or a non-finite interval.
    public func databaseValue() throws -> DatabaseValue {
        try DateStorage.text.databaseValue(for: self)
    }

    /// Reads date text (any accepted form) or a number of Unix seconds.
    ///
    /// - Parameter value: What the column holds.
    /// - Throws: ``ValueConversionError`` for NULL, a blob, or text that is not a valid date.
    public static func fromDatabaseValue(_ value: DatabaseValue) throws -> Date {
        try DateStorage.text.date(from: value)
    }
}

// MARK: - UUID

/// Stored as TEXT in the canonical uppercase form, `E621E1F8-C36C-495A-93FC-0C247A3E6E5F`.
///
/// Reading accepts that form in any letter case, and a 16-byte blob (the raw bytes, as other
/// tools store UUIDs).
extension UUID: DatabaseValueConvertible {
    /// TEXT.
    public static var databaseColumnType: DatabaseColumnType { .text }

    /// The canonical uppercase text, as `uuidString`.
    public func databaseValue() throws -> DatabaseValue {
        let hex = Array("0123456789ABCDEF".utf8)
        let text = withUnsafeBytes(of: uuid) { bytes in
            String(unsafeUninitializedCapacity: 36) { buffer in
                var index = 0
                for (offset, byte) in bytes.enumerated() {
                    if offset == 4 || offset == 6 || offset == 8 || offset == 10 {
                        buffer[index] = UInt8(ascii: "-")
                        index += 1
                    }
                    buffer[index] = hex[Int(byte >> 4)]
                    buffer[index + 1] = hex[Int(byte & 0xF)]
                    index += 2
                }
                return index
            }
        }
        return .text(text)
    }

    /// Reads UUID text (either letter case) or a 16-byte blob.
    ///
    /// - Parameter value: What the column holds.
    /// - Throws: ``ValueConversionError`` for text that is not `8-4-4-4-12` hexadecimal digits,
    ///   a blob of another length, or any other storage class.
    public static func fromDatabaseValue(_ value: DatabaseValue) throws -> UUID {
        var bytes: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        switch value {
        case .text(var text):
            let valid = text.withUTF8 { utf8 in
                withUnsafeMutableBytes(of: &bytes) { parseUUID(utf8, into: $0) }
            }
            guard valid else {
                throw ValueConversionError(
                    value: value, to: UUID.self,
                    reason: "expected 32 hexadecimal digits grouped 8-4-4-4-12, such as "
                        + "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")
            }
        case .blob(let data):
            guard data.count == 16 else {
                throw ValueConversionError(
                    value: value, to: UUID.self, reason: "a UUID blob has 16 bytes, not \(data.count)")
            }
            withUnsafeMutableBytes(of: &bytes) { $0.copyBytes(from: data) }
        default:
            throw ValueConversionError(value: value, to: UUID.self)
        }
        return UUID(uuid: bytes)
    }
}

/// Parses `8-4-4-4-12` hex digits (either case) into 16 bytes; `false` for anything else.
private func parseUUID(_ text: UnsafeBufferPointer<UInt8>, into bytes: UnsafeMutableRawBufferPointer) -> Bool
{
    guard text.count == 36 else { return false }
    func nibble(_ byte: UInt8) -> UInt8? {
        switch byte {
        case 0x30...0x39: byte - 0x30
        case 0x41...0x46: byte - 0x41 + 10
        case 0x61...0x66: byte - 0x61 + 10
        default: nil
        }
    }
    var index = 0
    for offset in 0..<16 {
        if offset == 4 || offset == 6 || offset == 8 || offset == 10 {
            guard text[index] == UInt8(ascii: "-") else { return false }
            index += 1
        }
        guard let high = nibble(text[index]), let low = nibble(text[index + 1]) else { return false }
        bytes[offset] = high << 4 | low
        index += 2
    }
    return true
}

// MARK: - URL

/// Stored as TEXT, its `absoluteString`.
///
/// A relative URL is stored resolved against its base; it reads back as the absolute URL.
extension URL: DatabaseValueConvertible {
    /// TEXT.
    public static var databaseColumnType: DatabaseColumnType { .text }

    /// The URL's `absoluteString`.
    public func databaseValue() throws -> DatabaseValue {
        .text(absoluteString)
    }

    /// Reads URL text as `URL(string:)` does, without repairing invalid characters.
    ///
    /// - Parameter value: What the column holds.
    /// - Throws: ``ValueConversionError`` for text that is not a valid URL (empty text, spaces,
    ///   unbalanced brackets, ...) or any other storage class.
    public static func fromDatabaseValue(_ value: DatabaseValue) throws -> URL {
        guard case .text(let text) = value else {
            throw ValueConversionError(value: value, to: URL.self)
        }
        guard let url = URL(string: text, encodingInvalidCharacters: false) else {
            throw ValueConversionError(value: value, to: URL.self, reason: "not a valid URL")
        }
        return url
    }
}

// MARK: - Decimal

/// Stored as TEXT, exactly: `Decimal.description`, such as `-1234.5678`.
///
/// Every finite `Decimal` reads back equal, whatever its number of digits or exponent.
/// Reading accepts:
/// - text that is a decimal number (`12`, `-0.5`, `1.25e-3`, `+7`), exactly: text with more
///   significant digits than `Decimal` holds (38) is an error, not silently truncated;
/// - an INTEGER, exactly;
/// - a REAL, as the shortest decimal that reads back as the same `Double` (the digits Swift prints
///   for it): a REAL `0.1` reads as exactly `0.1`, not `0.1000000000000000055...`. A REAL is
///   already a binary approximation, so this recovers the decimal that was written.
extension Decimal: DatabaseValueConvertible {
    /// TEXT.
    public static var databaseColumnType: DatabaseColumnType { .text }

    /// The exact decimal text.
    ///
    /// - Throws: ``ValueConversionError`` for `Decimal.nan`, on every backend, as for a `Double` NaN.
    public func databaseValue() throws -> DatabaseValue { .text(try refusingNaN().description) }

    /// Reads decimal text, an INTEGER, or a REAL (see the rules above).
    ///
    /// - Parameter value: What the column holds.
    /// - Throws: ``ValueConversionError`` for text that is not a decimal number (nothing but the
    ///   number is allowed, not even spaces), a magnitude `Decimal` cannot hold, more significant
    ///   digits than it holds, a non-finite REAL, NULL or a blob.
    public static func fromDatabaseValue(_ value: DatabaseValue) throws -> Decimal {
        switch value {
        case .integer(let number):
            return Decimal(number)
        case .real(let number):
            guard number.isFinite else {
                throw ValueConversionError(value: value, to: Decimal.self, reason: "not a finite number")
            }
            return try parse(number.description, value: value)
        case .text(let text):
            guard isDecimalNumberText(text) else {
                throw ValueConversionError(
                    value: value, to: Decimal.self, reason: "expected a decimal number such as -12.5 or 1e-3")
            }
            return try parse(text, value: value)
        default:
            throw ValueConversionError(value: value, to: Decimal.self)
        }
    }

    /// Parses decimal text and checks that nothing was lost: `Decimal(string:)` silently drops
    /// digits beyond its 38-digit significand.
    private static func parse(_ text: String, value: DatabaseValue) throws -> Decimal {
        guard let decimal = Decimal(string: text, locale: posixLocale), !decimal.isNaN else {
            throw ValueConversionError(
                value: value, to: Decimal.self, reason: "the magnitude is beyond what Decimal can hold")
        }
        guard DecimalDigits(text) == DecimalDigits(decimal.description) else {
            throw ValueConversionError(
                value: value, to: Decimal.self,
                reason: "it has more significant digits than Decimal holds (38), which would be lost")
        }
        return decimal
    }

    private static func isDecimalNumberText(_ text: String) -> Bool {
        var text = text
        return text.withUTF8 { DateText.isDecimalNumber($0) }
    }
}

/// The value of decimal number text in a normal form: significant digits without leading or
/// trailing zeros, and the power of ten of the last one. Equal values give equal forms.
private struct DecimalDigits: Equatable {
    var isNegative = false
    var digits: [UInt8] = []
    var exponent = 0

    /// - Parameter text: `[+-]digits[.digits][e[+-]digits]`, already validated.
    init(_ text: String) {
        var exponentValue = 0
        var exponentSign = 1
        var fractionDigitCount = 0
        var part = 0  // 0: integer digits, 1: fraction digits, 2: exponent
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "-") where part != 2: isNegative = true
            case UInt8(ascii: "-"): exponentSign = -1
            case UInt8(ascii: "."): part = 1
            case UInt8(ascii: "e"), UInt8(ascii: "E"): part = 2
            case 0x30...0x39 where part == 2:
                exponentValue = min(exponentValue * 10 + Int(byte - 0x30), 1_000_000)
            case 0x30...0x39:
                if byte != 0x30 || !digits.isEmpty { digits.append(byte) }
                if part == 1 { fractionDigitCount += 1 }
            default: continue
            }
        }
        exponent = exponentSign * exponentValue - fractionDigitCount
        while digits.last == 0x30 {
            digits.removeLast()
            exponent += 1
        }
        if digits.isEmpty { (isNegative, exponent) = (false, 0) }
    }
}

private let posixLocale = Locale(identifier: "en_US_POSIX")
