import Foundation

/// How a `Date` is stored in a column.
///
/// The default, ``text``, writes UTC text that SQLite's date functions read, exact to the last
/// bit of the `Date`: `2024-05-17 13:45:30.25`. The numeric strategies suit existing databases
/// and other tools that expect numbers; they are compact but round to their precision.
///
/// Reading is forgiving under every strategy: text in any of the forms below is accepted, and a
/// number (INTEGER, REAL, or text that is only a number) is read in the strategy's unit (Unix
/// seconds under ``text``). Anything else is a ``ValueConversionError``, never a guess.
///
/// Queries compare, sort and aggregate a date column as the instant every accepted form reads
/// as (through the SQL function `literecord_instant`), so rows written in another form, or
/// under another strategy, are found as Swift would find them among the decoded models.
///
/// Accepted text (UTC unless an offset is given; the offset is applied):
/// - `2024-05-17` (midnight UTC)
/// - `2024-05-17 13:45`, `2024-05-17 13:45:30`, `2024-05-17 13:45:30.123456789` (any number of
///   fraction digits)
/// - the same with `T` instead of the space: `2024-05-17T13:45:30`
/// - followed by `Z`, or an offset `+02:00`, `-0530`, `+02`: `2024-05-17T15:45:30+02:00`
/// - a decimal number: `1715953530`, `1715953530.25`, `-1.5e3`
///
/// ```swift
/// var configuration = Configuration()
/// configuration.dateStorage = .unixMilliseconds
/// try DateStorage.text.databaseValue(for: Date(timeIntervalSince1970: 0))
/// // .text("1970-01-01 00:00:00")
/// ```
///
/// ## Topics
/// - ``text``
/// - ``unixSeconds``
/// - ``unixMilliseconds``
/// - ``julianDay``
/// - ``columnType``
/// - ``databaseValue(for:)``
/// - ``date(from:)``
public enum DateStorage: Sendable, Hashable {
    /// UTC text `YYYY-MM-DD HH:MM:SS`, followed by `.` and fraction digits when the date has a
    /// fraction of a second (column type TEXT).
    ///
    /// The fraction has as many digits as needed for the date to read back exactly equal (`==`):
    /// `2024-05-17 13:45:30.25`, `2025-01-02 03:04:05.1234567`. Text sorts chronologically and
    /// works with `datetime()`, `strftime()`, `julianday()` and `unixepoch()`. Holds the years
    /// 0000...9999; other dates must use a numeric strategy. Numbers read as Unix seconds.
    case text
    /// Seconds since 1970-01-01 00:00:00 UTC as a REAL (column type REAL).
    ///
    /// Precise to about a quarter of a microsecond for present-day dates; not always bit-exact.
    case unixSeconds
    /// Whole milliseconds since 1970-01-01 00:00:00 UTC as an INTEGER (column type INTEGER).
    ///
    /// Dates are rounded to the nearest millisecond. Reading a REAL keeps its fraction.
    case unixMilliseconds
    /// The julian day number as a REAL (column type REAL), as SQLite's `julianday()` returns it.
    ///
    /// Precise to about 40 microseconds for present-day dates.
    case julianDay

    /// The column type a column of dates stored this way is declared with.
    public var columnType: DatabaseColumnType {
        switch self {
        case .text: .text
        case .unixSeconds, .julianDay: .real
        case .unixMilliseconds: .integer
        }
    }

    /// The value that stores `date` in this strategy.
    ///
    /// - Parameter date: The date to store.
    /// - Returns: `.text`, `.real` or `.integer`, as the strategy says.
    /// - Throws: ``ValueConversionError`` when the date cannot be stored this way: a non-finite
    ///   time interval (any strategy), a year outside 0000...9999 (``text``; the message suggests
    ///   a numeric strategy), or a millisecond count outside the 64-bit integer range.
    public func databaseValue(for date: Date) throws -> DatabaseValue {
        let interval = date.timeIntervalSinceReferenceDate
        switch self {
        case .text:
            return .text(try DateText.format(date))
        case .unixSeconds:
            try Self.requireFinite(interval)
            return .real(date.timeIntervalSince1970)
        case .unixMilliseconds:
            try Self.requireFinite(interval)
            // Whole seconds and the (exact) fraction apart, so the rounding is that of the true
            // instant, not of a product that has already been rounded.
            let whole = interval.rounded(.down)
            let milliseconds: (partialValue: Int64, overflow: Bool) =
                abs(whole) < 9e15
                ? (Int64(whole) * 1000 + Int64(((interval - whole) * 1000).rounded()))
                    .addingReportingOverflow(DateText.unixEpochToReference * 1000)
                : (0, true)
            guard !milliseconds.overflow else {
                throw ValueConversionError(
                    storing: Date.self,
                    reason: "its Unix time in milliseconds (\((interval + 978_307_200) * 1000)) is outside "
                        + "the 64-bit integer range")
            }
            return .integer(milliseconds.partialValue)
        case .julianDay:
            try Self.requireFinite(interval)
            return .real(interval / 86_400 + DateText.referenceJulianDay)
        }
    }

    /// Reads a date stored by this strategy, or written by another tool in a common form.
    ///
    /// - Parameter value: What the column holds.
    /// - Returns: The date. Text without an offset is UTC.
    /// - Throws: ``ValueConversionError`` naming the value and `Date` for NULL, a blob, a
    ///   non-finite number (or a julian day so large its date is not finite), or text that is not one of the accepted forms (an impossible date
    ///   such as `2024-02-30` or `2024-01-01 25:00:00` included).
    public func date(from value: DatabaseValue) throws -> Date {
        switch value {
        case .integer(let number):
            return try date(fromInteger: number, value: value)
        case .real(let number):
            guard number.isFinite else {
                throw ValueConversionError(value: value, to: Date.self, reason: "not a finite number")
            }
            return try date(fromNumber: number, value: value)
        case .text(var text):
            let parsed = text.withUTF8 { bytes -> Result<DateText.Parsed, DateText.ParseFailure> in
                do throws(DateText.ParseFailure) {
                    return .success(try DateText.parse(bytes))
                } catch {
                    return .failure(error)
                }
            }
            switch parsed {
            case .success(.interval(let interval)):
                return Date(timeIntervalSinceReferenceDate: interval)
            case .success(.number):
                guard let number = Double(text), number.isFinite else {
                    throw ValueConversionError(
                        value: value, to: Date.self, reason: "the number is out of range")
                }
                return try date(fromNumber: number, value: value)
            case .failure(let failure):
                throw ValueConversionError(value: value, to: Date.self, reason: failure.reason)
            }
        case .null:
            throw ValueConversionError(value: value, to: Date.self, reason: "NULL is not a date")
        case .blob:
            throw ValueConversionError(value: value, to: Date.self, reason: "a blob is not a date")
        }
    }

    /// An integer in this strategy's unit, shifted to the reference date before the one rounding
    /// step, so that whole seconds and milliseconds read back exactly.
    private func date(fromInteger number: Int64, value: DatabaseValue) throws -> Date {
        switch self {
        case .text, .unixSeconds:
            let (shifted, overflow) = number.subtractingReportingOverflow(DateText.unixEpochToReference)
            guard !overflow else { return try date(fromNumber: Double(number), value: value) }
            return Date(timeIntervalSinceReferenceDate: Double(shifted))
        case .unixMilliseconds:
            let (shifted, overflow) = number.subtractingReportingOverflow(
                DateText.unixEpochToReference * 1000)
            guard !overflow else { return try date(fromNumber: Double(number), value: value) }
            return Date(timeIntervalSinceReferenceDate: Double(shifted) / 1000)
        case .julianDay:
            return try date(fromNumber: Double(number), value: value)
        }
    }

    /// A finite number in this strategy's unit; Unix seconds for ``text``.
    ///
    /// - Throws: ``ValueConversionError`` when the date's interval would not be finite (a julian
    ///   day near `Double.greatestFiniteMagnitude` overflows when converted to seconds).
    private func date(fromNumber number: Double, value: DatabaseValue) throws -> Date {
        switch self {
        case .text, .unixSeconds:
            return Date(timeIntervalSince1970: number)
        case .unixMilliseconds:
            return Date(timeIntervalSince1970: number / 1000)
        case .julianDay:
            let interval = (number - DateText.referenceJulianDay) * 86_400
            guard interval.isFinite else {
                throw ValueConversionError(
                    value: value, to: Date.self, reason: "the julian day is too large to be a date")
            }
            return Date(timeIntervalSinceReferenceDate: interval)
        }
    }

    private static func requireFinite(_ interval: Double) throws {
        guard interval.isFinite else {
            throw ValueConversionError(
                storing: Date.self, reason: "its time interval (\(interval)) is not a finite number")
        }
    }
}
