import CSQLite

// MARK: - Transactions

extension Connection {
    /// Runs `body` in a transaction, or in a savepoint when a transaction is already open.
    ///
    /// On a connection that cannot write (read-only, or serving a read), `.immediate` and
    /// `.exclusive` begin a deferred transaction: no write lock can be taken there.
    func performTransaction<T>(_ kind: TransactionKind, _ body: (Connection) throws -> T) throws -> T {
        if isInsideTransaction {
            return try performSavepoint(nil, body)
        }
        let begins = kind != .deferred && (isQueryOnly || isReadOnly) ? .deferred : kind
        return try perform(
            body, begin: SQL("BEGIN \(begins.rawValue) TRANSACTION" as String),
            end: SQL("COMMIT TRANSACTION"),
            undo: { rollbackIfNeeded("ROLLBACK TRANSACTION") })
    }

    /// Runs `body` inside `SAVEPOINT name`: released on return, rolled back to on throw.
    func performSavepoint<T>(_ name: String?, _ body: (Connection) throws -> T) throws -> T {
        savepointCounter += 1
        let quoted = SQL.quoteIdentifier(name ?? "literecord_savepoint_\(savepointCounter)")
        // A RELEASE that commits can fail (busy): `undo` leaves nothing half-done behind.
        return try perform(
            body, begin: SQL("SAVEPOINT \(quoted)" as String),
            end: SQL("RELEASE SAVEPOINT \(quoted)" as String),
            undo: { rollBack(to: quoted) })
    }

    /// Runs `body` between `begin` and `end` (a transaction or a savepoint), running `undo`
    /// when the body throws or `end` fails.
    private func perform<T>(
        _ body: (Connection) throws -> T, begin: SQL, end: SQL, undo: () -> Void
    ) throws -> T {
        try execute(begin)
        transactionState.enterClosure()
        defer { transactionState.leaveClosure() }
        let result: T
        do {
            result = try body(self)
        } catch {
            undo()
            throw error
        }
        // The body may have caught the error after which SQLite rolled back: nothing to commit.
        if let failure = transactionState.closureFailure() {
            forgetPreparedModels()
            throw failure
        }
        do {
            try execute(end)
        } catch {
            undo()
            throw error
        }
        return result
    }

    /// Undoes a savepoint's work and removes it, unless SQLite has already rolled back the
    /// whole transaction (SQLITE_FULL, `ON CONFLICT ROLLBACK`, ...).
    private func rollBack(to quotedSavepoint: String) {
        if isInsideTransaction && !transactionState.refusesStatements {
            try? execute(SQL("ROLLBACK TRANSACTION TO SAVEPOINT \(quotedSavepoint)" as String))
            try? execute(SQL("RELEASE SAVEPOINT \(quotedSavepoint)" as String))
        }
        forgetPreparedModels()
    }

    /// Runs `body` where it cannot write: in a read transaction, so that everything it reads
    /// comes from one snapshot, or inside the transaction already open.
    func performRead<T>(_ body: (Connection) throws -> T) throws -> T {
        // A reader is query-only for good; the writer only for the outermost read closure.
        let switchesQueryOnly = !isQueryOnly
        if switchesQueryOnly { try execute(SQL("PRAGMA query_only = ON")) }
        readDepth += 1
        defer {
            readDepth -= 1
            if switchesQueryOnly {
                // Even inside a transaction SQLite rolled back: the writer must write again.
                transactionState.allowingStatements { try? execute(SQL("PRAGMA query_only = OFF")) }
            }
        }
        if isInsideTransaction { return try body(self) }
        return try performTransaction(.deferred, body)
    }

    /// A rollback may undo a table that a model's first use created: check again next time.
    private func forgetPreparedModels() {
        preparedModels.removeAll()
    }

    /// The error that made us roll back is the one the caller sees; a failing ROLLBACK (there
    /// is nothing to roll back after SQLite aborted the transaction itself) adds nothing.
    private func rollbackIfNeeded(_ statement: String) {
        forgetPreparedModels()
        guard isInsideTransaction else { return }
        try? execute(SQL(statement))
    }
}

/// How a transaction takes its locks.
public enum TransactionKind: String, Sendable {
    /// Takes locks when the first statement needs them (SQLite's default). A transaction that
    /// reads, then writes, fails with `.busy` (`.busySnapshot` in WAL mode) when another
    /// connection wrote in between; use it for transactions that only read.
    case deferred = "DEFERRED"
    /// Takes the write lock at once, waiting up to the busy timeout for it, so the transaction
    /// cannot fail later with `.busy` when it first writes. The default of
    /// ``DatabaseContext/transaction(_:_:)``.
    case immediate = "IMMEDIATE"
    /// Like immediate; in rollback-journal mode also keeps readers out.
    case exclusive = "EXCLUSIVE"
}
