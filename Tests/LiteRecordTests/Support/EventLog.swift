import LiteRecord
import LiteRecordTestSupport
import Synchronization

/// A thread-safe, append-only list of events, for hook handlers and multi-thread tests.
final class EventLog<Event: Sendable>: Sendable {
    private let storage = Locked<[Event]>([])

    init() {}

    /// Appends an event; callable from any thread.
    func append(_ event: Event) {
        storage.withLock { $0.append(event) }
    }

    /// A snapshot of the events so far, in the order they were appended.
    var events: [Event] {
        storage.withLock { $0 }
    }

    /// Forgets the events so far.
    func removeAll() {
        storage.withLock { $0.removeAll() }
    }
}
