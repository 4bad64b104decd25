import Foundation
import LiteRecord
import LiteRecordPostgres
import Testing

// Values refused on PostgreSQL say why without naming SQLite (issue 29, item 15), and nothing
// of the refused write is stored.

struct RefusedValues: Model {
    var id: Int64?
    var ratio: Double = 0
    var share: Float = 0
    var big: UInt64 = 0
    var amount: Decimal = 0
    var when = Date(timeIntervalSinceReferenceDate: 0)
    static let schema = Schema<RefusedValues>(table: "refused_values")
}

@Suite(.enabled(if: PostgresTestServer.isAvailable, PostgresTestServer.skipMessage))
struct PostgresValueMessageTests {
    /// Inserts `values`, expects the insert to fail with a message holding `expected` and not
    /// naming SQLite, and checks nothing was stored.
    func expectRefused(_ values: RefusedValues, saying expected: String) throws {
        let pg = try PostgresTestServer.freshDatabase()
        try pg.migrate(RefusedValues.self)
        var copy = values
        var message = ""
        do {
            try pg.insert(&copy)
            Issue.record("the insert was accepted")
        } catch {
            message = "\(error)"
        }
        #expect(message.contains(expected), "\(message)")
        #expect(!message.contains("SQLite"), "\(message)")
        #expect(try pg.count(RefusedValues.self) == 0)
    }

    @Test func notANumber() throws {
        try expectRefused(
            RefusedValues(id: nil, ratio: .nan),
            saying: "cannot store Double: the value is NaN, which LiteRecord refuses on every backend, as "
                + "not every database keeps it; use an optional and nil for a missing value")
    }

    /// Named as a `Float`, not as the `Double` it is stored as.
    @Test func aFloatNaN() throws {
        try expectRefused(
            RefusedValues(id: nil, share: .nan),
            saying: "cannot store Float: the value is NaN, which LiteRecord refuses on every backend, as "
                + "not every database keeps it; use an optional and nil for a missing value")
    }

    @Test func anUnsignedIntegerBeyondInt64() throws {
        try expectRefused(
            RefusedValues(id: nil, big: .max),
            saying: "18446744073709551615 is outside the 64-bit signed integer range (Int64)")
    }

    @Test func aDecimalNaN() throws {
        try expectRefused(
            RefusedValues(id: nil, amount: .nan),
            saying: "cannot store Decimal: the value is NaN, which LiteRecord refuses on every backend, as "
                + "not every database keeps it; use an optional and nil for a missing value")
    }

    @Test func aDateBeyondTheYear9999() throws {
        try expectRefused(
            RefusedValues(id: nil, when: Date(timeIntervalSinceReferenceDate: 1e12)),
            saying: "date text holds the years 0000...9999")
    }
}
