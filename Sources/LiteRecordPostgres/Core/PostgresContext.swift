import Foundation
import LiteRecord

/// Where PostgreSQL operations run: a ``PostgresDatabase`` (each operation on a pooled
/// connection) or a ``PostgresTransaction`` (inside its closure). The models, queries and raw
/// SQL methods are written once, on this protocol.
public protocol PostgresContext {
    /// Runs `body` with the session operations use; an implementation detail of the backend.
    ///
    /// - Parameter body: The work.
    /// - Returns: What `body` returns.
    /// - Throws: What `body` throws.
    func withSession<T>(_ body: (PostgresSession) throws -> T) throws -> T

    /// Runs `body`, which only reads, with the session operations use; an implementation detail
    /// of the backend.
    ///
    /// - Parameter body: The reads.
    /// - Returns: What `body` returns.
    /// - Throws: What `body` throws.
    func withReadingSession<T>(_ body: (PostgresSession) throws -> T) throws -> T
}

// MARK: - Default implementations

extension PostgresContext {
    /// Runs `body` with ``withSession(_:)``: a context that tells reads apart implements it.
    ///
    /// - Parameter body: The reads.
    /// - Returns: What `body` returns.
    /// - Throws: What `body` throws.
    public func withReadingSession<T>(_ body: (PostgresSession) throws -> T) throws -> T {
        try withSession(body)
    }
}

/// A connection lent to one operation, with what it needs to know about its database; an
/// implementation detail of the backend (it has no public members).
public final class PostgresSession {
    let connection: PostgresConnection
    let database: PostgresDatabase
    /// Tables created or checked inside the open transaction, known to the database on commit.
    var pendingTables: Set<ObjectIdentifier> = []
    var transactionDepth = 0
    var isReadOnly = false
    /// The first serialization failure or deadlock a statement of the open transaction met,
    /// even one the caller caught: the transaction then runs again (see
    /// `PostgresTransactionRetry.swift`).
    var retryableFailure: DatabaseError?

    init(connection: PostgresConnection, database: PostgresDatabase) {
        self.connection = connection
        self.database = database
    }

    var dateStorage: DateStorage { database.configuration.dateStorage }

    /// Runs one statement (see ``PostgresConnection/execute(_:keepingResult:)``).
    @discardableResult
    func execute(_ sql: SQL, keepingResult: Bool = false) throws -> PostgresResult {
        // `PQcancel` stops only a statement the server is running: a cancel that lands between
        // two statements of the work would be lost, and the next one would run to its end. So
        // each statement asks first (transaction control, below, does not: it must still run).
        if let tracker = CancellationTracker.current, tracker.isCancelledNow {
            throw DatabaseError(
                backendName: "PostgreSQL",
                resultCode: .interrupt, message: "the task was cancelled before the statement started",
                sql: sql.text)
        }
        do {
            return try connection.execute(sql, keepingResult: keepingResult)
        } catch {
            noteRetryableFailure(error)
            // A plan cached before a schema change, refused by the server, aborted the
            // transaction: its next run prepares the statement again.
            if connection.lastFailureWasStalePlan, retryableFailure == nil {
                retryableFailure = error as? DatabaseError
            }
            throw error
        }
    }

    /// `COMMIT` and `ROLLBACK`, made once rather than from their literals at every transaction.
    private static let commit: SQL = "COMMIT"
    private static let rollback: SQL = "ROLLBACK"

    /// Runs `body` in a transaction, or in a savepoint when one is already open (named
    /// `savepointName`, quoted, or a generated name).
    func runTransaction<T>(
        begin: String, savepointName: String? = nil, _ body: (PostgresTransaction) throws -> T
    ) throws -> T {
        let isOutermost = transactionDepth == 0
        // Named only for a savepoint: the outermost transaction, every one, has no use for it.
        let savepoint =
            isOutermost ? "" : savepointName.map(SQL.quoteIdentifier) ?? "literecord_\(transactionDepth)"
        if isOutermost {
            connection.beginWithNextStatement(begin)
        } else {
            try execute(SQL(verbatim: "SAVEPOINT \(savepoint)"))
        }
        transactionDepth += 1
        defer { transactionDepth -= 1 }
        let value: T
        do {
            value = try body(PostgresTransaction(session: self))
            if connection.isTransactionAborted {
                throw DatabaseError(
                    backendName: "PostgreSQL",
                    resultCode: .abort,
                    message: "the transaction was aborted by a statement that failed inside it; "
                        + "nothing of it was committed")
            }
        } catch {
            if isOutermost {
                if !connection.dropUnsentBegin() { _ = try? connection.execute(Self.rollback) }
                pendingTables = []
            } else {
                _ = try? connection.execute(SQL(verbatim: "ROLLBACK TO SAVEPOINT \(savepoint)"))
                _ = try? connection.execute(SQL(verbatim: "RELEASE SAVEPOINT \(savepoint)"))
            }
            throw error
        }
        if isOutermost {
            do {
                // A body that sent nothing began nothing: there is nothing to commit.
                if !connection.dropUnsentBegin() { try execute(Self.commit) }
            } catch {
                _ = try? connection.execute(Self.rollback)
                pendingTables = []
                throw error
            }
            database.preparedTables.withLock { $0.formUnion(pendingTables) }
            pendingTables = []
        } else {
            try execute(SQL(verbatim: "RELEASE SAVEPOINT \(savepoint)"))
        }
        return value
    }
}

/// The context a transaction's closure receives: every operation runs inside the transaction.
/// Use it only inside that closure.
public struct PostgresTransaction: PostgresContext {
    let session: PostgresSession

    /// Runs `body` on the transaction's connection.
    ///
    /// - Parameter body: The work.
    /// - Returns: What `body` returns.
    /// - Throws: What `body` throws.
    public func withSession<T>(_ body: (PostgresSession) throws -> T) throws -> T {
        try body(session)
    }

    /// Runs `body` in a savepoint: rolls back to it when `body` throws, keeping the rest of the
    /// transaction.
    ///
    /// - Parameter body: The work.
    /// - Returns: What `body` returns.
    /// - Throws: What `body` throws.
    @discardableResult
    public func transaction<T>(_ body: (PostgresTransaction) throws -> T) throws -> T {
        try session.runTransaction(begin: "", body)
    }

    /// Runs `body` in a savepoint of this transaction: released when it returns, rolled back to
    /// when it throws, keeping the rest of the transaction (as SQLite's `savepoint`).
    ///
    /// Savepoints nest, and an inner one may reuse an outer one's name. A statement that fails
    /// inside aborts the work since the savepoint, even when `body` catches the error (SQLite
    /// would go on): the savepoint then throws ``LiteRecord/ResultCode/abort`` and rolls back to
    /// itself, and the rest of the transaction goes on.
    ///
    /// - Parameters:
    ///   - name: The savepoint's name (any text; it is quoted), or `nil` for a generated one.
    ///   - body: The work; use the transaction it receives.
    /// - Returns: What `body` returns.
    /// - Throws: What `body` throws, ``LiteRecord/ResultCode/abort`` after a failed statement, or
    ///   the ``LiteRecord/DatabaseError`` of `SAVEPOINT` or `RELEASE`.
    @discardableResult
    public func savepoint<T>(_ name: String? = nil, _ body: (PostgresTransaction) throws -> T) throws -> T {
        try session.runTransaction(begin: "", savepointName: name, body)
    }
}

// MARK: - Raw SQL

extension PostgresContext {
    /// Runs SQL; interpolated values are bound as parameters (`$1`, `$2`, ...), never spliced.
    ///
    /// `?` in the text is always a parameter (PostgreSQL's `?` JSON operators are written
    /// `jsonb_exists` and friends here). A script of several statements runs when it has no
    /// arguments.
    ///
    /// - Parameter sql: The SQL: `"UPDATE players SET score = score + \(bonus)"`.
    /// - Returns: The number of rows an `INSERT`, `UPDATE`, `DELETE` or `MERGE` changed, not
    ///   counting rows changed by triggers (as on SQLite); 0 for any other statement (a `SELECT`,
    ///   `CREATE TABLE`). For a script, the count of its last statement.
    /// - Throws: ``LiteRecord/DatabaseError`` with the SQLSTATE mapped onto a ``LiteRecord/ResultCode``.
    @discardableResult
    public func execute(sql: SQL) throws -> Int {
        try withSession { session in
            let result = try session.execute(sql)
            return result.isDataChange ? result.changes : 0
        }
    }

    /// Fetches rows as ``LiteRecord/Row`` values.
    ///
    /// - Parameter sql: The query, with bound interpolation.
    /// - Returns: The rows.
    /// - Throws: ``LiteRecord/DatabaseError``.
    public func fetchRows(sql: SQL) throws -> [Row] {
        try withSession { try $0.execute(sql).lrRows }
    }

    /// Fetches rows decoded with LiteRecord's row decoder: a model (by its columns), any
    /// `Decodable` struct, or a plain value from the first column.
    ///
    /// - Parameters:
    ///   - type: The type to decode.
    ///   - sql: The query, with bound interpolation.
    /// - Returns: The decoded rows.
    /// - Throws: ``LiteRecord/DatabaseError``, ``LiteRecord/RowDecodingError``.
    public func fetchAll<T: Decodable>(_ type: T.Type, sql: SQL) throws -> [T] {
        try withSession { session in
            let rows = try session.execute(sql).lrRows
            let decoder = try session.decoder(for: T.self)
            return try rows.map { try decoder.decode(T.self, from: $0) }
        }
    }

    /// Fetches the first row decoded, or `nil` when there is none.
    ///
    /// - Parameters:
    ///   - type: The type to decode.
    ///   - sql: The query, with bound interpolation.
    /// - Returns: The first decoded row, or `nil`.
    /// - Throws: ``LiteRecord/DatabaseError``, ``LiteRecord/RowDecodingError``.
    public func fetchOne<T: Decodable>(_ type: T.Type, sql: SQL) throws -> T? {
        try fetchAll(T.self, sql: sql).first
    }
}

extension PostgresSession {
    /// The decoder for `T`: a model's own (its column names, date storage), else a plain one.
    func decoder<T>(for type: T.Type) throws -> RowDecoder {
        if let model = T.self as? any Model.Type {
            return try BackendTable(for: model).rowDecoder(dateStorage: dateStorage)
        }
        return RowDecoder(dateStorage: dateStorage)
    }
}
