import CSQLite

/// What a connection knows about the transaction its transaction and savepoint closures run
/// in; shared with the connection's statements, so that every statement checks it.
///
/// On some errors SQLite rolls the whole transaction back by itself: a constraint with
/// `ON CONFLICT ROLLBACK`, `RAISE(ROLLBACK)` in a trigger, an interrupted write, a full disk, an
/// I/O error. The connection is then back in autocommit mode, and every later statement of the
/// closure would commit on its own, even though the closure, which may have caught the error,
/// expects all of its work to commit or none. So, once a statement fails while a closure runs
/// and SQLite reports no transaction open any more, every statement is refused until the
/// outermost closure ends, and the closures' `transaction` or `savepoint` throws.
final class TransactionState {
    /// How many transaction and savepoint closures are running on the connection.
    private(set) var closureDepth = 0
    /// The error after which SQLite rolled back the transaction the running closures are in.
    private(set) var rollbackCause: DatabaseError?
    /// Whether statements are refused: read on every step, so kept apart from the cause.
    private(set) var refusesStatements = false

    /// A transaction or savepoint closure starts; its `BEGIN` or `SAVEPOINT` has run.
    func enterClosure() {
        closureDepth += 1
    }

    /// A closure ended; the outermost one ending makes the connection usable again.
    func leaveClosure() {
        closureDepth -= 1
        if closureDepth == 0 {
            rollbackCause = nil
            refusesStatements = false
        }
    }

    /// Called with the error of each statement that failed: notes that SQLite rolled back the
    /// transaction a closure runs in. Only failures pay for the check.
    func statementFailed(_ error: DatabaseError, connectionHandle: OpaquePointer) {
        guard closureDepth > 0, rollbackCause == nil, sqlite3_get_autocommit(connectionHandle) != 0 else {
            return
        }
        rollbackCause = error
        refusesStatements = true
    }

    /// Runs `body` with statements allowed, for LiteRecord's own clean-up (restoring
    /// `PRAGMA query_only`), which must run even after SQLite rolled back.
    func allowingStatements<T>(_ body: () throws -> T) rethrows -> T {
        let refused = refusesStatements
        refusesStatements = false
        defer { refusesStatements = refused }
        return try body()
    }

    /// The error of a statement refused because SQLite rolled back the transaction.
    func refusal(sql: String?, arguments: StatementArguments? = nil) -> DatabaseError {
        DatabaseError(
            resultCode: .abortRollback,
            message: "SQLite rolled back the transaction after an error, so this statement was not "
                + "run and nothing of the transaction will be committed; the error was " + causeDescription,
            sql: sql, arguments: arguments)
    }

    /// The error a transaction or savepoint closure that returned throws after SQLite rolled
    /// back its transaction.
    func closureFailure() -> DatabaseError? {
        guard rollbackCause != nil else { return nil }
        return DatabaseError(
            resultCode: .abortRollback,
            message: "SQLite rolled back the transaction after an error, and nothing of it was "
                + "committed; the error was " + causeDescription)
    }

    /// The error that made SQLite roll back: code, message, and the statement that failed.
    private var causeDescription: String {
        guard let rollbackCause else { return "unknown" }
        var text = "\(rollbackCause.resultCode): \(rollbackCause.message)"
        if let sql = rollbackCause.sql {
            text += ", in `\(SafeDescription.cut(sql, toScalars: SafeDescription.sqlLimit))`"
        }
        return text
    }
}
