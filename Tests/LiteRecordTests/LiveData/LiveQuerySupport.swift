import Foundation
import LiteRecord
import Observation

/// A player of the live-query tests.
struct LivePlayer: Model {
    var id: Int64?
    var name: String
    var score: Int
    static let schema = Schema<LivePlayer>(table: "players")
}

/// A row of another table, whose commits a live query of players must not notice.
struct LiveTrophy: Model, Equatable {
    var id: Int64?
    var title: String
    static let schema = Schema<LiveTrophy>(table: "trophies")
}

/// The table the helper process and the `sqlite3` shell write (`items(id, value)`).
struct LiveItem: Model, Equatable {
    var id: Int64?
    var value: Int
    static let schema = Schema<LiveItem>(table: "items")
}

/// Waits on the main actor, letting it run what hops to it, until `condition` holds.
///
/// - Returns: Whether it did within `seconds` (generous: the machine may be loaded).
@MainActor
func eventually(seconds: Double = 60, _ condition: () -> Bool) async -> Bool {
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
func settle(milliseconds: Int = 300) async {
    try? await Task.sleep(for: .milliseconds(milliseconds))
}

/// Counts the changes `withObservationTracking` reports of a live query's `value`, and records
/// the value after each.
@MainActor
final class ObservedChanges<Value: Sendable> {
    private let live: LiveQuery<Value>
    private(set) var values: [Value] = []
    var count: Int { values.count }

    init(_ live: LiveQuery<Value>) {
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

/// A fresh temporary directory for a test on the main actor, removed afterwards.
@MainActor
func withLiveDirectory(_ body: (TemporaryDirectory) async throws -> Void) async throws {
    let base = URL(fileURLWithPath: NSTemporaryDirectory(), isDirectory: true)
    let url = base.appendingPathComponent("LiteRecordTests-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: url) }
    try await body(TemporaryDirectory(path: url.path))
}
