import Foundation
import LiteRecord
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
    private let semaphore = DispatchSemaphore(value: 0)

    func open() { semaphore.signal() }

    /// Whether the latch opened within `seconds`.
    func wait(seconds: Double = 60) -> Bool {
        semaphore.wait(timeout: .now() + seconds) == .success
    }

    /// Whether the latch opened within `seconds`, waiting on a Dispatch thread so that an async
    /// test never blocks Swift's cooperative thread pool (which the code under test needs).
    func opened(withinSeconds seconds: Double = 60) async -> Bool {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(returning: self.wait(seconds: seconds)) }
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

/// Runs the jobs of the tasks that prefer it on Dispatch threads.
///
/// Swift Testing runs synchronous tests on the cooperative thread pool, which has one thread per
/// core: while they run, a task these tests start could wait a minute for a thread and make a
/// latch time out. Tasks that must start promptly prefer this executor instead.
final class DispatchTaskExecutor: TaskExecutor {
    static let shared = DispatchTaskExecutor()
    private let queue = DispatchQueue(label: "LiteRecordTests.executor", attributes: .concurrent)

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        queue.async { job.runSynchronously(on: executor) }
    }
}
