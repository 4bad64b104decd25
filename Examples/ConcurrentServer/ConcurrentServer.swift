import Foundation
import LiteRecord

/// Simulates a server: many concurrent request handlers on one shared `Database`, a live
/// dashboard fed by an observation, and a final check that nothing was lost.
///
/// Exit code 0 when every invariant holds, 1 otherwise.
@main
enum ConcurrentServer {
    static let clientCount = 50
    static let requestsPerClient = 100

    static func main() async {
        // A real file, so the database runs in WAL mode with a pool of readers beside the writer
        // (in-memory and temporary databases have a single connection).
        let path = FileManager.default.temporaryDirectory
            .appendingPathComponent("concurrent-server-\(UUID().uuidString).sqlite").path
        var succeeded = false
        do {
            let violations = try await serve(Database(path: path))
            for violation in violations { print("FAILED: \(violation)") }
            succeeded = violations.isEmpty
        } catch {
            print("FAILED: \(error)")
        }
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        print(succeeded ? "All invariants hold." : "Invariants broken.")
        exit(succeeded ? 0 : 1)
    }

    /// Runs the clients and the dashboard, then returns every broken invariant.
    static func serve(_ db: Database) async throws -> [String] {
        try await db.migrate(Order.self)  // create the table before the clients race to it
        let dashboard = Dashboard()
        let watcher = Task {
            // The current count at once, then a fresh one after each commit that touches `orders`.
            let openCount = db.observe { db in
                try db.query(Order.self).where { $0.status == .open }.count()
            }
            for try await open in openCount { await dashboard.show(open) }
        }
        defer { watcher.cancel() }  // ends the observation

        let start = ContinuousClock.now
        let total = try await withThrowingTaskGroup(of: Tally.self) { group in
            for number in 0..<clientCount {
                group.addTask { try await Client(db: db, number: number).run(requests: requestsPerClient) }
            }
            return try await group.reduce(Tally(), +)
        }
        let elapsed = ContinuousClock.now - start
        let milliseconds = Int(elapsed / .milliseconds(1))
        print("\(clientCount) clients handled \(total.requests) requests in \(milliseconds) ms")

        // The database must hold exactly what the clients did.
        var violations: [String] = []
        func check(_ what: String, _ actual: Int, _ expected: Int) {
            if actual != expected { violations.append("\(what): \(actual), expected \(expected)") }
        }
        let expectedOpen = total.placed - total.paid - total.cancelled
        check("requests handled", total.requests, clientCount * requestsPerClient)
        check("orders", try await db.count(Order.self), total.placed)
        let open = db.query(Order.self).where { $0.status == .open }
        let paid = db.query(Order.self).where { $0.status == .paid }
        let cancelled = db.query(Order.self).where { $0.status == .cancelled }
        check("open orders", try await open.count(), expectedOpen)
        check("paid orders", try await paid.count(), total.paid)
        check("cancelled orders", try await cancelled.count(), total.cancelled)
        check("paid cents", try await paid.sum { $0.cents }, total.paidCents)
        // The observation must catch up with the last commit (its updates are coalesced).
        if await !dashboard.waitUntilShowing(expectedOpen, timeout: .seconds(5)) {
            violations.append("dashboard shows \(await dashboard.openOrders ?? -1), expected \(expectedOpen)")
        }
        let updates = await dashboard.updates
        print("dashboard: open orders: \(await dashboard.openOrders ?? 0) (final)")
        print("Dashboard updated \(updates) times; \(expectedOpen) orders open, \(total.paid) paid")
        return violations
    }
}
