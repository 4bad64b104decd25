import Foundation

/// A value that test threads share, reached only under a lock.
///
/// Not `Synchronization.Mutex`: on Linux it waits with futexes inside the precompiled standard
/// library, invisible to the thread sanitizer, which then reports what it protects as races.
package final class Locked<Value: Sendable>: @unchecked Sendable {
    // @unchecked Sendable: `value` is only read or written inside `withLock`, under `lock`.
    private let lock = NSLock()
    private var value: Value

    package init(_ value: Value) {
        self.value = value
    }

    package func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
