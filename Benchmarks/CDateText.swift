import Foundation
import LiteRecord

/// LiteRecord's default date text (`DateStorage.text`: UTC `YYYY-MM-DD HH:MM:SS[.fraction]`)
/// written and read the way a careful C programmer would: integer civil-date arithmetic on the
/// bytes, a fixed-size buffer on the stack, no LiteRecord code, no Foundation formatter.
///
/// The C sides use this instead of LiteRecord's public `DateStorage.text`, so that LiteRecord's
/// own date code is measured against hand-written code rather than against itself. The
/// fraction has the fewest digits that read back exactly (the rule LiteRecord documents), so
/// both sides store the same bytes; each workload's setup compares the stored tables, and
/// ``verifyAgainstLiteRecord(_:)`` compares the text of every date a workload uses.
enum CDateText {
    /// Bytes enough for any date this writes: 19 for the fields, a point, up to 17 digits.
    static let capacity = 40

    /// Seconds from 1970-01-01 to 2001-01-01 (Foundation's reference date), UTC.
    private static let unixEpochToReference: Int64 = 978_307_200

    /// `10^n` for `n` in 0...19 as doubles, all exact.
    private static let powersOfTen: [Double] = [
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
        1e17, 1e18, 1e19,
    ]

    /// Text the C side cannot write or read; the benchmark stops rather than measure less work.
    struct Unsupported: Error, CustomStringConvertible {
        let description: String
    }

    // MARK: - Writing

    /// Writes the text of a date (seconds since 2001-01-01 UTC) into `buffer`, which holds at
    /// least ``capacity`` bytes.
    ///
    /// - Returns: The number of bytes written.
    /// - Throws: ``Unsupported`` outside the years 0000...9999, or when no fraction of up to 17
    ///   digits reads back exactly (only within seconds of the reference date; the benchmarks'
    ///   dates are far from it).
    @inline(__always)
    static func write(_ interval: Double, into buffer: UnsafeMutablePointer<UInt8>) throws -> Int {
        let floor = interval.rounded(.down)
        // 0000-01-01 and 10000-01-01 in seconds since the reference date.
        guard interval.isFinite, floor >= -63_145_526_400, floor < 252_423_993_600 else {
            throw Unsupported(description: "C date text: \(interval) is outside the years 0000...9999")
        }
        let whole = Int64(floor)
        let unix = whole + unixEpochToReference
        let days = unix >= 0 ? unix / 86_400 : (unix - 86_399) / 86_400
        let secondOfDay = unix - days * 86_400
        let (year, month, day) = civilFromDays(days)
        @inline(__always) func put(_ value: Int64, at index: Int) {
            buffer[index] = 0x30 &+ UInt8(truncatingIfNeeded: value / 10)
            buffer[index + 1] = 0x30 &+ UInt8(truncatingIfNeeded: value % 10)
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
        guard interval != floor else { return 19 }

        // The shortest fraction that reads back as exactly `interval` through `read`'s formula.
        let fraction = interval - floor
        for count in 1...17 {
            let scale = powersOfTen[count]
            var digits = UInt64((fraction * scale).rounded())
            guard digits > 0, Double(digits) < scale, Double(whole) + Double(digits) / scale == interval
            else { continue }
            var length = count
            while digits % 10 == 0 {
                digits /= 10
                length -= 1
            }
            buffer[19] = UInt8(ascii: ".")
            var index = 19 + length
            while index > 19 {
                buffer[index] = 0x30 &+ UInt8(truncatingIfNeeded: digits % 10)
                digits /= 10
                index -= 1
            }
            return 20 + length
        }
        throw Unsupported(description: "C date text: no fraction of up to 17 digits reads back \(interval)")
    }

    // MARK: - Reading

    /// Reads `YYYY-MM-DD`, optionally followed by ` HH:MM:SS` and `.` and up to 19 fraction
    /// digits, as seconds since 2001-01-01 UTC: the forms LiteRecord writes and Northwind holds.
    ///
    /// - Throws: ``Unsupported`` for anything else (other forms LiteRecord also reads, such as
    ///   offsets, are not needed by the benchmarks' data, so they fail loudly).
    @inline(__always)
    static func read(_ text: UnsafeBufferPointer<UInt8>) throws -> Double {
        guard let bytes = text.baseAddress, text.count == 10 || text.count >= 19 else {
            throw unsupported(text)
        }
        var valid = true
        @inline(__always) func number(_ start: Int, _ count: Int) -> Int64 {
            var value: Int64 = 0
            for index in start..<start + count {
                let digit = bytes[index] &- 0x30
                valid = valid && digit < 10
                value = value * 10 + Int64(digit)
            }
            return value
        }
        let year = number(0, 4)
        let month = number(5, 2)
        let day = number(8, 2)
        valid = valid && bytes[4] == UInt8(ascii: "-") && bytes[7] == UInt8(ascii: "-")
        valid = valid && month >= 1 && month <= 12 && day >= 1 && day <= daysInMonth(year, month)
        var whole = daysFromCivil(year, month, day) * 86_400 - unixEpochToReference
        guard text.count > 10 else {
            guard valid else { throw unsupported(text) }
            return Double(whole)
        }
        let hour = number(11, 2)
        let minute = number(14, 2)
        let second = number(17, 2)
        valid = valid && bytes[10] == UInt8(ascii: " ") && bytes[13] == UInt8(ascii: ":")
        valid = valid && bytes[16] == UInt8(ascii: ":") && hour < 24 && minute < 60 && second < 60
        whole += hour * 3600 + minute * 60 + second
        guard text.count > 19 else {
            guard valid else { throw unsupported(text) }
            return Double(whole)
        }
        let count = text.count - 20
        guard valid, bytes[19] == UInt8(ascii: "."), count >= 1, count <= 19 else { throw unsupported(text) }
        let digits = UInt64(number(20, count))  // at most 19 digits: fits
        // Both steps are correctly rounded, as in LiteRecord's reader, so trailing zeros do not
        // change the result; more digits than a double holds exactly would need a slower path.
        guard valid, digits <= 1 << 53 else { throw unsupported(text) }
        return Double(whole) + Double(digits) / powersOfTen[count]
    }

    private static func unsupported(_ text: UnsafeBufferPointer<UInt8>) -> Unsupported {
        Unsupported(
            description: "C date text: cannot read \(String(decoding: text, as: UTF8.self).debugDescription)")
    }

    // MARK: - Civil dates (Howard Hinnant's algorithms, proleptic Gregorian)

    /// Days from 1970-01-01 to a calendar date.
    @inline(__always)
    private static func daysFromCivil(_ year: Int64, _ month: Int64, _ day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The calendar date of a day counted from 1970-01-01.
    @inline(__always)
    private static func civilFromDays(_ days: Int64) -> (year: Int64, month: Int64, day: Int64) {
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

    @inline(__always)
    private static func daysInMonth(_ year: Int64, _ month: Int64) -> Int64 {
        switch month {
        case 2: year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    // MARK: - Check

    /// Throws unless this writes every date exactly as LiteRecord's `DateStorage.text` does and
    /// reads each text back to the same date: the two sides must store the same bytes.
    static func verifyAgainstLiteRecord(_ dates: some Sequence<Date>) throws {
        try withUnsafeTemporaryAllocation(of: UInt8.self, capacity: capacity) { buffer in
            guard let base = buffer.baseAddress else { return }
            for date in dates {
                let count = try write(date.timeIntervalSinceReferenceDate, into: base)
                let text = UnsafeBufferPointer(start: base, count: count)
                let literecord = try DateStorage.text.databaseValue(for: date)
                guard literecord == .text(String(decoding: text, as: UTF8.self)),
                    try read(text) == date.timeIntervalSinceReferenceDate
                else {
                    throw FixtureError(
                        description: "C date text \(String(decoding: text, as: UTF8.self)) differs from "
                            + "LiteRecord's \(literecord) or does not read back \(date)")
                }
            }
        }
    }
}
