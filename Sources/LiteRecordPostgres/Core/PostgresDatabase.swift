import Foundation
import LiteRecord

/// A PostgreSQL database, used with the same models, queries and transactions as a SQLite
/// ``LiteRecord/Database``.
///
/// ```swift
/// let pg = try PostgresDatabase(url: "postgresql://app@db.internal/app")
/// var alice = Player(id: nil, name: "Alice", score: 120)
/// try pg.insert(&alice)                      // creates the table on first use; sets alice.id
/// let top = try pg.query(Player.self).where { $0.score > 100 }.order { $0.score.descending }.fetchAll()
/// ```
///
/// Safe to share across threads and tasks: each operation borrows a connection from a pool of
/// ``PostgresConfiguration/maximumConnections`` and returns it when done.
public final class PostgresDatabase: PostgresContext, Sendable {
    /// How the database was configured.
    public let configuration: PostgresConfiguration
    let pool: PostgresPool
    /// The model types whose tables were created or checked (committed) on this database.
    let preparedTables = Locked<Set<ObjectIdentifier>>([])
    /// Each model type's ``LiteRecord/BackendTable``, made once (``backendTable(for:)``).
    let backendTables = Locked<[ObjectIdentifier: BackendTable]>([:])
    /// The text `find` runs for each model type (`findText(of:table:)`).
    let findTexts = Locked<[ObjectIdentifier: String]>([:])
    /// The text of each model type's `INSERT`, with the columns it names.
    let insertTexts = Locked<[PostgresInsertShape: (columns: [String], text: String)]>([:])
    /// The text of each model type's `UPDATE`, with the columns it was built for.
    let updateTexts = Locked<[PostgresUpdateShape: PostgresUpdateText]>([:])
    /// `BEGIN` at the configured isolation level, spelled once rather than at every transaction.
    let transactionBegin: String
    /// Makes conflicting transactions converge when they run again.
    let retryGate: TransactionRetryGate
    /// The listener and triggers that observations share.
    package let observationHub: PostgresObservationHub

    /// Connects to a PostgreSQL server.
    ///
    /// - Parameters:
    ///   - url: A libpq connection string or URL: `postgresql://user@host:5432/db`,
    ///     `postgresql:///db?host=/var/run/postgresql` (a Unix socket directory), or
    ///     `host=... dbname=...`.
    ///   - configuration: The pool size, date storage and isolation level.
    /// - Throws: ``LiteRecord/DatabaseError`` (`.cannotOpen`) when the server cannot be reached
    ///   or refuses the connection; one connection is opened here to check the URL.
    public init(url: String, configuration: PostgresConfiguration = PostgresConfiguration()) throws {
        self.configuration = configuration
        transactionBegin = "BEGIN ISOLATION LEVEL \(configuration.isolation.rawValue)"
        retryGate = TransactionRetryGate(widest: configuration.maximumConnections)
        pool = PostgresPool(
            url: url, maximum: configuration.maximumConnections,
            waitTimeout: configuration.connectionWaitTimeout)
        observationHub = PostgresObservationHub(url: url)
        pool.adopt(try PostgresConnection(url: url))
    }

    /// Runs `body` on a pooled connection outside any transaction (each statement commits); or,
    /// called on a thread that is inside this database's transaction (its body, a `forEach`'s
    /// closure), on that transaction's connection, as part of it.
    ///
    /// A write inside a `read` (or a `forEach` outside a transaction) runs on a connection of
    /// its own, as SQLite's writer runs beside a reader.
    ///
    /// - Parameter body: The work.
    /// - Returns: What `body` returns.
    /// - Throws: What `body` throws, or ``LiteRecord/DatabaseError`` when no connection opens;
    ///   ``LiteRecord/ResultCode/misuse`` when every connection of the pool is held by the
    ///   caller itself, so that none could ever become free.
    public func withSession<T>(_ body: (PostgresSession) throws -> T) throws -> T {
        if let joined = PostgresHeldSession.joinable(on: self, reading: false) { return try body(joined) }
        return try lendingSession(body)
    }

    /// As ``withSession(_:)``, for work that only reads: inside a `read` or a `forEach` it joins
    /// that snapshot too.
    ///
    /// - Parameter body: The reads.
    /// - Returns: What `body` returns.
    /// - Throws: As ``withSession(_:)``.
    public func withReadingSession<T>(_ body: (PostgresSession) throws -> T) throws -> T {
        if let joined = PostgresHeldSession.joinable(on: self, reading: true) { return try body(joined) }
        return try lendingSession(body)
    }

    /// Runs `body` on a pooled connection, recorded as held by this thread so that the calls
    /// `body` makes on this database join it.
    private func lendingSession<T>(_ body: (PostgresSession) throws -> T) throws -> T {
        try pool.withConnection(heldByCaller: PostgresHeldSession.heldCount(of: self)) { connection in
            let session = PostgresSession(connection: connection, database: self)
            return try PostgresHeldSession.holding(session) { try body(session) }
        }
    }

    /// Runs `body` in a transaction: commits when it returns, rolls back when it throws.
    ///
    /// The isolation level is ``PostgresConfiguration/isolation``, SERIALIZABLE unless
    /// configured: as on SQLite, a read-modify-write (`find`, change, `update`) never loses a
    /// concurrent update. PostgreSQL runs concurrent transactions side by side and refuses one
    /// of two that conflict (SQLSTATE 40001; a deadlock is 40P01): the transaction is rolled back
    /// and **`body` runs again**, from its beginning, after a short random wait, up to
    /// ``PostgresConfiguration/maximumTransactionAttempts`` times. So `body` may run more than
    /// once: keep effects outside the database (network calls, messages) out of it. Only the
    /// outermost transaction runs again, never a savepoint alone, never once committed, and
    /// never for another error. A statement that fails inside the transaction aborts it in
    /// PostgreSQL, even when the closure catches the error: then the transaction throws
    /// (``LiteRecord/ResultCode/abort``) and nothing commits (or it runs again, when that
    /// statement met a serialization failure).
    ///
    /// Calls on this database inside `body`, on its thread, are part of the transaction, as on
    /// SQLite: `pg.insert` there runs on the transaction's connection, commits or rolls back with
    /// it, and sees its rows; a nested `transaction` or `savepoint` is a savepoint of it.
    ///
    /// - Parameter body: The work; use the transaction it receives. It may run more than once.
    /// - Returns: What the run of `body` that committed returned.
    /// - Throws: What `body` throws, or the ``LiteRecord/DatabaseError`` of `BEGIN` or `COMMIT`;
    ///   ``LiteRecord/ResultCode/busy`` (SQLSTATE 40001 or 40P01) when every attempt conflicted;
    ///   ``LiteRecord/ResultCode/interrupt`` when an async caller's task is cancelled between
    ///   attempts.
    @discardableResult
    public func transaction<T>(_ body: (PostgresTransaction) throws -> T) throws -> T {
        try runRetryingTransaction(begin: transactionBegin, body)
    }

    /// Runs `body` in a savepoint; outside a transaction, that is a transaction of its own,
    /// committed when `body` returns (as SQLite's `savepoint` outside a transaction).
    ///
    /// Called inside a transaction's body on its thread, it is a savepoint of that transaction,
    /// as ``PostgresTransaction/savepoint(_:_:)``.
    ///
    /// - Parameters:
    ///   - name: The savepoint's name inside a transaction (quoted); outside one, accepted for
    ///     parity with SQLite (the outermost level is a plain transaction). `nil` for a generated one.
    ///   - body: The work; use the transaction it receives.
    /// - Returns: What `body` returns.
    /// - Throws: As ``transaction(_:)-6j7fl``.
    @discardableResult
    public func savepoint<T>(_ name: String? = nil, _ body: (PostgresTransaction) throws -> T) throws -> T {
        if let joined = PostgresHeldSession.joinable(on: self, reading: false), joined.transactionDepth > 0 {
            return try joined.runTransaction(begin: "", savepointName: name, body)
        }
        return try transaction(body)
    }

    /// Runs `body` in a write transaction; the same as ``transaction(_:)-6j7fl``.
    ///
    /// - Parameter body: The work.
    /// - Returns: What `body` returns.
    /// - Throws: As ``transaction(_:)-6j7fl``.
    @discardableResult
    public func write<T>(_ body: (PostgresTransaction) throws -> T) throws -> T {
        try transaction(body)
    }

    /// Runs `body` in a read-only transaction that sees one consistent snapshot
    /// (`REPEATABLE READ READ ONLY`), as a SQLite read does; statements that write fail with
    /// ``LiteRecord/ResultCode/readOnly``. A read never creates a model's table.
    ///
    /// Like ``transaction(_:)-6j7fl``, it runs again when PostgreSQL reports a serialization
    /// failure or a deadlock (rare for a read), so `body` may run more than once.
    ///
    /// - Parameter body: The reads.
    /// - Returns: What `body` returns.
    /// - Throws: What `body` throws.
    @discardableResult
    public func read<T>(_ body: (PostgresTransaction) throws -> T) throws -> T {
        try runRetryingTransaction(
            begin: "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", readOnly: true, body)
    }
}

extension PostgresDatabase {
    /// Inserts models in one transaction: all of them, or none when one fails.
    ///
    /// A batch of 64 models or more is sent in one `COPY`, its generated keys taken first from
    /// the key's sequence: the keys, stored values, errors and triggers are those of one
    /// `INSERT` per model.
    ///
    /// - Parameter models: The models.
    /// - Returns: The models as inserted, with their generated keys set.
    /// - Throws: As ``PostgresContext/insert(_:)-8ikok``; the transaction is rolled back.
    @discardableResult
    public func insert<M: Model, S: Sequence<M>>(contentsOf models: S) throws -> [M] {
        let models = Array(models)
        return try transaction { tx in
            try tx.withSession { session in
                try session.insertRows(models, table: try session.preparedTable(for: M.self))
            }
        }
    }
}
