import LiteRecord

/// How a ``PostgresDatabase`` connects and behaves.
public struct PostgresConfiguration: Sendable {
    /// The most connections the pool opens; operations beyond it wait for one to be returned.
    /// Opened lazily, kept open, one per running operation. Default 4.
    public var maximumConnections = 4
    /// How `Date` values are stored (default `.text`, which keeps a `Date` exactly; see
    /// ``LiteRecord/DateStorage``).
    public var dateStorage: DateStorage = .text
    /// The isolation level of ``PostgresDatabase/write(_:)-6owu`` and
    /// ``PostgresDatabase/transaction(_:)-6j7fl`` (default `.serializable`).
    ///
    /// At `.serializable` (and `.repeatableRead`) a read-modify-write loses no update, as on
    /// SQLite: of two transactions that conflict, PostgreSQL fails one with SQLSTATE 40001 and
    /// LiteRecord runs its closure again. `.readCommitted`, PostgreSQL's own default, is an
    /// explicit choice: there `find`, `n += 1`, `update` in 32 concurrent tasks silently keeps
    /// only some of the increments (the last writer wins), without an error.
    public var isolation: Isolation = .serializable
    /// How many times a transaction runs at most when it keeps failing with a serialization
    /// failure (40001) or a deadlock (40P01), at any isolation level; 1 never runs one again.
    /// Default 16. When every attempt failed, the last failure is thrown
    /// (``LiteRecord/ResultCode/busy``, its `sqlState` kept).
    public var maximumTransactionAttempts = 16

    /// How long an operation waits for a pooled connection when all
    /// ``maximumConnections`` are in use, or `nil` (the default) to wait until one is returned.
    ///
    /// Past it the operation throws ``LiteRecord/ResultCode/busy`` and runs nothing. An async
    /// operation stops waiting as soon as its task is cancelled (it throws `CancellationError`),
    /// timeout or not.
    public var connectionWaitTimeout: Duration?

    /// Creates the default configuration.
    public init() {}

    /// A PostgreSQL transaction isolation level.
    ///
    /// SQLite runs one write transaction at a time, which is serializable. On PostgreSQL
    /// concurrent transactions run side by side: `.serializable` gives the same guarantee, at
    /// the price of transactions that fail with SQLSTATE 40001, which LiteRecord runs again
    /// (up to ``PostgresConfiguration/maximumTransactionAttempts`` times).
    public enum Isolation: String, Sendable {
        /// Each statement sees what was committed before it began (PostgreSQL's default): a
        /// read-modify-write may overwrite a concurrent update without an error.
        case readCommitted = "READ COMMITTED"
        /// Every statement sees the snapshot taken at the transaction's first statement.
        case repeatableRead = "REPEATABLE READ"
        /// As if transactions ran one at a time (LiteRecord's default); a conflict runs the
        /// transaction again.
        case serializable = "SERIALIZABLE"
    }
}
