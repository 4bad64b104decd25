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
    /// ``PostgresDatabase/transaction(_:)-6j7fl`` (default `.readCommitted`, PostgreSQL's own default).
    public var isolation: Isolation = .readCommitted

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
    /// the price of transactions that fail with ``LiteRecord/ResultCode/busy`` (SQLSTATE 40001)
    /// and must be run again; LiteRecord does not retry them for you.
    public enum Isolation: String, Sendable {
        /// Each statement sees what was committed before it began (PostgreSQL's default).
        case readCommitted = "READ COMMITTED"
        /// Every statement sees the snapshot taken at the transaction's first statement.
        case repeatableRead = "REPEATABLE READ"
        /// As if transactions ran one at a time; a conflict fails with ``LiteRecord/ResultCode/busy``.
        case serializable = "SERIALIZABLE"
    }
}
