import Foundation
import LiteRecord

// The async API: each operation runs on a thread of its own, off the caller's executor, and a
// cancelled task stops the statement running on the server (`PQcancel`): it then throws
// `DatabaseError` with `ResultCode.interrupt`, and a transaction rolls back.

extension PostgresDatabase {
    /// Runs `body` in a transaction off the calling task; see ``transaction(_:)``.
    ///
    /// Cancelling the task cancels the statement in progress on the server; the transaction
    /// then throws ``LiteRecord/ResultCode/interrupt`` and rolls back. As the synchronous form,
    /// it runs `body` again after a serialization failure or deadlock: `body` may run more than
    /// once.
    ///
    /// - Parameter body: The work; it may run more than once.
    /// - Returns: What `body` returns.
    /// - Throws: As ``transaction(_:)``; `CancellationError` when the task was cancelled first.
    @discardableResult
    public func transaction<T: Sendable>(_ body: @escaping @Sendable (PostgresTransaction) throws -> T)
        async throws
        -> T
    {
        try await runCancellable { database in try database.transaction(body) }
    }

    /// Inserts models in one transaction off the calling task: all of them, or none; see
    /// the synchronous `insert(contentsOf:)`.
    ///
    /// Declared here, next to the synchronous form that `PostgresDatabase` declares itself:
    /// without it, `try await pg.insert(contentsOf:)` chose that synchronous form (and it
    /// served as ``LiteRecord/ModelDatabase``'s async requirement too), so that a batch ran on
    /// the caller's thread, the main actor's for an app, and ignored the task's cancellation.
    ///
    /// - Parameter models: The models.
    /// - Returns: The models as inserted, with their generated keys set.
    /// - Throws: As the synchronous form; `CancellationError` when the task was cancelled
    ///   first; ``LiteRecord/ResultCode/interrupt`` when it is cancelled while the statement
    ///   runs, and nothing is stored.
    @discardableResult
    public func insert<M: Model>(contentsOf models: [M]) async throws -> [M] {
        try await runCancellable { database in try database.insert(contentsOf: models) }
    }

    /// Runs `body` in a write transaction off the calling task; see ``write(_:)``.
    ///
    /// - Parameter body: The work.
    /// - Returns: What `body` returns.
    /// - Throws: As ``transaction(_:)-6j7fl``.
    @discardableResult
    public func write<T: Sendable>(_ body: @escaping @Sendable (PostgresTransaction) throws -> T) async throws
        -> T
    {
        try await runCancellable { database in try database.transaction(body) }
    }

    /// Runs `body` in a savepoint off the calling task: outside a transaction, a transaction of
    /// its own, as the synchronous form.
    ///
    /// - Parameters:
    ///   - name: The savepoint's name, or `nil`.
    ///   - body: The work.
    /// - Returns: What `body` returns.
    /// - Throws: As ``transaction(_:)-6j7fl``.
    @discardableResult
    public func savepoint<T: Sendable>(
        _ name: String? = nil, _ body: @escaping @Sendable (PostgresTransaction) throws -> T
    ) async throws -> T {
        try await runCancellable { database in try database.savepoint(name, body) }
    }

    /// Runs `body` in a read-only transaction off the calling task; see ``read(_:)``.
    ///
    /// - Parameter body: The reads.
    /// - Returns: What `body` returns.
    /// - Throws: As ``read(_:)``.
    @discardableResult
    public func read<T: Sendable>(_ body: @escaping @Sendable (PostgresTransaction) throws -> T) async throws
        -> T
    {
        try await runCancellable { database in try database.read(body) }
    }

    /// Runs `work` on its own thread; the task's cancellation cancels the statement running on
    /// the connection the work holds.
    func runCancellable<T: Sendable>(_ work: @escaping @Sendable (PostgresDatabase) throws -> T) async throws
        -> T
    {
        try Task.checkCancellation()
        let tracker = CancellationTracker()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let thread = Thread {
                    continuation.resume(
                        with: Result {
                            try CancellationTracker.$current.withValue(tracker) { try work(self) }
                        })
                }
                thread.name = "LiteRecordPostgres"
                thread.start()
            }
        } onCancel: {
            tracker.cancel()
        }
    }
}

/// A query built on a ``PostgresDatabase`` (which is `Sendable`) holds only values and that
/// database, so it may cross to the thread that runs it.
struct UncheckedSendable<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}

/// The connection an async operation is using, so that cancelling its task cancels the
/// statement running there.
final class CancellationTracker: @unchecked Sendable {
    // @unchecked Sendable: both properties are guarded by `lock`.
    @TaskLocal static var current: CancellationTracker?

    private let lock = NSLock()
    private var canceller: PostgresCanceller?
    private var isCancelled = false
    /// Wakes the work while it waits for a pooled connection, so that it sees the cancellation.
    private var wakeUp: (@Sendable () -> Void)?

    /// Notes the connection in use; throws when the task was cancelled already.
    func begin(_ canceller: PostgresCanceller) throws {
        lock.lock()
        defer { lock.unlock() }
        if isCancelled { throw CancellationError() }
        self.canceller = canceller
    }

    /// Whether the task was cancelled (read before each statement of its work).
    var isCancelledNow: Bool {
        lock.lock()
        defer { lock.unlock() }
        return isCancelled
    }

    func end() {
        lock.lock()
        canceller = nil
        lock.unlock()
    }

    /// Runs `body` (a wait for a connection) with `wakeUp` called when the task is cancelled.
    func whileWaiting<T>(wakeUp: @escaping @Sendable () -> Void, _ body: () throws -> T) rethrows -> T {
        lock.lock()
        self.wakeUp = wakeUp
        lock.unlock()
        defer {
            lock.lock()
            self.wakeUp = nil
            lock.unlock()
        }
        return try body()
    }

    func cancel() {
        lock.lock()
        isCancelled = true
        let canceller = canceller
        let wakeUp = wakeUp
        lock.unlock()
        canceller?.cancelRunningStatement()
        wakeUp?()
    }
}
