import Foundation
import LiteRecord
import Observation

// Waiting for live values in tests, on the main actor, without blocking it: the values a
// LiveQuery receives hop to the main actor, which must be free to run them.

/// Waits on the main actor, letting it run what hops to it, until `condition` holds.
///
/// - Returns: Whether it did within `seconds` (generous: the machine may be loaded).
@MainActor
public func eventually(seconds: Double = 60, _ condition: () -> Bool) async -> Bool {
    let deadline = Date(timeIntervalSinceNow: seconds)
    while !condition() {
        guard Date() < deadline else { return false }
        try? await Task.sleep(for: .milliseconds(2))
    }
    return true
}

/// Gives the main actor time to run what was sent to it (a value arriving late would land
/// within this), for checks that something did not happen.
@MainActor
public func settle(milliseconds: Int = 300) async {
    try? await Task.sleep(for: .milliseconds(milliseconds))
}

/// Counts the changes `withObservationTracking` reports of a live query's `value`, and records
/// the value after each.
@MainActor
public final class ObservedChanges<Value: Sendable> {
    private let live: LiveQuery<Value>
    public private(set) var values: [Value] = []
    public var count: Int { values.count }

    public init(_ live: LiveQuery<Value>) {
        self.live = live
        track()
    }

    private func track() {
        withObservationTracking {
            _ = live.value
        } onChange: { [weak self] in
            // Called as the value is about to change: read it once it has.
            Task { @MainActor in
                guard let self else { return }
                self.values.append(self.live.value)
                self.track()
            }
        }
    }
}
