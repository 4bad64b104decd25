import Foundation
import LiteRecord
import Testing

/// Reading dates written by other tools: every accepted form with its exact date, every
/// rejected form with its error, and a fuzz test that the parser is total.
@Suite struct DateParsingTests {
    /// 2024-05-17 13:45:30 UTC in Unix seconds.
    static let sample = 1_715_953_530.0

    /// A date `seconds` after the Unix epoch, plus an exact `fraction`.
    static func date(_ seconds: Double, plus fraction: Double = 0) -> Date {
        Date(timeIntervalSinceReferenceDate: (seconds - 978_307_200) + fraction)
    }

    // MARK: - Accepted forms

    @Test(arguments: [
        ("2024-05-17", date(1_715_904_000)),
        ("2024-05-17 13:45", date(1_715_953_500)),
        ("2024-05-17 13:45:30", date(sample)),
        ("2024-05-17 13:45:30.25", date(sample, plus: 0.25)),
        ("2024-05-17 13:45:30.123456789", date(sample, plus: 0.123456789)),
        ("2024-05-17 13:45:30.000", date(sample)),
        ("2024-05-17 13:45:30.5000000000000000000000000000000", date(sample, plus: 0.5)),
        ("2024-05-17T13:45", date(1_715_953_500)),
        ("2024-05-17T13:45:30", date(sample)),
        ("2024-05-17t13:45:30", date(sample)),
        ("2024-05-17T13:45:30.25", date(sample, plus: 0.25)),
        ("2024-05-17T13:45:30Z", date(sample)),
        ("2024-05-17T13:45:30z", date(sample)),
        ("2024-05-17T13:45:30.25Z", date(sample, plus: 0.25)),
        ("2024-05-17 13:45Z", date(1_715_953_500)),
        ("2024-05-17T15:45:30+02:00", date(sample)),
        ("2024-05-17T15:45:30+0200", date(sample)),
        ("2024-05-17T15:45:30+02", date(sample)),
        ("2024-05-17T08:15:30-05:30", date(sample)),
        ("2024-05-17T08:15:30-0530", date(sample)),
        ("2024-05-17 13:45:30+00:00", date(sample)),
        ("2024-05-17 13:45:30-00:00", date(sample)),
        ("2024-05-17T15:45:30.25+02:00", date(sample, plus: 0.25)),
        ("2024-05-18T00:44:30+11:00", date(sample - 60)),
        ("2024-05-17 00:30+01:00", date(1_715_902_200)),  // the offset crosses midnight
        ("2024-05-17 23:59:59.999-23:59", date(1_715_990_399 + 86_340, plus: 0.999)),
        ("2024-02-29", date(1_709_164_800)),
        ("2000-02-29 12:00:00", date(951_825_600)),
        ("1970-01-01", date(0)),
        ("1969-12-31 23:59:59.5", date(-1, plus: 0.5)),
        ("0000-01-01 00:00:00", date(-62_167_219_200)),
        ("0000-01-01 00:00:00+01:00", date(-62_167_222_800)),  // year -1 in UTC
        ("9999-12-31 23:59:59", date(253_402_300_799)),
        ("9999-12-31 23:59:59-23:00", date(253_402_383_599)),  // year 10000 in UTC
        // Text that is only a number: Unix seconds.
        ("0", date(0)),
        ("1715953530", date(sample)),
        ("1715953530.25", date(sample, plus: 0.25)),
        ("-86400", date(-86_400)),
        ("+12", date(12)),
        ("1.5e3", date(1500)),
        ("15E+2", date(1500)),
        (".5", date(0.5)),
        ("5.", date(5)),
        ("00002024", date(2024)),
    ])
    func acceptedText(text: String, expected: Date) throws {
        #expect(try Date.fromDatabaseValue(.text(text)) == expected)
        #expect(try DateStorage.text.date(from: .text(text)) == expected)
        if !Self.isNumber(text) {
            for storage in [DateStorage.unixSeconds, .unixMilliseconds, .julianDay] {
                #expect(try storage.date(from: .text(text)) == expected, "\(storage)")
            }
        }
    }

    @Test func manyFractionDigitsAreReadCorrectlyRounded() throws {
        let digits = "123456789012345678901234567890"
        let read = try Date.fromDatabaseValue(.text("2024-05-17 13:45:30.\(digits)"))
        let expected = (Self.sample - 978_307_200) + Double("0.\(digits)")!
        #expect(read.timeIntervalSinceReferenceDate == expected)
        // The last second before the reference date, with a tiny remainder.
        let tiny = try Date.fromDatabaseValue(.text("2000-12-31 23:59:59.999999999999999999999999999999"))
        #expect(tiny.timeIntervalSinceReferenceDate == -1e-30)
    }

    @Test func numbersAreUnixSeconds() throws {
        #expect(try Date.fromDatabaseValue(.integer(1_715_953_530)) == Self.date(Self.sample))
        #expect(try Date.fromDatabaseValue(.integer(0)) == Date(timeIntervalSince1970: 0))
        #expect(try Date.fromDatabaseValue(.integer(-1)) == Date(timeIntervalSince1970: -1))
        #expect(try Date.fromDatabaseValue(.real(1_715_953_530.25)) == Self.date(Self.sample, plus: 0.25))
        #expect(try Date.fromDatabaseValue(.integer(.max)) == Date(timeIntervalSince1970: Double(Int64.max)))
        #expect(try Date.fromDatabaseValue(.integer(.min)) == Date(timeIntervalSince1970: Double(Int64.min)))
        #expect(try Date?.fromDatabaseValue(.null) == nil)
    }

    // MARK: - Rejected forms

    @Test(arguments: [
        ("", "empty text"),
        ("hello", "expected YYYY-MM-DD"),
        ("2024-13-01", "month 13 is out of range"),
        ("2024-00-10", "month 0 is out of range"),
        ("2024-02-30", "day 30 does not exist in 2024-02"),
        ("2023-02-29", "day 29 does not exist in 2023-02"),
        ("1900-02-29", "day 29 does not exist in 1900-02"),
        ("2024-04-31", "day 31 does not exist in 2024-04"),
        ("2024-01-00", "day 0 does not exist"),
        ("2024-01-01 25:00:00", "hour 25 is out of range"),
        ("2024-01-01 24:00", "hour 24 is out of range"),
        ("2024-01-01 12:60", "minute 60 is out of range"),
        ("2024-01-01 12:00:60", "second 60 is out of range"),
        ("2024-01-01 10:00:00x", "unexpected text after the time"),
        ("2024-01-01 10:00:00 ", "unexpected text after the time"),
        ("2024-01-01 10:00:00Z ", "unexpected text after the time"),
        ("2024-01-01 10:00:00ZZ", "unexpected text after the time"),
        ("2024-01-01 10:00:00+02:00:00", "unexpected text after the time"),
        ("2024-01-01 10:00:00.5.5", "unexpected text after the time"),
        ("2024-01-01x", "unexpected text after the date"),
        ("2024-01-01 ", "expected a time HH:MM"),
        ("2024-01-01T", "expected a time HH:MM"),
        ("2024-01-01 10", "expected a time HH:MM"),
        ("2024-01-01 10:0", "expected a time HH:MM"),
        ("2024-01-01 1:00", "expected a time HH:MM"),
        ("2024-01-01 10:00:", "expected two digits of seconds"),
        ("2024-01-01 10:00:5", "expected two digits of seconds"),
        ("2024-01-01 10:00:00.", "expected digits after the decimal point"),
        ("2024-01-01 10:00:00.Z", "expected digits after the decimal point"),
        ("2024-01-01 10:00:00+", "expected a UTC offset"),
        ("2024-01-01 10:00:00+2", "expected a UTC offset"),
        ("2024-01-01 10:00:00+02:", "expected offset minutes"),
        ("2024-01-01 10:00:00+02:3", "expected offset minutes"),
        ("2024-01-01 10:00:00+020", "unexpected text after the time"),
        ("2024-01-01 10:00:00+24:00", "UTC offset +24:00 is out of range"),
        ("2024-01-01 10:00:00-02:60", "UTC offset -02:60 is out of range"),
        ("2024-01-01Z", "unexpected text after the date"),
        (" 2024-01-01", "expected YYYY-MM-DD"),
        ("24-01-01", "expected YYYY-MM-DD"),
        ("2024/01/01", "expected YYYY-MM-DD"),
        ("2024-1-01", "expected YYYY-MM-DD"),
        ("2024-01-1", "expected YYYY-MM-DD"),
        ("12024-01-01", "expected YYYY-MM-DD"),
        ("-2024-01-01", "expected YYYY-MM-DD"),
        ("２０２４-01-01", "expected YYYY-MM-DD"),
        ("2024-01-01\u{0}", "unexpected text after the date"),
        ("1e999", "out of range"),
        ("-1e999", "out of range"),
        ("inf", "expected YYYY-MM-DD"),
        ("nan", "expected YYYY-MM-DD"),
        ("0x10", "expected YYYY-MM-DD"),
        ("1.5e", "expected YYYY-MM-DD"),
        ("1 000", "expected YYYY-MM-DD"),
        ("+", "expected YYYY-MM-DD"),
        ("-", "expected YYYY-MM-DD"),
        (".", "expected YYYY-MM-DD"),
        ("e5", "expected YYYY-MM-DD"),
    ])
    func rejectedText(text: String, reason: String) throws {
        for storage in [DateStorage.text, .unixSeconds, .unixMilliseconds, .julianDay] {
            let error = try #require(throws: ValueConversionError.self) {
                try storage.date(from: .text(text))
            }
            #expect(error.value == .text(text))
            #expect(error.swiftType == "Date")
            #expect(error.description.hasPrefix("cannot read TEXT value '"), "\(error)")
            #expect(error.description.contains(" as Date: "), "\(error)")
            #expect(error.description.contains(reason), "\(error)")
        }
    }

    @Test(arguments: [
        (DatabaseValue.null, "NULL is not a date"),
        (.blob(Data("2024-01-01".utf8)), "a blob is not a date"),
        (.real(.infinity), "not a finite number"),
        (.real(-.infinity), "not a finite number"),
        (.real(.nan), "not a finite number"),
    ])
    func rejectedValues(value: DatabaseValue, reason: String) throws {
        for storage in [DateStorage.text, .unixSeconds, .unixMilliseconds, .julianDay] {
            let error = try #require(throws: ValueConversionError.self) { try storage.date(from: value) }
            #expect(error.description.contains("as Date: \(reason)"), "\(error)")
        }
    }

    @Test func invalidDateInDatabaseIsAnErrorNotAGuess() throws {
        let db = try Database(.inMemory)
        try db.execute(sql: "CREATE TABLE t(at TEXT); INSERT INTO t VALUES ('2024-02-30 10:00:00')")
        let row = try #require(try db.fetchOne(Row.self, sql: "SELECT at FROM t"))
        let error = try #require(throws: ValueConversionError.self) { try row.value(Date.self, at: 0) }
        #expect(error.description.contains("'2024-02-30 10:00:00' as Date: day 30 does not exist"))
    }

    // MARK: - Fuzzing

    @Test func parserIsTotalOnRandomBytes() throws {
        var random = Generator(seed: 0xF0CC_ACC1A)
        let seeds = [
            "2024-05-17 13:45:30.25", "2024-05-17T13:45:30.123456789+02:00", "1999-12-31T23:59:59Z",
            "0000-01-01", "9999-12-31 23:59:59.999-05:30", "1715953530.25", "2000-12-31 23:59:59.9999",
        ]
        let alphabet = Array("0123456789-:.+TZ eE".utf8)
        var parsed = 0
        var rejected = 0
        var failures: [String] = []
        for index in 0..<120_000 {
            var bytes: [UInt8]
            switch index % 3 {
            case 0:  // arbitrary bytes, invalid UTF-8 included
                bytes = (0..<Int(random.next() % 40)).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            case 1:  // date-like characters
                bytes = (0..<Int(random.next() % 40)).map { _ in alphabet[Int(random.next() % 19)] }
            default:  // a valid text with a few random edits
                bytes = Array(seeds[Int(random.next() % UInt64(seeds.count))].utf8)
                for _ in 0...(random.next() % 3) {
                    let position = Int(random.next() % UInt64(bytes.count + 1))
                    let byte =
                        random.next() % 2 == 0
                        ? alphabet[Int(random.next() % 19)] : UInt8(truncatingIfNeeded: random.next())
                    switch random.next() % 3 {
                    case 0: bytes.insert(byte, at: position)
                    case 1 where position < bytes.count: bytes[position] = byte
                    default: if position < bytes.count { bytes.remove(at: position) }
                    }
                }
            }
            let text = String(decoding: bytes, as: UTF8.self)
            do {
                let date = try Date.fromDatabaseValue(.text(text))
                if !date.timeIntervalSinceReferenceDate.isFinite { failures.append(text) }
                parsed += 1
            } catch let error as ValueConversionError {
                if error.value != .text(text) || error.swiftType != "Date" { failures.append("\(error)") }
                rejected += 1
            }
        }
        #expect(failures.isEmpty, "\(failures.prefix(10))")
        #expect(parsed > 1000)
        #expect(rejected > 1000)
    }

    @Test func acceptedDateTextMatchesSQLite() throws {
        // Text in SQLite's own formats must mean the same instant to SQLite and to us.
        let db = try Database(.inMemory)
        var random = Generator(seed: 99)
        for _ in 0..<2000 {
            let unix = Int64(random.next() % 253_402_300_800) - 62_167_219_200
            let offsetMinutes = Int(random.next() % (2 * 14 * 60 + 1)) - 14 * 60  // SQLite allows ±14:00
            let hours = abs(offsetMinutes) / 60
            let minutes = abs(offsetMinutes) % 60
            let offset =
                (offsetMinutes < 0 ? "-" : "+") + (hours < 10 ? "0" : "") + "\(hours):"
                + (minutes < 10 ? "0" : "") + "\(minutes)"
            let row = try #require(
                try db.fetchOne(Row.self, sql: "SELECT datetime(\(unix), 'unixepoch') || '.375' || \(offset)")
            )
            let text = try row.value(String.self, at: 0)
            let ours = try Date.fromDatabaseValue(.text(text))
            let theirs = try #require(
                try db.fetchOne(Row.self, sql: "SELECT CAST(strftime('%s', \(text)) AS INTEGER)"))
            #expect(
                ours.timeIntervalSince1970 == Double(try theirs.value(Int64.self, at: 0)) + 0.375, "\(text)")
        }
    }

    // MARK: - Helpers

    private static func isNumber(_ text: String) -> Bool {
        text.allSatisfy { "0123456789+-.eE".contains($0) }
    }
}

/// A seeded SplitMix64 generator, so that every run fuzzes the same inputs.
private struct Generator: RandomNumberGenerator {
    private var state: UInt64
    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
