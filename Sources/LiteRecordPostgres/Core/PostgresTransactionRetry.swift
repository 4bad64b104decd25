import Foundation
import LiteRecord

// Why transactions run again: on SQLite one write transaction runs at a time, so a
// read-modify-write (`find`, change, `update`) never loses a concurrent update. On PostgreSQL
// transactions run side by side; at READ COMMITTED the second of two such transactions silently
// overwrites the first (32 tasks × 100 increments ended at 584, not 3,200). At SERIALIZABLE,
// PostgreSQL refuses instead, with SQLSTATE 40001; a deadlock is 40P01. Both say "run the whole
// transaction again", and code written for SQLite cannot be expected to, so LiteRecord does:
// the closure runs again, from its beginning, on a fresh transaction.
//
// Why the gate: with 32 tasks on 8 connections all updating one row, each round of 8 concurrent
// attempts commits one and fails seven. Retried blindly, the same seven meet eight new first
// attempts and fail again, and some run out of attempts (a 1-in-8 chance per attempt gives 16
// failures in a row about once in nine calls). So, within one `PostgresDatabase`, a conflict
// narrows how many transactions run at once (down to one at a time), commits widen it again,
// and retries run before new transactions (``TransactionRetryGate``): a retry then meets only
// the attempts already under way, which finish, and it converges.

extension PostgresDatabase {
    /// Runs `body` in an outermost transaction begun with `begin`, again from its beginning
    /// when the transaction fails with a serialization failure or a deadlock, up to
    /// ``PostgresConfiguration/maximumTransactionAttempts`` times.
    ///
    /// - Parameters:
    ///   - begin: The `BEGIN` statement, with its isolation level.
    ///   - readOnly: Whether the transaction is a read (which never creates tables).
    ///   - body: The work; it may run more than once.
    /// - Returns: What the attempt that committed returned.
    /// - Throws: What the last attempt threw (the serialization failure itself when the body hid
    ///   it), or ``LiteRecord/ResultCode/interrupt`` when the task was cancelled while waiting.
    func runRetryingTransaction<T>(
        begin: String, readOnly: Bool = false, _ body: (PostgresTransaction) throws -> T
    ) throws -> T {
        // Inside a transaction of this database on this thread, the new one is a savepoint of
        // it, as on SQLite: it commits or rolls back with it, and only the outermost runs again.
        if let joined = PostgresHeldSession.joinable(on: self, reading: readOnly), joined.transactionDepth > 0
        {
            return try joined.runTransaction(begin: begin, body)
        }
        let maximumAttempts = max(1, configuration.maximumTransactionAttempts)
        // A transaction started from inside another one's body (on another connection) must not
        // wait for the retry that body may belong to; a read conflicts with no write (a
        // READ ONLY snapshot), so it need not wait either.
        let gate = !TransactionRetryGate.isInsideBody && !readOnly ? retryGate : nil
        var attempt = 1
        while true {
            if attempt > 1 { try TransactionRetryPolicy.backOff(afterAttempt: attempt - 1) }
            try gate?.enter(isRetry: attempt > 1)
            let outcome: TransactionAttempt<T>
            do {
                outcome = try attemptTransaction(begin: begin, readOnly: readOnly, body)
            } catch is CancellationError where attempt > 1 {
                gate?.leave(.ended)
                // Cancelled while the next attempt waited for a connection: the call had begun
                // running, so it ends as an interrupted transaction, as in the back-off.
                throw TransactionRetryGate.cancelled
            } catch {
                gate?.leave(.ended)
                throw error
            }
            switch outcome {
            case .committed(let value):
                gate?.leave(.committed)
                return value
            case .failed(let failure):
                gate?.leave(.conflicted)
                guard attempt < maximumAttempts else {
                    throw TransactionRetryPolicy.exhausted(failure, attempts: attempt)
                }
                attempt += 1
            }
        }
    }

    /// Runs LiteRecord's own schema work (a check of the catalog after an advisory lock, then a
    /// change) in a READ COMMITTED transaction, whatever ``PostgresConfiguration/isolation`` says:
    /// each statement then sees what the lock's previous holder committed, where a SERIALIZABLE
    /// snapshot, taken before the lock was granted, would not. Run again on a deadlock.
    ///
    /// - Parameter body: The work.
    /// - Returns: What `body` returns.
    /// - Throws: What `body` throws.
    func schemaTransaction<T>(_ body: (PostgresTransaction) throws -> T) throws -> T {
        try runRetryingTransaction(begin: "BEGIN ISOLATION LEVEL READ COMMITTED", body)
    }

    /// Runs one attempt on a pooled connection: its value once committed, the failure that
    /// calls for another attempt, or (thrown) any other error.
    private func attemptTransaction<T>(
        begin: String, readOnly: Bool, _ body: (PostgresTransaction) throws -> T
    ) throws -> TransactionAttempt<T> {
        var retryable: DatabaseError?
        do {
            let value = try TransactionRetryGate.$isInsideBody.withValue(true) {
                try withSession { session in
                    // A session joined outside a transaction (inside `withSession`) is lent on.
                    let wasReadOnly = session.isReadOnly
                    session.isReadOnly = readOnly
                    defer { session.isReadOnly = wasReadOnly }
                    do {
                        return try session.runTransaction(begin: begin, body)
                    } catch {
                        retryable = TransactionRetryPolicy.retryableFailure(
                            thrown: error, seen: session.retryableFailure)
                        throw error
                    }
                }
            }
            return .committed(value)
        } catch {
            guard let retryable else { throw error }
            return .failed(retryable)
        }
    }
}

/// How one attempt of a transaction ended, short of an error that ends the call.
private enum TransactionAttempt<T> {
    case committed(T)
    /// Rolled back by a failure that running the transaction again may avoid.
    case failed(DatabaseError)
}

/// Which failures run a transaction again, and how long to wait before.
enum TransactionRetryPolicy {
    /// Serialization failure, deadlock detected: PostgreSQL's "run the transaction again".
    static let retryableStates: Set<String> = ["40001", "40P01"]

    /// "Already exists" errors of LiteRecord's own table creation inside a transaction whose
    /// snapshot predates a table (column, constraint, function) another connection created while
    /// this one waited for the schema lock: the next attempt's snapshot sees it.
    static let staleCatalogStates: Set<String> = ["42P07", "42701", "42710", "42723"]

    /// The longest wait between two attempts.
    static let longestBackOff: Duration = .milliseconds(100)

    /// Whether `error` is a serialization failure or a deadlock.
    static func isSerializationFailure(_ error: any Error) -> Bool {
        guard let state = (error as? DatabaseError)?.sqlState else { return false }
        return retryableStates.contains(state)
    }

    /// The failure to retry for, when an attempt threw `error`: the error itself when it is a
    /// serialization failure; otherwise, when the attempt saw one (`seen`: the body caught it,
    /// and the transaction then failed at its next statement or at its end), that one. An error
    /// the body throws of its own type is never retried.
    static func retryableFailure(thrown error: any Error, seen: DatabaseError?) -> DatabaseError? {
        guard let error = error as? DatabaseError else { return nil }
        if let state = error.sqlState, retryableStates.contains(state) { return error }
        return seen
    }

    /// The error thrown once every attempt failed: the failure, its kind and SQLSTATE kept, saying
    /// how many attempts were made.
    static func exhausted(_ failure: DatabaseError, attempts: Int) -> DatabaseError {
        guard attempts > 1 else { return failure }
        return DatabaseError(
            backendName: "PostgreSQL",
            resultCode: failure.resultCode,
            message: failure.message + " (the transaction ran \(attempts) times and failed each time)",
            sql: failure.sql, arguments: failure.arguments, sqlState: failure.sqlState)
    }

    /// The longest wait after the `attempt`th attempt: 1 ms, doubling, at most 100 ms.
    static func backOffLimit(afterAttempt attempt: Int) -> Duration {
        let doubling = min(max(attempt - 1, 0), 16)
        return min(.milliseconds(1 << doubling), longestBackOff)
    }

    /// Sleeps a random time up to ``backOffLimit(afterAttempt:)`` (so that attempts that failed
    /// together do not run again together), waking to check the task's cancellation.
    ///
    /// - Throws: ``LiteRecord/ResultCode/interrupt`` when the task is cancelled.
    static func backOff(afterAttempt attempt: Int) throws {
        let limit = backOffLimit(afterAttempt: attempt)
        let (seconds, attoseconds) = limit.components
        let limitSeconds = Double(seconds) + Double(attoseconds) / 1e18
        let deadline = Date().addingTimeInterval(Double.random(in: 0...limitSeconds))
        try TransactionRetryGate.checkCancellation()
        while Date() < deadline {
            Thread.sleep(forTimeInterval: min(0.005, max(0, deadline.timeIntervalSinceNow)))
            try TransactionRetryGate.checkCancellation()
        }
    }
}

extension PostgresSession {
    /// Remembers a serialization failure or deadlock, which a body may catch and hide.
    func noteRetryableFailure(_ error: any Error) {
        guard retryableFailure == nil, TransactionRetryPolicy.isSerializationFailure(error) else { return }
        retryableFailure = error as? DatabaseError
    }

    /// Runs LiteRecord's creation of a table inside the caller's transaction, remembering an
    /// "already exists" failure: at REPEATABLE READ and SERIALIZABLE the transaction's snapshot
    /// may predate a table another connection created meanwhile, and the next attempt sees it.
    func creatingTable(_ body: () throws -> Void) throws {
        do {
            try body()
        } catch let error as DatabaseError {
            if retryableFailure == nil, let state = error.sqlState,
                TransactionRetryPolicy.staleCatalogStates.contains(state)
            {
                retryableFailure = error
            }
            throw error
        }
    }
}
