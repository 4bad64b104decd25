import Foundation
import LiteRecord

// Why the gate narrows instead of closing and opening: the first gate made new transactions
// wait while one waited to run again, and ran retries one at a time. On one contended row
// (issue 45, item 13: 8 or 32 threads, 8 connections, one counter) that gave 1.7 attempts per
// commit: each time the last retry committed, every transaction that had waited started at once,
// and of each 8 that ran together one committed and seven failed and queued as retries. Every
// change of its state woke all its waiters (`broadcast`, one condition for all, plus a 10 ms
// poll), 16 to 46 context switches per commit on the client against libpq's 4 to 7: three times
// libpq's client CPU per commit, on a machine whose cores the server shares.
//
// So the gate is a limit on how many of the database's transactions run at once, narrowed by
// conflicts and widened by commits (as TCP's window is by losses and acknowledgements): a
// serialization failure halves it (down to one at a time), and each run of
// `commitsBeforeWidening` commits without a failure doubles it, up to the pool's size, where it
// limits nothing. Retries wait ahead of new transactions, each waiter in arrival order, and a
// waiter is woken by its own condition only when it may run.

/// Makes the transactions of one database converge when they conflict: a serialization failure
/// halves how many may run at once (to one at the least), commits without a failure widen it
/// again, retries go first, and no transaction waits longer than ``longestWait``.
final class TransactionRetryGate: @unchecked Sendable {
    // @unchecked Sendable: every stored property is guarded by `lock`; a waiter's own state by
    // its condition.
    /// Whether the current thread or task runs inside a retried transaction's body.
    @TaskLocal static var isInsideBody = false

    /// The longest a transaction waits at the gate: past it, it runs anyway (a long transaction
    /// must not stop every other one).
    static let longestWait: TimeInterval = 1

    /// How many commits in a row, without a serialization failure, double the limit.
    static let commitsBeforeWidening = 8

    /// How an admitted transaction's attempt ended.
    enum Outcome {
        /// Committed: counts towards widening the limit.
        case committed
        /// Failed with a serialization failure or a deadlock: halves the limit.
        case conflicted
        /// Ended otherwise (another error, a cancellation): changes nothing.
        case ended
    }

    private let lock = NSLock()
    /// The limit at which the gate limits nothing: the pool's size.
    private let widest: Int
    /// How many transactions may run at once.
    private var limit: Int
    /// The transactions admitted and not yet left.
    private var running = 0
    /// Commits since the last conflict or widening.
    private var commits = 0
    /// The transactions waiting to run, retries first; each group in arrival order.
    private var waiting: [Waiter] = []
    /// How many of `waiting`, at its front, are retries.
    private var waitingRetries = 0

    /// A gate that limits nothing until a conflict.
    ///
    /// - Parameter widest: The pool's size: a limit this wide lets every transaction in.
    init(widest: Int) {
        self.widest = max(1, widest)
        limit = self.widest
    }

    /// Waits until the transaction may run (at most ``longestWait``), then counts it as running
    /// until ``leave(_:)``.
    ///
    /// - Parameter isRetry: Whether it runs again after a conflict: it then goes before every
    ///   new transaction.
    /// - Throws: ``LiteRecord/ResultCode/interrupt`` when the task is cancelled; then it is not
    ///   counted.
    func enter(isRetry: Bool) throws {
        try Self.checkCancellation()
        lock.lock()
        if waiting.isEmpty && hasRoom {
            running += 1
            lock.unlock()
            return
        }
        let waiter = Waiter()
        if isRetry {
            waiting.insert(waiter, at: waitingRetries)
            waitingRetries += 1
        } else {
            waiting.append(waiter)
        }
        lock.unlock()
        let deadline = Date().addingTimeInterval(Self.longestWait)
        let admitted: Bool
        if let tracker = CancellationTracker.current {
            admitted = tracker.whileWaiting(
                wakeUp: { waiter.interrupt() },
                { waiter.wait(until: deadline, isCancelled: { tracker.isCancelledNow }) })
        } else {
            admitted = waiter.wait(until: deadline, isCancelled: { false })
        }
        let isCancelled = CancellationTracker.current?.isCancelledNow == true
        if admitted {
            if isCancelled {
                leave(.ended)
                throw Self.cancelled
            }
            return
        }
        // Gave up waiting: out of the queue, and (unless cancelled) it runs anyway.
        lock.lock()
        if let index = waiting.firstIndex(where: { $0 === waiter }) {
            waiting.remove(at: index)
            if index < waitingRetries { waitingRetries -= 1 }
        }
        if !isCancelled { running += 1 }
        lock.unlock()
        if isCancelled { throw Self.cancelled }
    }

    /// Ends what ``enter(isRetry:)`` began, adjusts the limit by how the attempt ended, and
    /// wakes the waiters that may now run.
    func leave(_ outcome: Outcome) {
        lock.lock()
        defer { lock.unlock() }
        running -= 1
        switch outcome {
        case .committed:
            if limit < widest {
                commits += 1
                if commits >= Self.commitsBeforeWidening {
                    limit = min(widest, limit * 2)
                    commits = 0
                }
            }
        case .conflicted:
            limit = max(1, limit / 2)
            commits = 0
        case .ended:
            break
        }
        while !waiting.isEmpty && hasRoom {
            let next = waiting.removeFirst()
            if waitingRetries > 0 { waitingRetries -= 1 }
            // A waiter that gave up (and runs anyway, counted by itself) is skipped.
            if next.admit() { running += 1 }
        }
    }

    /// Whether one more transaction may run now (read under `lock`).
    private var hasRoom: Bool {
        limit >= widest || running < limit
    }

    /// Throws when the task of the async operation running on this thread was cancelled.
    ///
    /// - Throws: ``LiteRecord/ResultCode/interrupt``.
    static func checkCancellation() throws {
        if CancellationTracker.current?.isCancelledNow == true { throw cancelled }
    }

    static var cancelled: DatabaseError {
        DatabaseError(
            backendName: "PostgreSQL",
            resultCode: .interrupt,
            message: "the task was cancelled while its transaction waited to run; nothing was committed")
    }
}

/// One transaction waiting at a ``TransactionRetryGate``, woken by its own condition.
private final class Waiter: @unchecked Sendable {
    // @unchecked Sendable: `isAdmitted` and `gaveUp` are guarded by `condition`.
    private let condition = NSCondition()
    private var isAdmitted = false
    private var gaveUp = false

    /// Lets the waiter run: `false` when it gave up waiting already (and runs anyway).
    func admit() -> Bool {
        condition.lock()
        defer { condition.unlock() }
        guard !gaveUp else { return false }
        isAdmitted = true
        condition.signal()
        return true
    }

    /// Wakes the waiter to see its task's cancellation.
    func interrupt() {
        condition.lock()
        condition.signal()
        condition.unlock()
    }

    /// Waits until admitted, `deadline`, or `isCancelled`: whether it was admitted; when not, it
    /// has given up, and a later ``admit()`` is refused.
    func wait(until deadline: Date, isCancelled: () -> Bool) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        while !isAdmitted && !isCancelled() && Date() < deadline {
            _ = condition.wait(until: deadline)
        }
        if isAdmitted { return true }
        gaveUp = true
        return false
    }
}
