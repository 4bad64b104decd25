import Foundation
import LiteRecord
import Testing

/// An independent model of the date text LiteRecord documents (see ``DateStorage``), used as
/// the oracle for the parser, and a generator of such text, valid and nearly valid.
enum DateFuzz {
    enum Meaning: Equatable {
        /// Seconds since the reference date, as whole seconds plus fraction digits.
        case date(whole: Int64, fractionDigits: String)
        /// A decimal number, read as Unix seconds.
        case number
        case invalid
    }

    /// Date text built from random fields, each sometimes out of range or malformed.
    static func randomDateText(_ source: inout FuzzSource) -> (text: String, meaning: Meaning) {
        func digits(_ value: Int, _ width: Int) -> String {
            let text = String(value)
            return String(repeating: "0", count: max(0, width - text.count)) + text
        }
        var text = digits(source.int(0...9999), source.chance(0.02) ? source.pick([3, 5]) : 4)
        text += "-" + digits(source.chance(0.95) ? source.int(1...12) : source.pick([0, 13, 99]), 2)
        text += "-" + digits(source.chance(0.9) ? source.int(1...28) : source.int(0...32), 2)
        if source.chance(0.8) {
            text += source.pick([" ", " ", "T", "t", "_", "  "])
            text += digits(source.chance(0.95) ? source.int(0...23) : source.int(24...99), 2)
            text += ":" + digits(source.chance(0.95) ? source.int(0...59) : source.int(60...99), 2)
            if source.chance(0.7) {
                text += ":" + digits(source.chance(0.95) ? source.int(0...59) : source.int(60...99), 2)
            }
            if source.chance(0.6) {
                text +=
                    "."
                    + (0..<source.pick([0, 1, 2, 3, 6, 9, 12, 17, 19, 20, 30])).map { _ in
                        String(source.int(0...9))
                    }.joined()
            }
            if source.chance(0.4) {
                text += source.pick(["Z", "z", "+", "-"])
                if text.last == "+" || text.last == "-" {
                    text += digits(source.chance(0.9) ? source.int(0...23) : source.int(24...99), 2)
                    switch source.int(0...3) {
                    case 0: text += ":" + digits(source.int(0...59), 2)
                    case 1: text += digits(source.chance(0.9) ? source.int(0...59) : source.int(60...99), 2)
                    case 2: text += ":" + digits(source.int(0...9), 1)
                    default: break
                    }
                }
            }
        }
        return (text, meaning(of: text))
    }

    /// What the documented grammar makes of `text`.
    static func meaning(of text: String) -> Meaning {
        let bytes = Array(text.utf8)
        if isNumber(bytes) { return .number }
        var index = 0
        func number(_ width: Int) -> Int64? {
            guard index + width <= bytes.count else { return nil }
            var value: Int64 = 0
            for byte in bytes[index..<index + width] {
                guard byte >= 0x30 && byte <= 0x39 else { return nil }
                value = value * 10 + Int64(byte - 0x30)
            }
            index += width
            return value
        }
        func take(_ characters: String) -> Bool {
            guard index < bytes.count, characters.utf8.contains(bytes[index]) else { return false }
            index += 1
            return true
        }
        guard let year = number(4), take("-"), let month = number(2), take("-"), let day = number(2),
            (1...12).contains(month), day >= 1, day <= daysInMonth(year, month)
        else { return .invalid }
        var seconds = (daysSince0000(year, month, day) - daysSince0000(2001, 1, 1)) * 86_400
        guard index < bytes.count else { return .date(whole: seconds, fractionDigits: "") }
        guard take(" Tt"), let hour = number(2), hour <= 23, take(":"), let minute = number(2), minute <= 59
        else { return .invalid }
        seconds += hour * 3600 + minute * 60
        if take(":") {
            guard let second = number(2), second <= 59 else { return .invalid }
            seconds += second
        }
        var fraction = ""
        if take(".") {
            while index < bytes.count, bytes[index] >= 0x30 && bytes[index] <= 0x39 {
                fraction.append(Character(Unicode.Scalar(bytes[index])))
                index += 1
            }
            guard !fraction.isEmpty else { return .invalid }
        }
        if take("Zz") {
            // UTC
        } else if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-")
        {
            let sign: Int64 = bytes[index] == UInt8(ascii: "+") ? 1 : -1
            index += 1
            guard let hours = number(2), hours <= 23 else { return .invalid }
            var minutes: Int64 = 0
            if take(":") {
                guard let value = number(2) else { return .invalid }
                minutes = value
            } else if let value = number(2) {
                minutes = value
            }
            guard minutes <= 59 else { return .invalid }
            seconds -= sign * (hours * 3600 + minutes * 60)
        }
        guard index == bytes.count else { return .invalid }
        return .date(whole: seconds, fractionDigits: fraction)
    }

    /// `[+-]digits[.digits][(e|E)[+-]digits]` with at least one mantissa digit.
    static func isNumber(_ bytes: [UInt8]) -> Bool {
        var index = 0
        func digitRun() -> Int {
            let start = index
            while index < bytes.count, bytes[index] >= 0x30 && bytes[index] <= 0x39 { index += 1 }
            return index - start
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
            index += 1
        }
        var mantissa = digitRun()
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            mantissa += digitRun()
        }
        guard mantissa > 0 else { return false }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
                index += 1
            }
            guard digitRun() > 0 else { return false }
        }
        return index == bytes.count
    }

    static func isLeap(_ year: Int64) -> Bool {
        year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
    }

    static func daysInMonth(_ year: Int64, _ month: Int64) -> Int64 {
        [31, isLeap(year) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][Int(month) - 1]
    }

    /// Days from 0000-01-01 (proleptic Gregorian), by counting leap years and month lengths.
    static func daysSince0000(_ year: Int64, _ month: Int64, _ day: Int64) -> Int64 {
        // Leap years among 0 ..< year: 0, 4, 8, ... minus centuries, plus 400s.
        let leapYears = (year + 3) / 4 - (year + 99) / 100 + (year + 399) / 400
        var days = year * 365 + leapYears
        for earlier in 1..<month { days += daysInMonth(year, earlier) }
        return days + day - 1
    }

    /// The interval the parser must return for a date meaning, within rounding.
    static func interval(whole: Int64, fractionDigits: String) -> Double {
        fractionDigits.isEmpty ? Double(whole) : Double(whole) + (Double("0." + fractionDigits) ?? .nan)
    }
}

extension Hardening {
    /// Seeded fuzzing of date parsing: text built near the grammar, random edits of it, random
    /// dates, and numbers under every storage strategy. Every input must parse exactly as the
    /// independent model above says, or throw a ``ValueConversionError``; nothing may crash.
    @Suite struct DateParserFuzzTests {
        static let cases = 100_000

        @Test func randomTextParsesExactlyAsTheGrammarSays() throws {
            var source = FuzzSource(seed: 0xDA7E)
            var counts = (dates: 0, numbers: 0, invalid: 0)
            for iteration in 0..<Self.cases {
                let text: String =
                    switch iteration % 4 {
                    case 0, 1: DateFuzz.randomDateText(&source).text
                    case 2: source.mutated(DateFuzz.randomDateText(&source).text)
                    default: source.chance(0.5) ? source.numberText() : source.text()
                    }
                let meaning = DateFuzz.meaning(of: text)
                let result = Result { try DateStorage.text.date(from: .text(text)) }
                switch (meaning, result) {
                case (.date(let whole, let digits), .success(let date)):
                    counts.dates += 1
                    let want = DateFuzz.interval(whole: whole, fractionDigits: digits)
                    let got = date.timeIntervalSinceReferenceDate
                    if abs(got - want) > 4 * max(want.ulp, got.ulp) {
                        Issue.record("\(text.debugDescription) parsed as \(got), expected \(want)")
                    }
                case (.number, .success(let date)):
                    counts.numbers += 1
                    let want = Double(text) ?? .nan
                    #expect(
                        abs(date.timeIntervalSince1970 - want) <= max(abs(want) * 1e-15, 1e-6),
                        "\(text.debugDescription)")
                case (.number, .failure(let error)):
                    counts.numbers += 1
                    // Only numbers beyond Double's range are refused.
                    #expect(Double(text).map { !$0.isFinite } ?? true, "\(text.debugDescription): \(error)")
                    #expect(error is ValueConversionError)
                case (.invalid, .failure(let error)):
                    counts.invalid += 1
                    #expect(error is ValueConversionError, "\(text.debugDescription): \(error)")
                case (.invalid, .success(let date)):
                    Issue.record(
                        "\(text.debugDescription) is not a documented date form but parsed as \(date)")
                case (.date, .failure(let error)):
                    Issue.record("\(text.debugDescription) is a valid date but failed: \(error)")
                }
            }
            // The generator reaches every outcome often.
            #expect(
                counts.dates > Self.cases / 5 && counts.numbers > Self.cases / 20
                    && counts.invalid > Self.cases / 5)
        }

        /// The fast read of the stored form agrees to the bit with the general grammar on every
        /// text it accepts, declines every other text, and accepts every date LiteRecord writes.
        @Test func storedFormReadAgreesWithTheGeneralGrammar() throws {
            var source = FuzzSource(seed: 0x5707_ED)
            var accepted = 0
            for iteration in 0..<Self.cases {
                let text: String =
                    switch iteration % 3 {
                    case 0: DateFuzz.randomDateText(&source).text
                    case 1: source.mutated(DateFuzz.randomDateText(&source).text)
                    default:
                        try #require(
                            try storedText(
                                Double(source.int(-63_000_000_000...250_000_000_000))
                                    / Double(source.pick([1, 7, 1_000, 1 << 20]))
                            ))
                    }
                let bytes = Array(text.utf8)
                bytes.withUnsafeBufferPointer { buffer in
                    let general = Result { () throws(DateText.ParseFailure) in
                        try DateText.parseAnyForm(buffer)
                    }
                    guard let fast = DateText.parseStoredForm(buffer) else {
                        if iteration % 3 == 2 { Issue.record("a stored date was declined: \(bytes)") }
                        return
                    }
                    accepted += 1
                    guard case .success(.interval(let interval)) = general else {
                        Issue.record(
                            "\(String(decoding: bytes, as: UTF8.self)) read as \(fast), general: \(general)")
                        return
                    }
                    #expect(
                        fast.bitPattern == interval.bitPattern, "\(String(decoding: bytes, as: UTF8.self))")
                }
            }
            #expect(accepted > Self.cases / 3)
        }

        /// The text LiteRecord stores for the date `interval` seconds after the reference date.
        private func storedText(_ interval: Double) throws -> String? {
            let value = try DateStorage.text.databaseValue(
                for: Date(timeIntervalSinceReferenceDate: interval))
            guard case .text(let text) = value else { return nil }
            return text
        }

        /// The oracle's calendar arithmetic agrees with Foundation's Gregorian calendar (after the
        /// 1582 Julian cutover, before which Foundation's calendar is not proleptic).
        @Test func oracleAgreesWithFoundationsCalendar() throws {
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = try #require(TimeZone(identifier: "UTC"))
            var source = FuzzSource(seed: 1582)
            for _ in 0..<2_000 {
                let (year, month) = (Int64(source.int(1600...9999)), Int64(source.int(1...12)))
                let day = Int64(source.int(1...Int(DateFuzz.daysInMonth(year, month))))
                let components = DateComponents(year: Int(year), month: Int(month), day: Int(day))
                let date = try #require(calendar.date(from: components))
                let days = DateFuzz.daysSince0000(year, month, day) - DateFuzz.daysSince0000(2001, 1, 1)
                #expect(date.timeIntervalSinceReferenceDate == Double(days * 86_400), "\(components)")
            }
        }

        /// Every date of years 0000...9999, down to the last bit of its interval, formats to text
        /// that parses back to exactly the same `Date`; dates outside that range are refused.
        @Test func randomDatesRoundTripExactly() throws {
            var source = FuzzSource(seed: 0xF0_4D47)
            let first = -63_145_526_400.0  // 0000-01-01 00:00:00
            let end = 252_423_993_600.0  // 10000-01-01 00:00:00
            for _ in 0..<Self.cases {
                let interval: Double =
                    switch source.int(0...3) {
                    case 0: Double.random(in: first..<end, using: &source.random)
                    case 1: Double.random(in: -100...100, using: &source.random)
                    case 2: source.real()
                    default:
                        Double(source.integer() % 300_000_000_000) + Double(source.int(0...999_999)) / 1e6
                    }
                let date = Date(timeIntervalSinceReferenceDate: interval)
                do {
                    let stored = try DateStorage.text.databaseValue(for: date)
                    guard case .text(let text) = stored else {
                        Issue.record("\(interval) stored as \(stored)")
                        continue
                    }
                    #expect(try DateStorage.text.date(from: stored) == date, "\(interval) → \(text)")
                    #expect(DateFuzz.meaning(of: text) != .invalid, "\(text)")
                    #expect(interval.rounded(.down) >= first && interval < end)
                } catch let error as ValueConversionError {
                    #expect(!(interval.rounded(.down) >= first && interval < end), "\(interval): \(error)")
                }
            }
        }

        /// Integers and reals under every strategy read as the date they denote, or, for infinities,
        /// throw; the integer extremes do not overflow.
        @Test func numbersReadUnderEveryStrategy() throws {
            var source = FuzzSource(seed: 0x5EC0)
            let strategies: [(DateStorage, Double)] = [
                (.text, 1), (.unixSeconds, 1), (.unixMilliseconds, 1000), (.julianDay, 1),
            ]
            for iteration in 0..<Self.cases {
                let (strategy, scale) = strategies[iteration % strategies.count]
                let value: DatabaseValue =
                    source.chance(0.5) ? .integer(source.integer()) : .real(source.real())
                let number: Double =
                    switch value {
                    case .integer(let integer): Double(integer)
                    case .real(let real): real
                    default: 0
                    }
                let want: Double =
                    strategy == .julianDay
                    ? (number - 2_440_587.5) * 86_400 : number / scale
                switch Result(catching: { try strategy.date(from: value) }) {
                case .success(let date):
                    let got = date.timeIntervalSince1970
                    if !want.isFinite || !(abs(got - want) <= max(abs(want) * 1e-12, 1e-6)) {
                        Issue.record("\(value) under \(strategy) read as \(got), expected \(want)")
                    }
                case .failure(let error):
                    // Only numbers whose date is not finite are refused.
                    if want.isFinite || !(error is ValueConversionError) {
                        Issue.record("\(value) under \(strategy) failed: \(error)")
                    }
                }
            }
        }

        /// Blobs and NULL are never dates, whatever they hold.
        @Test func blobsAndNullAreRefused() throws {
            var source = FuzzSource(seed: 7)
            for _ in 0..<10_000 {
                let blob = DatabaseValue.blob(Data(source.dateText().utf8))
                do {
                    let date = try DateStorage.text.date(from: blob)
                    Issue.record("\(blob) read as \(date)")
                } catch {
                    if !(error is ValueConversionError) { Issue.record("\(blob): \(error)") }
                }
            }
            #expect(throws: ValueConversionError.self) { try DateStorage.unixSeconds.date(from: .null) }
        }
    }
}
