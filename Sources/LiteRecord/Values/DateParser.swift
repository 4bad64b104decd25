import Foundation

extension DateText {
    /// What date text turned out to be.
    package enum Parsed: Equatable {
        /// A calendar date and time: seconds since the reference date.
        case interval(Double)
        /// Text that is only a decimal number; its meaning depends on the ``DateStorage``.
        case number
    }

    /// Why text is not a date; becomes the reason of a ``ValueConversionError``.
    package struct ParseFailure: Error {
        package let reason: String
        init(_ reason: String) { self.reason = reason }
    }

    /// The forms ``parse(_:)`` accepts, for error messages.
    static let acceptedForms =
        "expected YYYY-MM-DD, optionally followed by a space or T, HH:MM, optional :SS and .fraction, "
        + "and an optional Z or ±HH:MM offset (such as 2024-05-17 13:45:30.25 or 2024-05-17T13:45:30Z), "
        + "or a number"

    /// Parses date text as UTF-8 bytes.
    ///
    /// Accepts `YYYY-MM-DD`, then optionally ` ` or `T`, `HH:MM`, optional `:SS`, optional `.`
    /// and any number of fraction digits, optional `Z` or an offset `±HH:MM`, `±HHMM`, `±HH`
    /// (subtracted, giving UTC). Text that is only a decimal number (`1700000000`, `-1.5e3`) is
    /// reported as ``Parsed/number``. Total: any bytes either parse or throw.
    ///
    /// - Parameter text: The UTF-8 bytes of the text.
    /// - Throws: ``ParseFailure`` saying what is wrong.
    package static func parse(_ text: UnsafeBufferPointer<UInt8>) throws(ParseFailure) -> Parsed {
        if let interval = parseStoredForm(text) { return .interval(interval) }
        return try parseAnyForm(text)
    }

    /// Reads the form LiteRecord writes, `YYYY-MM-DD HH:MM:SS[.digits]`, or gives `nil` for any
    /// other text, valid or not, which ``parseAnyForm(_:)`` then reads or rejects.
    ///
    /// Every date LiteRecord stored is in this form, so most reads take this path: fixed
    /// positions, no number check first, no cursor. It accepts a subset of what the general
    /// grammar accepts and computes the same value from it, which a differential test checks.
    @inline(__always)
    package static func parseStoredForm(_ text: UnsafeBufferPointer<UInt8>) -> Double? {
        let count = text.count
        guard count >= 19, count != 20, let bytes = text.baseAddress,
            bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"), bytes[10] == UInt8(ascii: " "),
            bytes[13] == UInt8(ascii: ":"), bytes[16] == UInt8(ascii: ":")
        else { return nil }
        var allDigits = true
        @inline(__always) func number(_ start: Int, _ width: Int) -> Int64 {
            var value: Int64 = 0
            for index in start..<start + width {
                let digit = bytes[index] &- 0x30
                allDigits = allDigits && digit < 10
                value = value &* 10 &+ Int64(digit)
            }
            return value
        }
        let year = number(0, 4)
        let month = number(5, 2)
        let day = number(8, 2)
        let hour = number(11, 2)
        let minute = number(14, 2)
        let second = number(17, 2)
        guard allDigits, month >= 1, month <= 12, day >= 1, day <= daysInMonth(year: year, month: month),
            hour <= 23, minute <= 59, second <= 59
        else { return nil }
        let whole =
            daysFromCivil(year: year, month: month, day: day) * 86_400 - unixEpochToReference
            + hour * 3600 + minute * 60 + second
        guard count > 19 else { return Double(whole) }
        guard bytes[19] == UInt8(ascii: ".") else { return nil }
        let fractionCount = count - 20
        let fraction = number(20, min(fractionCount, 15))
        guard allDigits else { return nil }
        // Up to 15 digits, one correctly rounded division of two exact doubles gives what the
        // general path gives after it strips trailing zeros (the quotient is the same number);
        // the general path handles more digits and the second before the reference date.
        guard fractionCount <= 15, whole != -1 else {
            for index in 20..<count where bytes[index] &- 0x30 >= 10 { return nil }
            return try? interval(whole: whole, fraction: text[20..<count])
        }
        return Double(whole) + Double(fraction) / powersOfTen[fractionCount]
    }

    /// Reads every form ``parse(_:)`` accepts, with an error that says what is wrong.
    package static func parseAnyForm(_ text: UnsafeBufferPointer<UInt8>) throws(ParseFailure) -> Parsed {
        guard !text.isEmpty else { throw ParseFailure("empty text is not a date") }
        if isDecimalNumber(text) { return .number }
        var reader = ByteReader(text: text)
        guard text.count >= 10, let year = reader.digits(4), reader.skip("-"),
            let month = reader.digits(2), reader.skip("-"), let day = reader.digits(2)
        else { throw ParseFailure(acceptedForms) }
        guard (1...12).contains(month) else { throw ParseFailure("month \(month) is out of range 01...12") }
        guard day >= 1, day <= daysInMonth(year: year, month: month) else {
            throw ParseFailure("day \(day) does not exist in \(padded(year, 4))-\(padded(month, 2))")
        }
        var whole = daysFromCivil(year: year, month: month, day: day) * 86_400 - unixEpochToReference
        guard !reader.isAtEnd else { return .interval(Double(whole)) }

        guard reader.skip(" ") || reader.skip("T") || reader.skip("t") else {
            throw ParseFailure("unexpected text after the date; " + acceptedForms)
        }
        guard let hour = reader.digits(2), reader.skip(":"), let minute = reader.digits(2) else {
            throw ParseFailure("expected a time HH:MM after the date; " + acceptedForms)
        }
        guard hour <= 23 else { throw ParseFailure("hour \(hour) is out of range 00...23") }
        guard minute <= 59 else { throw ParseFailure("minute \(minute) is out of range 00...59") }
        var second: Int64 = 0
        if reader.skip(":") {
            guard let value = reader.digits(2) else { throw ParseFailure("expected two digits of seconds") }
            guard value <= 59 else { throw ParseFailure("second \(value) is out of range 00...59") }
            second = value
        }
        var fraction = 0..<0
        if reader.skip(".") {
            let start = reader.index
            while reader.isDigit { reader.index += 1 }
            guard reader.index > start else { throw ParseFailure("expected digits after the decimal point") }
            fraction = start..<reader.index
        }
        whole += hour * 3600 + minute * 60 + second
        whole -= try reader.utcOffset()
        guard reader.isAtEnd else {
            throw ParseFailure("unexpected text after the time; " + acceptedForms)
        }
        return .interval(try interval(whole: whole, fraction: text[fraction]))
    }

    /// Whole seconds plus ASCII fraction digits, exactly as the formatter expects.
    private static func interval(whole: Int64, fraction: Slice<UnsafeBufferPointer<UInt8>>)
        throws(ParseFailure)
        -> Double
    {
        var end = fraction.endIndex
        while end > fraction.startIndex, fraction[end - 1] == 0x30 { end -= 1 }
        let digits = fraction[fraction.startIndex..<end]
        if digits.count < integerPowersOfTen.count {
            var value: UInt64 = 0
            for digit in digits { value = value * 10 + UInt64(digit - 0x30) }
            if let result = interval(whole: whole, digits: value, count: digits.count) { return result }
        }
        guard let result = interval(whole: whole, fractionDigits: digits) else {
            throw ParseFailure("the fraction of a second cannot be read")  // unreachable: digits only
        }
        return result
    }

    /// Whether the whole text is `[+-]digits[.digits][e[+-]digits]` (or `[+-].digits...`).
    static func isDecimalNumber(_ text: UnsafeBufferPointer<UInt8>) -> Bool {
        var reader = ByteReader(text: text)
        _ = reader.skip("+") || reader.skip("-")
        var mantissaDigits = 0
        while reader.isDigit {
            reader.index += 1
            mantissaDigits += 1
        }
        if reader.skip(".") {
            while reader.isDigit {
                reader.index += 1
                mantissaDigits += 1
            }
        }
        guard mantissaDigits > 0 else { return false }
        if reader.skip("e") || reader.skip("E") {
            _ = reader.skip("+") || reader.skip("-")
            guard reader.isDigit else { return false }
            while reader.isDigit { reader.index += 1 }
        }
        return reader.isAtEnd
    }
}

/// A non-negative number with leading zeros: `padded(7, 2)` is `07`.
private func padded(_ value: Int64, _ width: Int) -> String {
    let digits = String(value)
    return String(repeating: "0", count: max(0, width - digits.count)) + digits
}

/// A cursor over UTF-8 bytes; every read is bounds-checked and fails softly.
private struct ByteReader {
    let text: UnsafeBufferPointer<UInt8>
    var index = 0

    var isAtEnd: Bool { index >= text.count }
    var isDigit: Bool { index < text.count && (0x30...0x39).contains(text[index]) }

    /// Consumes `character` when it is next.
    mutating func skip(_ character: Unicode.Scalar) -> Bool {
        guard index < text.count, text[index] == UInt8(ascii: character) else { return false }
        index += 1
        return true
    }

    /// Consumes exactly `count` ASCII digits and returns their value.
    mutating func digits(_ count: Int) -> Int64? {
        guard index + count <= text.count else { return nil }
        var value: Int64 = 0
        for offset in 0..<count {
            let byte = text[index + offset]
            guard (0x30...0x39).contains(byte) else { return nil }
            value = value * 10 + Int64(byte - 0x30)
        }
        index += count
        return value
    }

    /// Consumes an optional `Z` or `±HH:MM`, `±HHMM`, `±HH` and returns the offset in seconds.
    mutating func utcOffset() throws(DateText.ParseFailure) -> Int64 {
        if skip("Z") || skip("z") { return 0 }
        let sign: Int64
        if skip("+") {
            sign = 1
        } else if skip("-") {
            sign = -1
        } else {
            return 0
        }
        guard let hours = digits(2) else {
            throw DateText.ParseFailure("expected a UTC offset such as +02:00, +0200 or +02")
        }
        var minutes: Int64 = 0
        if skip(":") {
            guard let value = digits(2) else {
                throw DateText.ParseFailure("expected offset minutes after ':'")
            }
            minutes = value
        } else if let value = digits(2) {
            minutes = value
        }
        guard hours <= 23, minutes <= 59 else {
            let shown = (sign < 0 ? "-" : "+") + padded(hours, 2) + ":" + padded(minutes, 2)
            throw DateText.ParseFailure("UTC offset \(shown) is out of range (at most ±23:59)")
        }
        return sign * (hours * 3600 + minutes * 60)
    }
}
