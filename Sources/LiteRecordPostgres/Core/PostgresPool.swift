import Foundation
import LiteRecord

/// The connections of one ``PostgresDatabase``: opened on demand up to a maximum, each lent to
/// one operation at a time; an operation beyond the maximum waits for a connection, until its
/// task is cancelled or the configured timeout passes.
///
/// A connection is checked before it is lent (one non-blocking read): one the server ended
/// while it was idle is replaced, since nothing was sent on it. A connection handed back after
/// SQL that changed its session state is reset first (``PostgresSessionReset``).
final class PostgresPool: @unchecked Sendable {
    // @unchecked Sendable: every stored property is guarded by `condition`, and a connection is
    // handed to one thread at a time (taken out of `idle` under the lock, put back under it).
    private let url: String
    private let maximum: Int
    private let waitTimeout: Duration?
    private let condition = NSCondition()
    private var idle: [PostgresConnection] = []
    private var openCount = 0

    init(url: String, maximum: Int, waitTimeout: Duration? = nil) {
        self.url = url
        self.maximum = max(1, maximum)
        self.waitTimeout = waitTimeout
    }

    /// Keeps a connection opened before the pool existed (the one that checked the URL).
    func adopt(_ connection: PostgresConnection) {
        condition.lock()
        openCount += 1
        idle.append(connection)
        condition.unlock()
    }

    /// Runs `body` with a connection, returning it to the pool afterwards; a connection left
    /// broken or inside a transaction is closed rather than reused.
    ///
    /// - Parameter heldByCaller: How many of the pool's connections the caller (its thread and
    ///   the calls it runs inside) holds already: when they are all of them, none can become
    ///   free while it waits, and it throws at once; when some are, it waits at most
    ///   ``callerHoldingWait`` (or the configured timeout), since another caller holding the
    ///   rest may be waiting for it.
    func withConnection<T>(heldByCaller: Int = 0, _ body: (PostgresConnection) throws -> T) throws -> T {
        let connection = try take(heldByCaller: heldByCaller)
        defer { giveBack(connection) }
        // An async operation's task may cancel what runs on this connection (PQcancel).
        if let tracker = CancellationTracker.current {
            try tracker.begin(connection.canceller)
            defer { tracker.end() }
            return try body(connection)
        }
        return try body(connection)
    }

    /// The longest a caller that already holds a connection waits for another, when no timeout
    /// is configured.
    static let callerHoldingWait: Duration = .seconds(10)

    private func take(heldByCaller: Int) throws -> PostgresConnection {
        while true {
            guard let connection = try takeIdleOrSlot(heldByCaller: heldByCaller) else { return try open() }
            if connection.isAliveWhenIdle { return connection }
            // Ended by the server while idle: closed here (outside the lock), and its place is
            // taken by another idle connection or a new one.
            condition.lock()
            openCount -= 1
            condition.unlock()
        }
    }

    /// An idle connection, or `nil` after reserving a place for a new one; waits while neither
    /// is available, until the task is cancelled or the timeout passes.
    private func takeIdleOrSlot(heldByCaller: Int) throws -> PostgresConnection? {
        let tracker = CancellationTracker.current
        let timeout =
            heldByCaller > 0
            ? min(waitTimeout ?? Self.callerHoldingWait, Self.callerHoldingWait) : waitTimeout
        let deadline = timeout.map { timeout in
            Date() + Double(timeout.components.seconds) + Double(timeout.components.attoseconds) * 1e-18
        }
        let wait = { () throws -> PostgresConnection? in
            self.condition.lock()
            defer { self.condition.unlock() }
            while true {
                if let connection = self.idle.popLast() { return connection }
                if self.openCount < self.maximum {
                    self.openCount += 1
                    return nil
                }
                if heldByCaller >= self.maximum {
                    throw self.selfDeadlockError(held: heldByCaller)
                }
                if tracker?.isCancelledNow == true {
                    self.condition.signal()  // the wake-up this waiter may have taken goes on
                    throw CancellationError()
                }
                if let deadline {
                    if !self.condition.wait(until: deadline) && Date() >= deadline {
                        self.condition.signal()
                        throw heldByCaller > 0
                            ? self.holdingCallerBusyError(held: heldByCaller) : self.busyError()
                    }
                } else {
                    self.condition.wait()
                }
            }
        }
        guard let tracker else { return try wait() }
        let condition = self.condition
        return try tracker.whileWaiting(
            wakeUp: {
                condition.lock()
                condition.broadcast()
                condition.unlock()
            }, wait)
    }

    private func open() throws -> PostgresConnection {
        do {
            return try PostgresConnection(url: url)
        } catch {
            condition.lock()
            openCount -= 1
            condition.signal()
            condition.unlock()
            throw error
        }
    }

    private func busyError() -> DatabaseError {
        DatabaseError(
            backendName: "PostgreSQL",
            resultCode: .busy,
            message:
                "no PostgreSQL connection became free within \(waitTimeout.map { "\($0)" } ?? "the wait"): "
                + "all \(maximum) connections (PostgresConfiguration.maximumConnections) are in use; "
                + "nothing was run")
    }

    /// Why a call made while its caller holds every connection cannot run.
    private func selfDeadlockError(held: Int) -> DatabaseError {
        DatabaseError(
            backendName: "PostgreSQL",
            resultCode: .misuse,
            message:
                "this call needs a PostgreSQL connection of its own, but the \(held) connection(s) of the pool "
                + "(PostgresConfiguration.maximumConnections = \(maximum)) are all held by the operation it runs "
                + "inside (a transaction or read body, a forEach closure), which cannot give one back while it "
                + "waits: waiting would never end. A write inside a read or a forEach outside a transaction, "
                + "or a call from a task started inside a transaction, needs another connection; run it in a "
                + "transaction (whose body's calls all share its connection), after the read, or raise "
                + "maximumConnections; nothing was run")
    }

    /// Why a call made while its caller holds a connection gave up waiting for another.
    private func holdingCallerBusyError(held: Int) -> DatabaseError {
        let waited = waitTimeout.map { min($0, Self.callerHoldingWait) } ?? Self.callerHoldingWait
        return DatabaseError(
            backendName: "PostgreSQL",
            resultCode: .busy,
            message:
                "no PostgreSQL connection became free within \(waited) for a call made inside an operation "
                + "that holds \(held) of the pool's \(maximum) connections (PostgresConfiguration."
                + "maximumConnections): other callers holding the rest may be waiting for it in turn. Make "
                + "the call through the transaction the body receives, after the operation, or raise "
                + "maximumConnections; nothing was run")
    }

    private func giveBack(_ connection: PostgresConnection) {
        // A reset is one round trip, run before the lock is taken; a connection that cannot be
        // reset is closed rather than lent with another operation's settings.
        let healthy = connection.isHealthy && connection.resetSession()
        condition.lock()
        if healthy {
            idle.append(connection)
        } else {
            openCount -= 1
        }
        condition.signal()
        condition.unlock()
    }
}
