import Foundation
import LiteRecord
import LiteRecordTestSupport

/// The values an observation delivered, which a test waits on (with a deadline, never timing
/// anything).
final class ObservedValues<Value: Sendable>: @unchecked Sendable {
    // @unchecked Sendable: `values` is only touched under `condition`'s lock.
    private let condition = NSCondition()
    private var values: [Value] = []

    func append(_ value: Value) {
        condition.withLock {
            values.append(value)
            condition.broadcast()
        }
    }

    var all: [Value] { condition.withLock { values } }

    /// Waits until the latest value satisfies `predicate`.
    ///
    /// Polls with `Task.sleep` rather than blocking: a test blocked on a lock holds one of the
    /// few threads of Swift's cooperative pool (two on a 2-core machine), which other tests'
    /// tasks, cancellations included, need to make progress.
    ///
    /// - Returns: Whether it did within `seconds` (generous: the machine may be loaded).
    func waitForLatest(seconds: Double = 60, _ predicate: (Value) -> Bool) async -> Bool {
        let deadline = Date(timeIntervalSinceNow: seconds)
        while true {
            if condition.withLock({ values.last.map(predicate) ?? false }) { return true }
            guard Date() < deadline else { return false }
            try? await Task.sleep(for: .milliseconds(5))
        }
    }
}

/// A gate that a fetch can be made to wait at, to hold an observation busy during a burst.
final class FetchGate: Sendable {
    private let isClosed = Locked(false)
    private let opened = DispatchSemaphore(value: 0)
    private let reached = DispatchSemaphore(value: 0)

    func close() { isClosed.withLock { $0 = true } }

    /// Called by the fetch: waits while the gate is closed (at most a minute).
    func pass() {
        guard isClosed.withLock({ $0 }) else { return }
        reached.signal()
        _ = opened.wait(timeout: .now() + 60)
    }

    /// Whether a fetch has reached the closed gate within `seconds`.
    func waitUntilReached(seconds: Double = 60) -> Bool {
        reached.wait(timeout: .now() + seconds) == .success
    }

    func open() {
        isClosed.withLock { $0 = false }
        opened.signal()
    }
}

/// What the test process has open for watching files: Linux only (`/proc`).
enum WatcherProbe {
    /// The inotify descriptors of this process that watch `directory`.
    static func inotifyDescriptors(watching directory: String) -> Int {
        guard let inode = inode(of: directory),
            let entries = try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")
        else { return 0 }
        let watched = String(inode, radix: 16)
        return entries.filter { entry in
            let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/" + entry)
            guard target == "anon_inode:inotify",
                let info = try? String(contentsOfFile: "/proc/self/fdinfo/" + entry, encoding: .utf8)
            else { return false }
            return info.split(separator: "\n").contains { line in
                line.hasPrefix("inotify") && line.split(separator: " ").contains("ino:" + watched)
            }
        }.count
    }

    /// The threads of this process named as the watcher of `directory` names its thread.
    static func watcherThreads(watching directory: String) -> Int {
        guard let inode = inode(of: directory),
            let tasks = try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")
        else { return 0 }
        let name = "lrw-\(inode % 100_000_000_000)"
        return tasks.filter { task in
            let comm = try? String(contentsOfFile: "/proc/self/task/\(task)/comm", encoding: .utf8)
            return comm?.trimmingCharacters(in: .whitespacesAndNewlines) == name
        }.count
    }

    private static func inode(of path: String) -> UInt64? {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        return UInt64(status.st_ino)
    }

    /// Waits until `body` returns `expected` (threads end and descriptors close asynchronously
    /// only where the API is asynchronous).
    static func waitUntil(_ expected: Int, seconds: Double = 60, _ body: () -> Int) -> Bool {
        let deadline = Date(timeIntervalSinceNow: seconds)
        while body() != expected {
            guard Date() < deadline else { return false }
            Thread.sleep(forTimeInterval: 0.01)
        }
        return true
    }
}
