import Foundation
import LiteRecord
import Testing

private struct Event: Model {
    var id: Int64?
    var title: String
    var at: Date

    static let schema = Schema<Event>(table: "events")
}

private struct Window: Codable, Sendable {
    var start: Date
    var end: Date
}

/// A model whose JSON column holds a date.
private struct Booking: Model {
    var id: Int64?
    var window: Window

    static let schema = Schema<Booking>(table: "bookings")
}

/// A model whose date is stored as a number.
private struct Reading: Model {
    var id: Int64?
    var at: Date

    static let schema = Schema<Reading>(table: "readings").dateStorage(.unixSeconds, for: \.at)
}

/// Describing an error never traps, whatever value it carries, and says what went wrong.
@Suite("Describing errors safely")
struct ErrorDescriptionSafetyTests {
    /// Time intervals of dates that cannot be stored. Passed as numbers: Swift Testing
    /// describes a test's arguments, and `Date.description` itself traps on these.
    static let unstorableIntervals: [Double] = [.infinity, -.infinity, .nan]

    @Test(arguments: unstorableIntervals)
    func aNonFiniteDateIsAClearErrorAndNothingIsWritten(interval: Double) throws {
        let date = Date(timeIntervalSinceReferenceDate: interval)
        let db = try Database(.inMemory)
        try db.migrate(Event.self)
        var event = Event(id: nil, title: "launch", at: date)
        let error = try #require(#expect(throws: (any Error).self) { try db.insert(&event) })
        let text = "\(error)"
        #expect(text.contains("not a finite number"), "\(text)")
        #expect(text.contains("at"), "\(text)")
        #expect(String(describing: error).count < 2_000)
        #expect(String(reflecting: error).count > 0)
        #expect(event.id == nil)
        #expect(try db.count(Event.self) == 0)
    }

    @Test(arguments: unstorableIntervals)
    func aNonFiniteDateInAJSONColumnIsDescribedSafely(interval: Double) throws {
        let date = Date(timeIntervalSinceReferenceDate: interval)
        let db = try Database(.inMemory)
        var booking = Booking(id: nil, window: Window(start: Date(timeIntervalSince1970: 0), end: date))
        let error = try #require(#expect(throws: (any Error).self) { try db.insert(&booking) })
        let text = "\(error)"
        #expect(text.contains("window"), "\(text)")
        #expect(text.contains("finite"), "\(text)")
        #expect(try db.count(Booking.self) == 0)
    }

    @Test(arguments: unstorableIntervals)
    func aNonFiniteDateStoredAsANumberIsDescribedSafely(interval: Double) throws {
        let date = Date(timeIntervalSinceReferenceDate: interval)
        let db = try Database(.inMemory)
        var reading = Reading(id: nil, at: date)
        let error = try #require(#expect(throws: (any Error).self) { try db.insert(&reading) })
        #expect("\(error)".contains("not a finite number"))
        #expect(try db.count(Reading.self) == 0)
    }

    @Test(arguments: unstorableIntervals)
    func aNonFiniteDateBoundInSQLIsDescribedSafely(interval: Double) throws {
        let date = Date(timeIntervalSinceReferenceDate: interval)
        let db = try Database(.inMemory)
        try db.execute(sql: "CREATE TABLE t(at)")
        let error = try #require(
            #expect(throws: (any Error).self) { try db.execute(sql: "INSERT INTO t VALUES (\(date))") })
        #expect("\(error)".contains("not a finite number"))
        #expect(try db.firstValue(Int.self, sql: "SELECT count(*) FROM t") == 0)
    }

    @Test func aHugeFiniteDateIsDescribedSafely() throws {
        let db = try Database(.inMemory)
        var event = Event(id: nil, title: "far", at: Date(timeIntervalSinceReferenceDate: 1e300))
        let error = try #require(#expect(throws: (any Error).self) { try db.insert(&event) })
        #expect("\(error)".contains("out of range"))
        #expect(try db.count(Event.self) == 0)
    }

    @Test func hugeValuesAreCutInDescriptions() throws {
        let huge = String(repeating: "é", count: 1_000_000)
        // One grapheme cluster of a million scalars: cutting by characters would keep it all.
        let oneHugeCharacter = "e" + String(repeating: "\u{301}", count: 1_000_000)
        for text in [huge, oneHugeCharacter] {
            let conversion = ValueConversionError(value: .text(text), to: Int.self)
            #expect("\(conversion)".utf8.count < 1_000)
            #expect("\(conversion)".contains("TEXT"))
            let database = DatabaseError(
                resultCode: .error, message: "boom", sql: "SELECT '" + text + "'", arguments: [.text(text)])
            #expect(database.description.utf8.count < 5_000)
            #expect(database.expandedDescription.utf8.count < 5_000)
            #expect(database.description.contains("boom"))
            #expect(database.description.contains("SELECT '"))
        }
        let db = try Database(.inMemory)
        try db.execute(sql: "CREATE TABLE t(a INTEGER NOT NULL CHECK (typeof(a) = 'integer'))")
        let error = try #require(
            #expect(throws: DatabaseError.self) { try db.execute(sql: "INSERT INTO t VALUES (\(huge))") })
        #expect(error.expandedDescription.utf8.count < 5_000)
        #expect(error.resultCode == .constraintCheck)
    }

    @Test func aHugeInvalidDateInAJSONColumnIsCutInTheDescription() throws {
        let db = try Database(.inMemory)
        try db.migrate(Booking.self)
        let huge = String(repeating: "9", count: 1_000_000)
        try db.execute(
            sql: "INSERT INTO bookings(window) VALUES (json_object('start', \(huge), 'end', '2024-01-01'))")
        let error = try #require(#expect(throws: (any Error).self) { _ = try db.fetchAll(Booking.self) })
        let text = "\(error)"
        #expect(text.utf8.count < 5_000)
        #expect(text.contains("invalid date text"), "\(text.prefix(500))")
        #expect(text.contains("window"), "\(text.prefix(500))")
    }

    @Test func invalidUTF8IsDescribedSafely() throws {
        let db = try Database(.inMemory)
        try db.execute(sql: "CREATE TABLE t(a TEXT)")
        try db.execute(sql: "INSERT INTO t VALUES (CAST(x'c328ff' AS TEXT))")
        let error = try #require(
            #expect(throws: (any Error).self) { _ = try db.firstValue(String.self, sql: "SELECT a FROM t") })
        let text = "\(error)"
        #expect(text.contains("UTF-8"), "\(text)")
        #expect(text.contains("c328ff"), "\(text)")
    }
}
