import Foundation

/// LiteRecord's own date text: `YYYY-MM-DD HH:MM:SS[.fraction]`, UTC, proleptic Gregorian.
///
/// Written and read with integer civil-date arithmetic on UTF-8 bytes; no `DateFormatter`,
/// `ISO8601DateFormatter` or `Calendar` (each costs tens of microseconds per call on Linux).
///
/// The fraction digits are the shortest that make ``DateText/parse(_:)`` return exactly the
/// date's `timeIntervalSinceReferenceDate`, so every date of years 0000...9999 round-trips with
/// `==`. The reading side is in DateParser.swift.
package enum DateText {
    /// Seconds from 1970-01-01 (Unix epoch) to 2001-01-01 (Foundation's reference date), UTC.
    static let unixEpochToReference: Int64 = 978_307_200
    /// 0000-01-01 00:00:00 UTC, in seconds since the reference date.
    static let firstSecond: Int64 = -63_145_526_400
    /// 10000-01-01 00:00:00 UTC, in seconds since the reference date (the first second too late).
    static let endSecond: Int64 = 252_423_993_600
    /// The julian day number of the reference date.
    static let referenceJulianDay = 2_451_910.5

    /// `10^n` for `n` in 0...19, as integers.
    static let integerPowersOfTen: [UInt64] = [
        1, 10, 100, 1_000, 10_000, 100_000, 1_000_000, 10_000_000, 100_000_000, 1_000_000_000,
        10_000_000_000, 100_000_000_000, 1_000_000_000_000, 10_000_000_000_000, 100_000_000_000_000,
        1_000_000_000_000_000, 10_000_000_000_000_000, 100_000_000_000_000_000,
        1_000_000_000_000_000_000, 10_000_000_000_000_000_000,
    ]
    /// `10^n` for `n` in 0...19, as doubles (all exact).
    static let powersOfTen: [Double] = [
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
        1e17, 1e18, 1e19,
    ]

    // MARK: - Civil-date arithmetic (Howard Hinnant's algorithms, proleptic Gregorian)

    /// Days from 1970-01-01 to a calendar date. Valid for every `Int64` year that does not overflow.
    static func daysFromCivil(year: Int64, month: Int64, day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The calendar date of a day counted from 1970-01-01.
    static func civilFromDays(_ days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shiftedMonth = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * shiftedMonth + 2) / 5 + 1
        let month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    /// Whether `year` has a February 29th.
    static func isLeapYear(_ year: Int64) -> Bool {
        year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
    }

    /// The number of days of a month (1...12).
    static func daysInMonth(year: Int64, month: Int64) -> Int64 {
        switch month {
        case 2: isLeapYear(year) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    // MARK: - Whole seconds and fraction digits → time interval

    /// The time interval written as whole seconds `whole` plus the fraction `0.d₁…dₙ` whose digits
    /// are the integer `digits` (`digits < 10^count`, no trailing zero required), or `nil` when the
    /// digits are too many for this exact fast path.
    ///
    /// Each step is correctly rounded: `digits / 10^count` is one IEEE division of two exact
    /// doubles. For `whole == -1` (the last second before the reference date) the value is
    /// computed as `-(1 - 0.d₁…dₙ)`, which reaches the tiny negative intervals `-1 + x` cannot.
    static func interval(whole: Int64, digits: UInt64, count: Int) -> Double? {
        guard count > 0 else { return Double(whole) }
        guard count < integerPowersOfTen.count else { return nil }
        if whole == -1 {
            let complement = integerPowersOfTen[count] - digits
            guard complement <= 1 << 53 else { return nil }
            return -(Double(complement) / powersOfTen[count])
        }
        guard digits <= 1 << 53 else { return nil }
        return Double(whole) + Double(digits) / powersOfTen[count]
    }

    /// The same as ``interval(whole:digits:count:)`` for any number of fraction digits (ASCII,
    /// last digit nonzero), through the standard library's correctly rounded decimal parser.
    static func interval(whole: Int64, fractionDigits: some Collection<UInt8>) -> Double? {
        var text: [UInt8] = Array("0.".utf8)
        text.reserveCapacity(2 + fractionDigits.count)
        if whole == -1 {
            text += complement(of: fractionDigits)
            return Double(String(decoding: text, as: UTF8.self)).map { -$0 }
        }
        text += fractionDigits
        return Double(String(decoding: text, as: UTF8.self)).map { Double(whole) + $0 }
    }

    /// The digits of `1 - 0.d₁…dₙ` (ASCII digits, last one nonzero): an involution.
    static func complement(of digits: some Collection<UInt8>) -> [UInt8] {
        var result = digits.map { 0x39 - $0 + 0x30 }  // 9 - d
        if let last = result.indices.last { result[last] += 1 }  // 10 - d for the last digit
        return result
    }

    // MARK: - Formatting

    /// Formats a date as `YYYY-MM-DD HH:MM:SS[.fraction]` in UTC.
    ///
    /// - Throws: ``ValueConversionError`` for a non-finite interval or a year outside 0000...9999.
    static func format(_ date: Date) throws(ValueConversionError) -> String {
        let interval = date.timeIntervalSinceReferenceDate
        let floor = interval.rounded(.down)
        guard interval.isFinite, floor >= Double(firstSecond), floor < Double(endSecond) else {
            throw outOfRangeError(interval)
        }
        let whole = Int64(floor)
        var digits: UInt64 = 0
        var count = 0
        var longDigits: [UInt8] = []
        if interval != floor {
            if let (fast, fastCount) = shortestFraction(of: interval, whole: whole) {
                (digits, count) = (fast, fastCount)
            } else {
                longDigits = exactFractionDigits(of: interval, whole: whole)
                count = longDigits.count
            }
        }
        let length = 19 + (count > 0 ? 1 + count : 0)
        return String(unsafeUninitializedCapacity: length) { buffer in
            writeFields(whole: whole, into: buffer)
            guard count > 0 else { return 19 }
            buffer[19] = UInt8(ascii: ".")
            if longDigits.isEmpty {
                var rest = digits
                for index in stride(from: 19 + count, to: 19, by: -1) {
                    buffer[index] = 0x30 + UInt8(truncatingIfNeeded: rest % 10)
                    rest /= 10
                }
            } else {
                for (offset, digit) in longDigits.enumerated() { buffer[20 + offset] = digit }
            }
            return length
        }
    }

    /// The text ``format(_:)`` gives, written into a buffer on the stack and lent to `body`,
    /// for binding it without allocating a `String`; `nil` where ``format(_:)`` throws.
    static func withText<R>(_ date: Date, _ body: (UnsafeRawBufferPointer) -> R) -> R? {
        let interval = date.timeIntervalSinceReferenceDate
        let floor = interval.rounded(.down)
        guard interval.isFinite, floor >= Double(firstSecond), floor < Double(endSecond) else { return nil }
        let whole = Int64(floor)
        var digits: UInt64 = 0
        var count = 0
        if interval != floor {
            guard let (fast, fastCount) = shortestFraction(of: interval, whole: whole) else {
                // The rare fraction of more than 17 digits: through the `String`.
                guard var text = try? format(date) else { return nil }
                return text.withUTF8 { body(UnsafeRawBufferPointer($0)) }
            }
            (digits, count) = (fast, fastCount)
        }
        // 19 bytes of fields, a point and at most 17 digits.
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 37) { buffer in
            writeFields(whole: whole, into: buffer)
            guard count > 0 else { return body(UnsafeRawBufferPointer(start: buffer.baseAddress, count: 19)) }
            buffer[19] = UInt8(ascii: ".")
            var rest = digits
            for index in stride(from: 19 + count, to: 19, by: -1) {
                buffer[index] = 0x30 + UInt8(truncatingIfNeeded: rest % 10)
                rest /= 10
            }
            return body(UnsafeRawBufferPointer(start: buffer.baseAddress, count: 20 + count))
        }
    }

    /// Writes `YYYY-MM-DD HH:MM:SS` (19 bytes) for whole seconds since the reference date.
    private static func writeFields(whole: Int64, into buffer: UnsafeMutableBufferPointer<UInt8>) {
        let unix = whole + unixEpochToReference
        let days = unix >= 0 ? unix / 86_400 : (unix - 86_399) / 86_400
        let secondOfDay = unix - days * 86_400
        let (year, month, day) = civilFromDays(days)
        func put(_ value: Int64, at index: Int) {
            buffer[index] = 0x30 + UInt8(truncatingIfNeeded: value / 10)
            buffer[index + 1] = 0x30 + UInt8(truncatingIfNeeded: value % 10)
        }
        put(year / 100, at: 0)
        put(year % 100, at: 2)
        buffer[4] = UInt8(ascii: "-")
        put(month, at: 5)
        buffer[7] = UInt8(ascii: "-")
        put(day, at: 8)
        buffer[10] = UInt8(ascii: " ")
        put(secondOfDay / 3600, at: 11)
        buffer[13] = UInt8(ascii: ":")
        put(secondOfDay / 60 % 60, at: 14)
        buffer[16] = UInt8(ascii: ":")
        put(secondOfDay % 60, at: 17)
    }

    /// The fewest fraction digits (up to 17, as an integer and a count, no trailing zero) that
    /// ``interval(whole:digits:count:)`` turns back into exactly `interval`; `nil` when none does,
    /// which happens only within a few seconds of the reference date.
    private static func shortestFraction(of interval: Double, whole: Int64) -> (UInt64, Int)? {
        let fraction = interval - Double(whole)  // exact, except near -1 where it is only a guess
        // A candidate farther than about one ulp of `interval` from the fraction cannot read back
        // as `interval`; this multiplication-only test skips the exact check (a division) for
        // most short candidates. It only saves time: every result is still checked exactly.
        let slack = whole == -1 ? Double.infinity : 2 * interval.ulp + 0x1p-52
        var scale = 1.0
        var limit: UInt64 = 1
        for count in 1...17 {
            scale *= 10
            limit *= 10
            let scaled = fraction * scale
            let rounded = Int64(scaled + 0.5)  // scaled is in 0...1e17
            guard abs(scaled - Double(rounded)) <= slack * scale, rounded > 0 else { continue }
            var digits = UInt64(rounded)
            guard digits < limit, Self.interval(whole: whole, digits: digits, count: count) == interval
            else { continue }
            var trimmed = count
            while digits % 10 == 0 {
                digits /= 10
                trimmed -= 1
            }
            return (digits, trimmed)
        }
        return nil
    }

    /// Fraction digits that always round-trip: the shortest round-trip decimal digits of the
    /// exact fraction `interval - whole` (or, for `whole == -1`, the complement of those of
    /// `-interval`), read back by ``interval(whole:fractionDigits:)`` with an exact addition.
    private static func exactFractionDigits(of interval: Double, whole: Int64) -> [UInt8] {
        if whole == -1 {
            return complement(of: decimalDigits(ofFraction: -interval))
        }
        return decimalDigits(ofFraction: interval - Double(whole))
    }

    /// The digits after `0.` of the shortest round-trip decimal form of `x` in (0, 1), without
    /// trailing zeros: `1.5e-05` gives `000015`.
    static func decimalDigits(ofFraction x: Double) -> [UInt8] {
        var significand: [UInt8] = []
        var integerDigitCount = 0
        var exponent = 0
        var exponentSign = 1
        var part = 0  // 0: integer digits, 1: fraction digits, 2: exponent
        for byte in x.description.utf8 {
            switch byte {
            case UInt8(ascii: "."): part = 1
            case UInt8(ascii: "e"), UInt8(ascii: "E"): part = 2
            case UInt8(ascii: "-"): exponentSign = -1
            case 0x30...0x39:
                if part == 2 {
                    exponent = exponent * 10 + Int(byte - 0x30)
                } else {
                    significand.append(byte)
                    if part == 0 { integerDigitCount += 1 }
                }
            default: continue  // "+" of the exponent
            }
        }
        let pointPosition = integerDigitCount + exponentSign * exponent
        var digits: [UInt8]
        if pointPosition <= 0 {
            digits = [UInt8](repeating: 0x30, count: -pointPosition) + significand
        } else {
            digits = Array(significand.dropFirst(pointPosition))  // only zeros, as x < 1
        }
        while digits.last == 0x30 { digits.removeLast() }
        return digits
    }

    /// The error for a date that text cannot hold.
    static func outOfRangeError(_ interval: Double) -> ValueConversionError {
        let advice =
            "date text holds the years 0000...9999 (four digits, so that dates compare as text); store such dates "
            + "with a numeric DateStorage (.unixSeconds, .unixMilliseconds or .julianDay)"
        guard interval.isFinite else {
            return ValueConversionError(
                storing: Date.self, reason: "its time interval (\(interval)) is not a finite number")
        }
        var which = "timeIntervalSinceReferenceDate \(interval)"
        if abs(interval) < 1e15 {
            let unix = Int64(interval.rounded(.down)) + unixEpochToReference
            let days = unix >= 0 ? unix / 86_400 : (unix - 86_399) / 86_400
            which = "year \(civilFromDays(days).year), " + which
        }
        return ValueConversionError(
            storing: Date.self, reason: "the date (\(which)) is out of range: " + advice)
    }
}
