import Foundation
import LiteRecord

/// What one client did, for the final check against the database.
struct Tally: Sendable {
    var requests = 0
    var placed = 0
    var paid = 0
    var cancelled = 0
    var paidCents = 0

    static func + (a: Tally, b: Tally) -> Tally {
        Tally(
            requests: a.requests + b.requests, placed: a.placed + b.placed, paid: a.paid + b.paid,
            cancelled: a.cancelled + b.cancelled, paidCents: a.paidCents + b.paidCents)
    }
}

/// A broken promise found while the server runs: the program ends with exit code 1.
struct InvariantViolation: Error, CustomStringConvertible {
    var description: String
}

/// One simulated client sending requests one after another, as a connection handler would.
///
/// Many run at once, each in its own task of a `TaskGroup`, all on one shared `Database`:
/// reads run in parallel on the reader pool, writes queue for the single writer.
struct Client: Sendable {
    let db: Database
    let number: Int
    var name: String { "customer-\(number)" }

    func run(requests: Int) async throws -> Tally {
        var tally = Tally()
        var openOrders: [Order] = []  // this client's orders still open, oldest first
        for request in 0..<requests {
            // A fixed mix, different for each client: place, read, pay, cancel.
            switch (number + request) % 4 {
            case 0:
                var order = Order(
                    id: nil, customer: name, cents: 100 + (number * 37 + request * 11) % 900,
                    status: .open, placedAt: Date())
                try await db.insert(&order)  // sets order.id
                openOrders.append(order)
                tally.placed += 1
            case 1:
                // Read-your-writes: once `insert` returned, every later read sees the order.
                let mine = try await db.query(Order.self).where { $0.customer == name }.count()
                guard mine == tally.placed else {
                    throw InvariantViolation(
                        description: "\(name) placed \(tally.placed) orders but reads \(mine)")
                }
            case 2:
                guard !openOrders.isEmpty else { break }  // nothing to pay: handled, no change
                let order = openOrders.removeFirst()
                try await pay(order)
                tally.paid += 1
                tally.paidCents += order.cents
            default:
                guard var order = openOrders.popLast() else { break }
                order.status = .cancelled
                try await db.update(order, columns: [\.status])  // writes only that column
                tally.cancelled += 1
            }
            tally.requests += 1
        }
        return tally
    }

    /// Read, check and write in one transaction: no other write can slip in between.
    private func pay(_ order: Order) async throws {
        try await db.write { tx in
            guard var current = try tx.find(Order.self, id: order.id), current.status == .open else {
                throw InvariantViolation(description: "order \(order.id ?? 0) is no longer open")
            }
            current.status = .paid
            try tx.update(current, columns: [\.status])
        }
    }
}
