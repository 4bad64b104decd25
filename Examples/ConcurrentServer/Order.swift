import Foundation
import LiteRecord

/// Where an order is in its life; stored as its raw value (`TEXT`).
enum OrderStatus: String, Codable, Sendable {
    case open, paid, cancelled
}

/// A customer's order, the server's one model.
struct Order: Model, Equatable {
    var id: Int64?
    var customer: String
    var cents: Int
    var status: OrderStatus
    var placedAt: Date

    // Indexes for the queries the server runs most: a customer's orders, orders by status.
    static let schema = Schema<Order>(table: "orders", indexes: [[\.customer], [\.status]])
}
