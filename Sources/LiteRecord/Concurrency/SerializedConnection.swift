import Foundation
import Synchronization

/// A connection that one thread at a time may use: the writer of a ``Database``.
///
/// A call made from inside a write closure, on the same thread, runs inside that write instead
/// of deadlocking: the owner's identity tells it apart, and lets reads made there see the
/// write's own uncommitted changes. That check makes a recursive lock unnecessary; a plain one
/// costs half as much, on every read and write of an in-memory database.
final class SerializedConnection: @unchecked Sendable {
    // @unchecked Sendable: `connection` is only reached through `withConnection`, under `lock`,
    // so a single thread uses it at a time; `owner` is atomic; `handle` is immutable and only
    // passed to `sqlite3_interrupt`, which SQLite documents as callable from any thread.
    private let connection: Connection
    private let lock = NSLock()
    private let owner = Atomic<UInt>(0)
    let handle: OpaquePointer

    init(_ connection: Connection) {
        self.connection = connection
        self.handle = connection.handle
    }

    /// Whether the calling thread is inside ``withConnection(_:)``.
    ///
    /// Only the owning thread writes its own identity here, so no other thread can read it back.
    var isHeldByCurrentThread: Bool {
        owner.load(ordering: .relaxed) == ThreadIdentity.current
    }

    /// Runs `body` with the connection when no other thread is using it; otherwise returns
    /// `nil` at once without running it.
    func withConnectionIfAvailable<T>(_ body: (Connection) throws -> T) rethrows -> T? {
        let current = ThreadIdentity.current
        if owner.load(ordering: .relaxed) == current { return try body(connection) }
        guard lock.try() else { return nil }
        return try whileOwned(by: current, body)
    }

    /// Runs `body` with the connection, waiting while another thread uses it.
    func withConnection<T>(_ body: (Connection) throws -> T) rethrows -> T {
        let current = ThreadIdentity.current
        if owner.load(ordering: .relaxed) == current { return try body(connection) }
        lock.lock()
        return try whileOwned(by: current, body)
    }

    /// Runs `body` as the owner of the lock just taken, then gives it up.
    @inline(__always)
    private func whileOwned<T>(by current: UInt, _ body: (Connection) throws -> T) rethrows -> T {
        owner.store(current, ordering: .relaxed)
        defer {
            owner.store(0, ordering: .relaxed)
            lock.unlock()
        }
        return try body(connection)
    }
}
