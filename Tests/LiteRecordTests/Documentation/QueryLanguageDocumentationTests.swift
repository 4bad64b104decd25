import Foundation
import LiteRecord
import Testing

// The README's Queries section, compiled and run (each README line appears here verbatim).

@Suite struct QueryLanguageDocumentationTests {
    @Test func optionalColumnsArithmeticAndNestedValues() throws {
        let db = try Database(.temporary)

        struct Address: Codable, Sendable {
            var city: String
            var zip: String?
        }
        struct Line: Codable, Sendable {
            var sku: String
            var quantity: Int
        }
        struct Order: Model {
            var id: Int64?
            var customer: String
            var quantity: Int
            var discount: Int?
            var freight: Double?
            var shippedAt: Date?
            var address: Address?
            var lines: [Line]
        }

        let early = Date(timeIntervalSince1970: 1_700_000_000)
        let paris = Address(city: "Paris", zip: nil)
        let a1 = [Line(sku: "A1", quantity: 1)]
        try db.insert(contentsOf: [
            Order(
                id: nil, customer: "ACME", quantity: 4, discount: 1, freight: 10, shippedAt: early,
                address: paris,
                lines: a1),
            Order(
                id: nil, customer: "acme", quantity: 4, discount: 1, freight: 10, shippedAt: early,
                address: paris,
                lines: a1),
            Order(
                id: nil, customer: "Zed", quantity: 9, discount: 0, freight: 150, shippedAt: early,
                address: paris,
                lines: a1),
            Order(
                id: nil, customer: "Bee", quantity: 9, discount: 0, freight: 120, shippedAt: early,
                address: paris,
                lines: a1),
            Order(
                id: nil, customer: "Bee", quantity: 9, discount: 0, freight: 300, shippedAt: early,
                address: paris,
                lines: a1),
            Order(
                id: nil, customer: "Bee", quantity: 9, discount: nil, freight: 300, shippedAt: early,
                address: paris, lines: a1),
            Order(
                id: nil, customer: "Bee", quantity: 9, discount: 0, freight: 300, shippedAt: nil,
                address: paris,
                lines: a1),
            Order(
                id: nil, customer: "Bee", quantity: 9, discount: 0, freight: 300, shippedAt: early,
                address: nil,
                lines: a1),
            Order(
                id: nil, customer: "Bee", quantity: 9, discount: 0, freight: nil, shippedAt: early,
                address: paris,
                lines: []),
        ])

        let lastID: Int64 = 1
        let cutoff = Date(timeIntervalSince1970: 1_800_000_000)
        let orders = try db.query(Order.self)
            .where { $0.id > lastID && $0.shippedAt < cutoff }  // nil never matches
            .where { $0.freight >= 100.0 || $0.customer.caseInsensitiveEquals("acme") }
            .where { $0.quantity + $0.discount >= 5 }  // nil in, nil out
            .where { $0.address.city == "Paris" && $0.lines.contains { $0.sku == "A1" } }
            .order { [$0.customer, $0.freight.descending] }  // no direction: ascending
            .fetchAll()
        let heaviest: Double? = try db.query(Order.self).max { $0.freight }  // nils left out

        #expect(orders.map(\.id) == [5, 4, 3, 2])  // "Zed" sorts before "acme": by bytes
        #expect(heaviest == 300)
    }
}
