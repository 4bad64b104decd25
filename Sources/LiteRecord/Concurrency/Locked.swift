import Foundation

/// A value that threads share, reached only under a lock.
///
/// Not `Synchronization.Mutex`: on Linux that one waits with futexes inside the precompiled
/// standard library, which the thread sanitizer cannot see, so it reports every value the mutex
/// protects as a data race. `NSLock` is a pthread mutex, which it understands.
package final class Locked<Value: Sendable>: @unchecked Sendable {
    // @unchecked Sendable: `value` is only read or written inside `withLock`, under `lock`.
    private let lock = NSLock()
    private var value: Value

    package init(_ value: Value) {
        self.value = value
    }

    /// Runs `body` with exclusive access to the value.
    package func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
