import CSQLite
import Dispatch

/// One piece of async database work: knows which connection runs it, so that cancelling the
/// task can interrupt the statement in progress, and nothing else.
final class AsyncJob: Sendable {
    private let state = Locked(State())

    private struct State {
        var isCancelled = false
        /// The connection running the job's work right now.
        var runningOn: InterruptHandle?
    }

    /// A connection handle kept only to call `sqlite3_interrupt`, which SQLite documents as
    /// safe from any thread while the connection is open; `run` keeps it open meanwhile.
    private struct InterruptHandle: @unchecked Sendable {
        let pointer: OpaquePointer
    }

    var isCancelled: Bool { state.withLock { $0.isCancelled } }

    /// How many virtual machine instructions run between two checks for cancellation: often
    /// enough to stop within microseconds, rarely enough to cost nothing measurable.
    private static let instructionsBetweenChecks: Int32 = 1_000

    /// Marks the job cancelled and interrupts the statement it is running, if any.
    func cancel() {
        state.withLock { state in
            state.isCancelled = true
            // Under the lock: `run` clears `runningOn` under it before the connection moves on
            // to other work, so this never interrupts somebody else's statement.
            if let handle = state.runningOn { sqlite3_interrupt(handle.pointer) }
        }
    }

    /// Runs `body` on `connection`, interruptible by ``cancel()``; a task cancelled before the
    /// work started throws `CancellationError` without running it.
    func run<T>(on connection: Connection, _ body: (Connection) throws -> T) throws -> T {
        let handle = InterruptHandle(pointer: connection.handle)
        try state.withLock { state in
            if state.isCancelled { throw CancellationError() }
            state.runningOn = handle
        }
        // `sqlite3_interrupt` stops only the statements running when it is called: a cancel that
        // lands between two statements of `body` would be lost, and the next statement (a long
        // query) would run to its end. The progress handler asks again as statements run.
        sqlite3_progress_handler(
            connection.handle, Self.instructionsBetweenChecks,
            { context in
                guard let context else { return 0 }
                return Unmanaged<AsyncJob>.fromOpaque(context).takeUnretainedValue().isCancelled ? 1 : 0
            }, Unmanaged.passUnretained(self).toOpaque())
        defer {
            sqlite3_progress_handler(connection.handle, 0, nil, nil)
            state.withLock { $0.runningOn = nil }
        }
        do {
            return try body(connection)
        } catch let error as DatabaseError where error.resultCode.primary == .interrupt && isCancelled {
            throw CancellationError()
        }
    }
}

extension Database {
    /// Runs `work` on `queue`, off Swift's cooperative thread pool, and resumes the caller with
    /// its result; the task's cancellation reaches the job.
    func performAsync<T: Sendable>(
        on queue: DispatchQueue, _ work: @escaping @Sendable (AsyncJob) throws -> T
    ) async throws -> T {
        try Task.checkCancellation()
        let job = AsyncJob()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                queue.async {
                    continuation.resume(with: Result { try work(job) })
                }
            }
        } onCancel: {
            job.cancel()
        }
    }

    /// Async convenience writes: on the writer, in the order they were asked for.
    func asyncWriting<T: Sendable>(_ body: @escaping @Sendable (Connection) throws -> T) async throws -> T {
        try await performAsync(on: writeQueue) { job in
            try self.withConnection { try job.run(on: $0, body) }
        }
    }

    /// Async convenience reads: on a reader when there are readers, in parallel.
    func asyncReading<T: Sendable>(_ body: @escaping @Sendable (Connection) throws -> T) async throws -> T {
        try await performAsync(on: readQueue) { job in
            try self.withReadingConnection { try job.run(on: $0, body) }
        }
    }
}
