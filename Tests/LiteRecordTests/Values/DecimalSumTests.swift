import Foundation
import LiteRecord
import Testing

// `sum` of a `Decimal` column on SQLite adds the values as `Decimal` does
// (`literecord_decimal_sum`), not as REALs, and fails on what is no decimal number.

private struct Ledger: Model, Equatable {
    var id: Int64?
    var amount: Decimal?
    static let schema = Schema<Ledger>(table: "ledger")
}

@Suite struct DecimalSumTests {
    @Test func addsExactlyAndReadsOtherToolsSpellings() throws {
        let db = try Database(.inMemory)
        for amount in ["0.1", "0.2", nil] {
            var row = Ledger(id: nil, amount: amount.flatMap { Decimal(string: $0) })
            try db.insert(&row)
        }
        #expect(try db.query(Ledger.self).sum { $0.amount } == Decimal(string: "0.3")!)
        // An INTEGER and a REAL another tool stored are read as the decoder reads them.
        try db.execute(sql: "INSERT INTO ledger (amount) VALUES (\(2)), (\(0.25))")
        #expect(try db.query(Ledger.self).sum { $0.amount } == Decimal(string: "2.55")!)
        // No value: 0, as for any sum.
        #expect(try db.query(Ledger.self).where { $0.amount == nil }.sum { $0.amount } == 0)
    }

    @Test func aSumBeyondDecimalFails() throws {
        let db = try Database(.inMemory)
        let huge = Decimal.greatestFiniteMagnitude
        for _ in 0..<2 {
            var row = Ledger(id: nil, amount: huge)
            try db.insert(&row)
        }
        let error = #expect(throws: DatabaseError.self) { try db.query(Ledger.self).sum { $0.amount } }
        #expect(
            error?.message.contains("literecord_decimal_sum: the sum is beyond what Decimal can hold") == true
        )
    }

    @Test func textThatIsNoNumberFails() throws {
        let db = try Database(.inMemory)
        try db.migrate(Ledger.self)
        try db.execute(sql: "INSERT INTO ledger (amount) VALUES (\("1")), (\("lots"))")
        let error = #expect(throws: DatabaseError.self) { try db.query(Ledger.self).sum { $0.amount } }
        #expect(error?.message.contains("literecord_decimal_sum: 'lots' is not a decimal number") == true)
    }
}
