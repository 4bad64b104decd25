import Foundation
import LiteRecord
import Testing

// Numbers on both backends. A `Decimal` column compares, sorts, pages and aggregates as a number on every backend, as
// the same closure does in Swift on the decoded models (`10.5 > 9.5`, not `"10.5" < "9.5"`).

struct DecimalPrice: Model, Equatable {
    var id: Int64?
    var amount: Decimal
    var discount: Decimal?
    static let schema = Schema<DecimalPrice>(table: "decimal_prices")
}

struct DecimalTotal: Decodable, Equatable {
    var total: Decimal
}

enum DecimalParityChecks {
    static let amounts = ["9", "10", "10.5", "-3.25", "0.1", "12345678901234567890.123", "9.99", "100", "2"]
    /// Dyadic values, so that SQLite's floating-point `sum` is exact too.
    static let discounts: [String?] = ["0.5", nil, "0.25", "2", nil, "1.5", nil, "0.125", "10"]

    static func comparisons(_ db: some ModelContext, _ backend: ParityBackend) throws {
        var prices: [DecimalPrice] = []
        for (amount, discount) in zip(amounts, discounts) {
            var price = DecimalPrice(
                id: nil, amount: Decimal(string: amount)!, discount: discount.flatMap { Decimal(string: $0) })
            try db.insert(&price)
            prices.append(price)
        }
        let threshold = Decimal(string: "9.5")!
        func ids(_ query: Query<DecimalPrice>) throws -> [Int64] {
            try query.order { $0.id.ascending }.fetchAll().compactMap(\.id)
        }
        #expect(
            try ids(db.query(DecimalPrice.self).where { $0.amount > threshold })
                == prices.filter { $0.amount > threshold }.compactMap(\.id), "\(backend.name)")
        #expect(
            try ids(db.query(DecimalPrice.self).where { $0.amount <= 10 })
                == prices.filter { $0.amount <= 10 }.compactMap(\.id), "\(backend.name)")
        #expect(
            try ids(db.query(DecimalPrice.self).where { $0.discount < 1 })
                == prices.filter { $0.discount.map { $0 < 1 } ?? false }.compactMap(\.id), "\(backend.name)")
        let byAmount = prices.sorted { $0.amount < $1.amount }
        #expect(
            try db.query(DecimalPrice.self).order { $0.amount.ascending }.fetchAll() == byAmount,
            "\(backend.name)")
        #expect(
            try db.query(DecimalPrice.self).min { $0.amount } == byAmount.first?.amount, "\(backend.name)")
        #expect(try db.query(DecimalPrice.self).max { $0.amount } == byAmount.last?.amount, "\(backend.name)")
        #expect(try db.query(DecimalPrice.self).max { $0.discount } == Decimal(10), "\(backend.name)")
        #expect(
            try db.query(DecimalPrice.self).sum { $0.discount } == Decimal(string: "14.375")!,
            "\(backend.name)")
        // Sums are exact, as Swift's (SQLite's own `sum` adds the text as REALs: 0.1 + 0.2).
        let total = prices.map(\.amount).reduce(0, +)
        #expect(try db.query(DecimalPrice.self).sum { $0.amount } == total, "\(backend.name)")
        #expect(
            try db.query(DecimalPrice.self).where { $0.amount < 1 }.sum { $0.amount } == Decimal(
                string: "-3.15")!,
            "\(backend.name)")
        let totals = try db.query(DecimalPrice.self).select(DecimalTotal.self) { [$0.amount.sum.as("total")] }
            .fetchAll()
        #expect(totals == [DecimalTotal(total: total)], "\(backend.name)")
        var pages: [DecimalPrice] = []
        var last: DecimalPrice?
        repeat {
            let page = try db.query(DecimalPrice.self).order { $0.amount.descending }.page(
                after: last, limit: 4
            )
            .fetchAll()
            pages += page
            last = page.last
            if page.count < 4 { break }
        } while true
        #expect(pages == byAmount.reversed(), "\(backend.name)")

        // Text another tool stored that is no number fails the sum, as decoding it would.
        try db.execute(sql: "UPDATE decimal_prices SET amount = \("lots") WHERE id = \(prices[0].id)")
        let error = #expect(throws: DatabaseError.self, "\(backend.name)") {
            try db.query(DecimalPrice.self).sum { $0.amount }
        }
        let expected =
            backend.isSQLite ? "'lots' is not a decimal number" : "invalid input syntax for type numeric"
        #expect(error?.message.contains(expected) == true, "\(backend.name): \(String(describing: error))")
    }
}

// Raw SQL whose text is the same on both backends gives the same values: an aggregate written
// by hand (`SELECT SUM(score)`) decodes into the Swift type the query's own aggregate returns,
// although PostgreSQL computes `sum` of a `bigint` as `numeric`.

struct RawScore: Model, Equatable {
    var id: Int64?
    var score: Int
    var price: Decimal
    static let schema = Schema<RawScore>(table: "raw_scores")
}

enum RawAggregateParityChecks {
    static func sums(_ db: some ModelContext, _ backend: ParityBackend) throws {
        for (score, price) in [(120, "10.5"), (95, "9"), (300, "0.25")] {
            var row = RawScore(id: nil, score: score, price: Decimal(string: price)!)
            try db.insert(&row)
        }
        #expect(try db.fetchOne(Int.self, sql: "SELECT SUM(score) FROM raw_scores") == 515, "\(backend.name)")
        #expect(
            try db.fetchAll(
                Int64.self, sql: "SELECT SUM(score) FROM raw_scores GROUP BY score > 100 ORDER BY 1")
                == [95, 420], "\(backend.name)")
        // An exact decimal stays exact (text), and reads as a Decimal.
        #expect(
            try db.fetchOne(Decimal.self, sql: "SELECT SUM(CAST(price AS NUMERIC)) FROM raw_scores")
                == Decimal(string: "19.75")!, "\(backend.name)")
        #expect(try db.query(RawScore.self).sum { $0.score } == 515, "\(backend.name)")
    }
}

enum ArithmeticErrorParityChecks {
    /// An integer overflow or a division by zero in a query fails it with the same result code
    /// on both backends (SQLite's `SQLITE_ERROR`, as its own `sum` reports an overflow), so that
    /// one `catch` serves both.
    static func resultCodes(_ db: some ModelContext, _ backend: ParityBackend) throws {
        for (score, price) in [(Int.max, "1"), (1, "2")] {
            var row = RawScore(id: nil, score: score, price: Decimal(string: price)!)
            try db.insert(&row)
        }
        let failures: [(String, () throws -> Void)] = [
            ("overflow", { _ = try db.query(RawScore.self).where { $0.score + 1 > 0 }.count() }),
            ("sum overflow", { _ = try db.query(RawScore.self).sum { $0.score } }),
            ("division by zero", { _ = try db.query(RawScore.self).where { $0.score / 0 > 0 }.count() }),
        ]
        for (name, body) in failures {
            let error = #expect(throws: DatabaseError.self, "\(backend.name): \(name)") { try body() }
            #expect(error?.resultCode == .error, "\(backend.name): \(name): \(String(describing: error))")
            let words = name == "division by zero" ? ["division by zero"] : ["overflow", "out of range"]
            #expect(
                words.contains { error?.message.contains($0) == true },
                "\(backend.name): \(name): \(String(describing: error))")
        }
    }
}
