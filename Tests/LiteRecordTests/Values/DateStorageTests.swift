import Foundation
import LiteRecord
import Testing

/// Dates through `DateStorage` and a real database: exact text round trips, SQLite reading our
/// text, numeric strategies, and every storing error.
@Suite struct DateStorageTests {
    /// 0000-01-01 00:00:00 UTC and 10000-01-01 00:00:00 UTC, as seconds since the reference date.
    static let firstSecond = -63_145_526_400.0
    static let endSecond = 252_423_993_600.0

    // MARK: - Text format

    static let formatCases: [(interval: Double, text: String)] = [
        (0.0, "2001-01-01 00:00:00"),
        (-978_307_200.0, "1970-01-01 00:00:00"),
        (0.25, "2001-01-01 00:00:00.25"),
        (-0.5, "2000-12-31 23:59:59.5"),
        (1.5e-5, "2001-01-01 00:00:00.000015"),
        (-1e-20, "2000-12-31 23:59:59.99999999999999999999"),
        (DateStorageTests.firstSecond, "0000-01-01 00:00:00"),
        (DateStorageTests.endSecond - 1, "9999-12-31 23:59:59"),
        (730_900_800.125, "2024-02-29 12:00:00.125"),
        (-26_524_800.001, "2000-02-28 23:59:59.999"),
        (-13_197_600_000, "1582-10-15 00:00:00"),  // the Gregorian reform day
        (-13_197_686_400, "1582-10-14 00:00:00"),  // proleptic: no Julian switch
    ]

    @Test(arguments: formatCases)
    func textFormat(interval: Double, expected: String) throws {
        let date = Date(timeIntervalSinceReferenceDate: interval)
        #expect(try DateStorage.text.databaseValue(for: date) == .text(expected))
        #expect(try date.databaseValue() == .text(expected))
        #expect(try Date.fromDatabaseValue(.text(expected)) == date)
    }

    @Test func presentDayFractionIsShort() throws {
        // 2025-01-02 03:04:05 plus a fraction with the precision a Date() has today.
        let date = Date(timeIntervalSinceReferenceDate: 757_479_845 + 0x1p-23 * 1_234_567)
        let value = try DateStorage.text.databaseValue(for: date)
        guard case .text(let text) = value else {
            Issue.record("expected text, got \(value)")
            return
        }
        #expect(text.hasPrefix("2025-01-02 03:04:05.14717"))
        #expect(text.count <= 28)  // at most 8 fraction digits at this magnitude
        #expect(try Date.fromDatabaseValue(value) == date)
    }

    // MARK: - Exact round trips

    @Test func randomDatesRoundTripExactlyThroughText() throws {
        var random = SplitMix64(seed: 0x5EED_DA7E)
        var failures: [String] = []
        var previous: (date: Date, text: String)?
        for index in 0..<120_000 {
            let date = Date(timeIntervalSinceReferenceDate: Self.randomInterval(&random, index: index))
            let value = try DateStorage.text.databaseValue(for: date)
            guard case .text(let text) = value, Self.isCanonical(text) else {
                failures.append("not canonical: \(value)")
                continue
            }
            if try Date.fromDatabaseValue(value) != date {
                failures.append("\(date.timeIntervalSinceReferenceDate) -> \(text)")
            }
            // Text order is chronological order.
            if let previous, (previous.date < date) != (previous.text < text), previous.date != date {
                failures.append("order: \(previous.text) vs \(text)")
            }
            previous = (date, text)
            if failures.count > 10 { break }
        }
        #expect(failures.isEmpty, "\(failures)")
    }

    @Test func randomDatesRoundTripExactlyThroughDatabase() throws {
        let db = try Database(.inMemory)
        try db.execute(sql: "CREATE TABLE events(id INTEGER PRIMARY KEY, at TEXT)")
        var random = SplitMix64(seed: 42)
        var dates: [Date] = [
            Date(), Date(timeIntervalSinceReferenceDate: Self.firstSecond),
            Date(timeIntervalSinceReferenceDate: Self.endSecond.nextDown),
            Date(timeIntervalSinceReferenceDate: -Double.leastNonzeroMagnitude),
            Date(timeIntervalSinceReferenceDate: Double.leastNonzeroMagnitude),
            Date(timeIntervalSinceReferenceDate: 0), Date(timeIntervalSince1970: 0),
        ]
        for index in 0..<4000 {
            dates.append(Date(timeIntervalSinceReferenceDate: Self.randomInterval(&random, index: index)))
        }
        try db.transaction { tx in
            for (id, date) in dates.enumerated() {
                try tx.execute(sql: "INSERT INTO events(id, at) VALUES (\(id), \(date))")
            }
        }
        let rows = try db.fetchAll(Row.self, sql: "SELECT at, typeof(at) FROM events ORDER BY id")
        try #require(rows.count == dates.count)
        var mismatches: [String] = []
        for (row, date) in zip(rows, dates) {
            #expect(try row.value(String.self, at: 1) == "text")
            let read = try row.value(Date.self, at: 0)
            if read != date { mismatches.append("\(date.timeIntervalSinceReferenceDate): \(row)") }
        }
        #expect(mismatches.isEmpty, "\(mismatches.prefix(10))")

        // SQLite orders the text chronologically.
        let ordered = try db.fetchAll(Row.self, sql: "SELECT at FROM events ORDER BY at, id")
        let readOrder = try ordered.map { try $0.value(Date.self, at: 0) }
        #expect(readOrder == dates.sorted())
    }

    // MARK: - SQLite reads our text

    @Test func sqliteDateFunctionsReadOurText() throws {
        let db = try Database(.inMemory)
        var random = SplitMix64(seed: 7)
        var dates = [Date(timeIntervalSinceReferenceDate: Self.firstSecond), Date(timeIntervalSince1970: 0)]
        for _ in 0..<2000 {
            dates.append(
                Date(timeIntervalSinceReferenceDate: random.double(in: Self.firstSecond..<Self.endSecond)))
        }
        for date in dates {
            guard case .text(let text) = try DateStorage.text.databaseValue(for: date) else {
                Issue.record("not text")
                continue
            }
            let row = try #require(
                try db.fetchOne(
                    Row.self,
                    sql: """
                        SELECT datetime(\(text)), CAST(strftime('%s', \(text)) AS INTEGER), julianday(\(text)),
                               unixepoch(\(text))
                        """))
            // SQLite keeps milliseconds, rounded: 12:00:00.9996 is 12:00:01 to strftime('%s').
            let milliseconds = Int64((date.timeIntervalSince1970 * 1000).rounded())
            let unixSeconds = milliseconds >= 0 ? milliseconds / 1000 : (milliseconds - 999) / 1000
            #expect(try row.value(String.self, at: 0) == String(text.prefix(19)), "\(text)")
            #expect(try row.value(Int64.self, at: 1) == unixSeconds, "\(text)")
            #expect(try row.value(Int64.self, at: 3) == unixSeconds, "\(text)")
            let julianDay = try row.value(Double.self, at: 2)
            let expectedJulianDay = date.timeIntervalSinceReferenceDate / 86_400 + 2_451_910.5
            #expect(abs(julianDay - expectedJulianDay) < 0.002 / 86_400, "\(text)")
        }
    }

    // MARK: - Errors when storing

    @Test(arguments: [
        (DateStorageTests.endSecond, "year 10000"),
        (DateStorageTests.endSecond * 10, "year "),
        (DateStorageTests.firstSecond.nextDown, "year -1"),
        (-1e18, "timeIntervalSinceReferenceDate"),
    ])
    func yearsOutsideTextRangeThrow(interval: Double, mention: String) throws {
        let date = Date(timeIntervalSinceReferenceDate: interval)
        let error = try #require(throws: ValueConversionError.self) {
            try DateStorage.text.databaseValue(for: date)
        }
        #expect(error.value == nil)
        #expect(error.swiftType == "Date")
        let message = error.description
        #expect(message.contains("cannot store Date"))
        #expect(message.contains(mention), "\(message)")
        #expect(message.contains("0000...9999"))
        #expect(message.contains(".unixSeconds"))
        // Numeric strategies store it.
        #expect(try DateStorage.unixSeconds.databaseValue(for: date) == .real(date.timeIntervalSince1970))
    }

    @Test(arguments: [Double.infinity, -Double.infinity, Double.nan])
    func nonFiniteDatesThrowInEveryStrategy(interval: Double) throws {
        let date = Date(timeIntervalSinceReferenceDate: interval)
        for storage in [DateStorage.text, .unixSeconds, .unixMilliseconds, .julianDay] {
            let error = try #require(throws: ValueConversionError.self) {
                try storage.databaseValue(for: date)
            }
            #expect(error.description.contains("cannot store Date"))
            #expect(error.description.contains("not a finite number"), "\(error)")
        }
    }

    @Test func unstorableDateFailsTheStatement() throws {
        let db = try Database(.inMemory)
        try db.execute(sql: "CREATE TABLE t(at TEXT)")
        let far = Date(timeIntervalSinceReferenceDate: Self.endSecond + 86_400)
        let error = try #require(throws: ValueConversionError.self) {
            try db.execute(sql: "INSERT INTO t VALUES (\(far))")
        }
        #expect(error.description.contains("year 10000"))
        #expect(try db.fetchOne(Row.self, sql: "SELECT count(*) FROM t")?.value(Int.self, at: 0) == 0)
    }

    // MARK: - Numeric strategies

    @Test func columnTypes() {
        #expect(DateStorage.text.columnType == .text)
        #expect(DateStorage.unixSeconds.columnType == .real)
        #expect(DateStorage.unixMilliseconds.columnType == .integer)
        #expect(DateStorage.julianDay.columnType == .real)
        #expect(Date.databaseColumnType == .text)
        #expect(Configuration().dateStorage == .text)
    }

    @Test func unixSeconds() throws {
        let date = Date(timeIntervalSince1970: 1_715_953_530.25)
        #expect(try DateStorage.unixSeconds.databaseValue(for: date) == .real(1_715_953_530.25))
        #expect(try DateStorage.unixSeconds.date(from: .real(1_715_953_530.25)) == date)
        #expect(
            try DateStorage.unixSeconds.date(from: .integer(-86_400)) == Date(timeIntervalSince1970: -86_400))
        #expect(try DateStorage.unixSeconds.date(from: .text("1715953530.25")) == date)
        #expect(try DateStorage.unixSeconds.date(from: .text("2024-05-17 13:45:30.25")) == date)
    }

    @Test func unixMilliseconds() throws {
        let storage = DateStorage.unixMilliseconds
        #expect(try storage.databaseValue(for: Date(timeIntervalSince1970: 1.2345)) == .integer(1235))
        #expect(try storage.databaseValue(for: Date(timeIntervalSince1970: -1.2345)) == .integer(-1235))
        #expect(try storage.databaseValue(for: Date(timeIntervalSince1970: 0)) == .integer(0))
        #expect(try storage.date(from: .integer(1500)) == Date(timeIntervalSince1970: 1.5))
        #expect(try storage.date(from: .real(1500.5)) == Date(timeIntervalSince1970: 1.5005))
        #expect(try storage.date(from: .text("1500")) == Date(timeIntervalSince1970: 1.5))
        #expect(try storage.date(from: .text("1970-01-01 00:00:01.5")) == Date(timeIntervalSince1970: 1.5))
        // Whole milliseconds round-trip exactly.
        var random = SplitMix64(seed: 3)
        for _ in 0..<10_000 {
            let milliseconds = Int64(random.double(in: -1e13..<1e13))
            let date = try storage.date(from: .integer(milliseconds))
            #expect(try storage.databaseValue(for: date) == .integer(milliseconds))
        }
        let tooFar = Date(timeIntervalSinceReferenceDate: 1e17)
        let error = try #require(throws: ValueConversionError.self) { try storage.databaseValue(for: tooFar) }
        #expect(error.description.contains("64-bit integer range"), "\(error)")
    }

    @Test func julianDay() throws {
        let storage = DateStorage.julianDay
        #expect(try storage.databaseValue(for: Date(timeIntervalSince1970: 0)) == .real(2_440_587.5))
        #expect(try storage.databaseValue(for: Date(timeIntervalSinceReferenceDate: 0)) == .real(2_451_910.5))
        #expect(try storage.date(from: .real(2_440_588.0)) == Date(timeIntervalSince1970: 43_200))
        #expect(try storage.date(from: .integer(2_440_588)) == Date(timeIntervalSince1970: 43_200))
        #expect(try storage.date(from: .text("2440588")) == Date(timeIntervalSince1970: 43_200))
        #expect(try storage.date(from: .text("1970-01-02")) == Date(timeIntervalSince1970: 86_400))
    }

    @Test(arguments: [DateStorage.text, .unixSeconds, .unixMilliseconds, .julianDay])
    func strategiesThroughDatabase(storage: DateStorage) throws {
        let db = try Database(.inMemory)
        try db.execute(sql: "CREATE TABLE t(id INTEGER PRIMARY KEY, at \(SQL(storage.columnType.rawValue)))")
        var random = SplitMix64(seed: 11)
        var dates = [Date(timeIntervalSince1970: 0), Date(timeIntervalSince1970: 1_715_953_530.5)]
        for _ in 0..<500 {
            dates.append(Date(timeIntervalSinceReferenceDate: random.double(in: -3e9..<3e9)))
        }
        for (id, date) in dates.enumerated() {
            let value = try storage.databaseValue(for: date)
            try db.execute(sql: "INSERT INTO t VALUES (\(id), \(value))")
        }
        let expectedType = ["TEXT": "text", "REAL": "real", "INTEGER": "integer"][storage.columnType.rawValue]
        let tolerance: Double =
            switch storage {
            case .text: 0
            case .unixSeconds: 1e-6
            case .unixMilliseconds: 0.0005
            case .julianDay: 1e-4
            }
        let rows = try db.fetchAll(
            Row.self, sql: "SELECT at, typeof(at), \(storage.julianDayExpression) FROM t ORDER BY id")
        for (row, date) in zip(rows, dates) {
            #expect(try row.value(String.self, at: 1) == expectedType)
            let read = try storage.date(from: row.value(at: 0))
            let difference = abs(read.timeIntervalSince(date))
            #expect(difference <= tolerance, "\(date) read back as \(read)")
            // SQLite understands every strategy's values too.
            let julianDay = try row.value(Double.self, at: 2)
            #expect(abs(julianDay - (date.timeIntervalSinceReferenceDate / 86_400 + 2_451_910.5)) < 2e-8)
        }
    }

    /// Models read back the dates they were saved with under every strategy, by raw SQL, by a
    /// query and by key: each read decodes with the strategy the database was opened with.
    @Test(arguments: [DateStorage.text, .unixSeconds, .unixMilliseconds, .julianDay])
    func modelsReadBackUnderEveryStrategy(storage: DateStorage) throws {
        var configuration = Configuration()
        configuration.dateStorage = storage
        let db = try Database(.inMemory, configuration: configuration)
        // Whole milliseconds, which every strategy stores exactly enough to read back equal.
        var saved = [
            Appointment(id: nil, at: Date(timeIntervalSince1970: 1_715_953_530.25), reminder: nil),
            Appointment(
                id: nil, at: Date(timeIntervalSince1970: -86_400), reminder: Date(timeIntervalSince1970: 1.5)),
        ]
        for index in saved.indices { try db.insert(&saved[index]) }
        let byRawSQL = try db.fetchAll(Appointment.self, sql: "SELECT * FROM appointments ORDER BY id")
        let byQuery = try db.query(Appointment.self).order { $0.id.ascending }.fetchAll()
        let byKey = try saved.map { try db.find(Appointment.self, id: #require($0.id)) }
        // A julian day's double resolves about 40 µs today; through a TEXT column it kept
        // 15 digits, about 200 µs.
        let tolerance = storage == .julianDay ? 1e-4 : 1e-6
        for read in [byRawSQL, byQuery, byKey.compactMap { $0 }] {
            #expect(read.count == saved.count)
            for (model, expected) in zip(read, saved) {
                #expect(
                    abs(model.at.timeIntervalSince(expected.at)) < tolerance, "\(model.at) for \(expected.at)"
                )
                #expect(
                    model.reminder.map { abs($0.timeIntervalSince(expected.reminder!)) < tolerance }
                        ?? (expected.reminder == nil))
            }
        }
        let storedType = try db.fetchOne(Row.self, sql: "SELECT typeof(at) FROM appointments")?.value(
            String.self, at: 0)
        #expect(
            storedType == ["TEXT": "text", "REAL": "real", "INTEGER": "integer"][storage.columnType.rawValue])
    }

    /// A table created under a numeric storage is declared with its type, and opens under the
    /// default text storage, which reads back the numbers written before and its own text.
    @Test func aDateColumnCreatedUnderOneStorageOpensUnderAnother() throws {
        try withTemporaryDirectory { directory in
            let path = directory.file("dates.sqlite")
            var written: [Appointment] = []
            for storage in [DateStorage.unixSeconds, .text] {
                var configuration = Configuration()
                configuration.dateStorage = storage
                let db = try Database(.file(path), configuration: configuration)
                var appointment = Appointment(
                    id: nil, at: Date(timeIntervalSince1970: 1_715_953_530.5), reminder: nil)
                try db.insert(&appointment)
                written.append(appointment)
                let read = try db.query(Appointment.self).order { $0.id.ascending }.fetchAll()
                #expect(read.map(\.at) == written.map(\.at), "under \(storage)")
            }
            let declared = try Database(.file(path)).fetchOne(
                Row.self, sql: "SELECT type FROM pragma_table_info('appointments') WHERE name = 'at'")
            #expect(try declared?.value(String.self, at: 0) == "REAL")
        }
    }

    // MARK: - Helpers

    /// Seconds since the reference date, from several distributions that cover the whole text
    /// range: uniform, near the reference date with tiny fractions, present-day `Date()`s,
    /// short fractions, whole seconds, and random bit patterns.
    private static func randomInterval(_ random: inout SplitMix64, index: Int) -> Double {
        switch index % 8 {
        case 0: return random.double(in: firstSecond..<endSecond)
        case 1: return random.double(in: -3_000_000_000..<0)  // before the reference date, pre-1970 too
        case 2: return random.double(in: -2..<2) * pow(10, -random.double(in: 0..<30))
        case 3: return Date().timeIntervalSinceReferenceDate + random.double(in: -1e6..<1e6)
        case 4: return (random.double(in: -1e9..<1e9)).rounded(.down) + Double(random.next() % 1000) / 1000
        case 5: return (random.double(in: firstSecond..<endSecond)).rounded(.down)
        case 6:
            // Any bit pattern of a double in range: many are tiny, subnormal or near zero.
            while true {
                let value = Double(bitPattern: random.next())
                if value.isFinite, value >= firstSecond, value < endSecond { return value }
            }
        default: return random.double(in: -10..<10)
        }
    }

    /// `YYYY-MM-DD HH:MM:SS`, optionally `.` and digits without a trailing zero.
    private static func isCanonical(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard bytes.count >= 19 else { return false }
        let pattern = Array("dddd-dd-dd dd:dd:dd".utf8)
        for (byte, expected) in zip(bytes, pattern) {
            let isDigit = (0x30...0x39).contains(byte)
            if expected == UInt8(ascii: "d") ? !isDigit : byte != expected { return false }
        }
        guard bytes.count > 19 else { return true }
        return bytes.count > 20 && bytes[19] == UInt8(ascii: ".")
            && bytes[20...].allSatisfy { (0x30...0x39).contains($0) } && bytes.last != 0x30
    }
}

extension DateStorage {
    /// SQL that gives the julian day of the column `at` holding a date stored this way.
    fileprivate var julianDayExpression: SQL {
        switch self {
        case .text, .julianDay: "julianday(at)"
        case .unixSeconds: "julianday(at, 'unixepoch')"
        case .unixMilliseconds: "julianday(at / 1000.0, 'unixepoch')"
        }
    }
}

/// A model with a date and an optional date.
private struct Appointment: Model, Equatable {
    static var schema: Schema<Self> { Schema(table: "appointments") }
    var id: Int64?
    var at: Date
    var reminder: Date?
}

/// A small, fast, seeded generator (SplitMix64), so that every run tests the same values.
private struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64
    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A uniformly distributed double in `range`.
    mutating func double(in range: Range<Double>) -> Double {
        Double.random(in: range, using: &self)
    }
}
