import Foundation
import LiteRecord
import LiteRecordTestSupport
import Synchronization

/// A note kept in the concurrency tests' file databases.
struct Note: Model, Equatable {
    var id: Int64?
    var author: Int
    var body: String

    static let schema = Schema<Note>(table: "notes", primaryKey: \.id, indexes: [[\.author]])
}

/// Creates a temporary directory for an async test and removes it afterwards.
func withTemporaryDirectory<T>(_ body: (TemporaryDirectory) async throws -> T) async throws -> T {
    let base = URL(fileURLWithPath: NSTemporaryDirectory(), isDirectory: true)
    let url = base.appendingPathComponent("LiteRecordTests-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: url) }
    return try await body(TemporaryDirectory(path: url.path))
}

/// One-shot signal between threads, with a deadline so a test fails instead of hanging. The
/// deadline is generous: under a sanitizer, with the whole suite running, a task may wait long
/// for a thread.
final class Latch: Sendable {
    private struct State {
        var isOpen = false
        var waiters: [Int: CheckedContinuation<Bool, Never>] = [:]
        var nextWaiter = 0
    }

    private let state = Locked(State())
    private let semaphore = DispatchSemaphore(value: 0)

    func open() {
        let waiters = state.withLock { state in
            state.isOpen = true
            defer { state.waiters = [:] }
            return Array(state.waiters.values)
        }
        semaphore.signal()
        for waiter in waiters { waiter.resume(returning: true) }
    }

    /// Whether the latch opened within `seconds`, blocking the calling thread meanwhile.
    func wait(seconds: Double = 60) -> Bool {
        semaphore.wait(timeout: .now() + seconds) == .success
    }

    /// Whether the latch opened within `seconds`, suspending without holding any thread: a
    /// thread blocked here would be one fewer for the work that opens the latch.
    func opened(withinSeconds seconds: Double = 60) async -> Bool {
        await withCheckedContinuation { continuation in
            let waiter: Int? = state.withLock { state in
                guard !state.isOpen else { return nil }
                defer { state.nextWaiter += 1 }
                state.waiters[state.nextWaiter] = continuation
                return state.nextWaiter
            }
            guard let waiter else { return continuation.resume(returning: true) }
            DispatchQueue.global().asyncAfter(deadline: .now() + seconds) { [self] in
                let expired = state.withLock { $0.waiters.removeValue(forKey: waiter) }
                expired?.resume(returning: false)
            }
        }
    }
}

/// A boolean that any thread may set and read.
final class Flag: Sendable {
    private let value = Locked(false)

    func set() { value.withLock { $0 = true } }

    var isSet: Bool { value.withLock { $0 } }
}

/// A counter that any thread may bump and read.
final class Counter: Sendable {
    private let value = Locked(0)

    func increment() { value.withLock { $0 += 1 } }

    var count: Int { value.withLock { $0 } }
}
