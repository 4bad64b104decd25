import LiteRecord

/// The live value a server would show on a status page: how many orders are open now.
///
/// It is fed by an observation, which fetches again after each commit that changes the
/// `orders` table; bursts of commits are coalesced, so it may skip intermediate values.
actor Dashboard {
    private(set) var openOrders: Int?
    private(set) var updates = 0
    private var lastPrinted = ContinuousClock.now - .seconds(1)

    func show(_ openOrders: Int) {
        guard openOrders != self.openOrders else { return }
        self.openOrders = openOrders
        updates += 1
        // A status page refreshes a few times a second, not at every commit.
        if ContinuousClock.now - lastPrinted >= .milliseconds(100) {
            lastPrinted = .now
            print("dashboard: open orders: \(openOrders)")
        }
    }

    /// Waits until the dashboard shows `expected`, up to `timeout`; returns whether it did.
    func waitUntilShowing(_ expected: Int, timeout: Duration) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while openOrders != expected, ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(10))
        }
        return openOrders == expected
    }
}
