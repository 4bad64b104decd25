import Foundation

/// Reader connections of a WAL database, opened on demand up to a limit and lent to one thread
/// at a time.
///
/// In WAL mode readers do not block each other nor the writer, and each read transaction sees
/// the database as of its start. A thread that asks again while it holds a reader gets the same
/// one, so nested reads share one snapshot and never wait for themselves.
final class ReaderPool: @unchecked Sendable {
    // @unchecked Sendable: every stored property but the immutable ones is read and written
    // under `condition`'s lock. A `Connection` is handed to one thread at a time: it leaves
    // `idle` when lent and comes back when that thread is done with it.
    private let condition = NSCondition()
    private let makeReader: () throws -> Connection
    private let capacity: Int
    private var idle: [Connection] = []
    private var lent: [UInt: Connection] = [:]
    private var openedCount = 0
    private var handles: [OpaquePointer] = []
    private var trace: (@Sendable (String) -> Void)?
    private var traceGeneration = 0

    /// - Parameters:
    ///   - capacity: The most readers open at once (at least 1).
    ///   - makeReader: Opens one reader connection.
    init(capacity: Int, makeReader: @escaping () throws -> Connection) {
        self.capacity = max(1, capacity)
        self.makeReader = makeReader
    }

    /// Runs `body` with a reader: the calling thread's own when it already holds one, otherwise
    /// an idle one, a new one, or the first one given back.
    ///
    /// - Parameter isOutermost: Set to whether this call took the reader (rather than reusing
    ///   the one the thread already holds).
    func withReader<T>(_ body: (Connection, _ isOutermost: Bool) throws -> T) throws -> T {
        let thread = ThreadIdentity.current
        condition.lock()
        if let held = lent[thread] {
            condition.unlock()
            return try body(held, false)
        }
        let reader: Connection
        do {
            reader = try takeReader()
        } catch {
            condition.unlock()
            throw error
        }
        lent[thread] = reader
        let pendingTrace = traceToApply(to: reader)
        condition.unlock()
        defer {
            condition.lock()
            lent[thread] = nil
            idle.append(reader)
            condition.signal()
            condition.unlock()
        }
        if let pendingTrace { reader.hooks.setTrace(pendingTrace.handler) }
        return try body(reader, true)
    }

    /// Whether `handle` is one of the pool's readers.
    func owns(_ handle: OpaquePointer) -> Bool {
        condition.withLock { handles.contains(handle) }
    }

    /// Called with the lock held; returns or throws with it held.
    private func takeReader() throws -> Connection {
        while idle.isEmpty && openedCount >= capacity {
            condition.wait()
        }
        if let reader = idle.popLast() { return reader }
        openedCount += 1
        condition.unlock()
        let opened: Result<Connection, any Error> = Result { try makeReader() }
        condition.lock()
        switch opened {
        case .success(let reader):
            handles.append(reader.handle)
            return reader
        case .failure(let error):
            openedCount -= 1
            condition.signal()
            throw error
        }
    }

    /// The trace handler to install on `reader` when it has not seen the latest one yet.
    private func traceToApply(to reader: Connection) -> TraceUpdate? {
        guard reader.traceGeneration != traceGeneration else { return nil }
        reader.traceGeneration = traceGeneration
        return TraceUpdate(handler: trace)
    }

    private struct TraceUpdate {
        let handler: (@Sendable (String) -> Void)?
    }

    /// Sets the trace handler of every reader; each installs it the next time it is lent.
    func setTrace(_ handler: (@Sendable (String) -> Void)?) {
        condition.withLock {
            trace = handler
            traceGeneration += 1
        }
    }

    /// Interrupts whatever the readers are running.
    func interruptAll(_ interrupt: (OpaquePointer) -> Void) {
        condition.withLock { handles.forEach(interrupt) }
    }

    /// How many reader connections are open.
    var openReaderCount: Int { condition.withLock { openedCount } }
}
