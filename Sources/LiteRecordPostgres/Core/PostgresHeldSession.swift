import LiteRecord

// Why a call on the database joins the session its caller already holds: on SQLite, a thread
// that holds the writer (inside `transaction`) runs every call on it, so `db.insert` in a
// transaction's body is part of the transaction. On PostgreSQL each call used to borrow another
// pooled connection: the write survived a rollback, a retried body wrote once per attempt, reads
// missed the body's own rows, and a pool of one waited for itself forever. Each session lent on
// a thread is recorded here, task-locally, so that the database's calls made on that thread
// run on it, as SQLite's do.

/// A session lent by a ``PostgresDatabase`` to the current thread, and the ones lent to its
/// callers (outermost last): a task-local chain, so that it is seen by every call the holder
/// makes, and by tasks it starts (on other threads, which cannot join it; see
/// ``joinable(on:reading:)``).
final class PostgresHeldSession: @unchecked Sendable {
    // @unchecked Sendable: a task started inside a body inherits the chain on another thread;
    // `session` is handed out only on `thread`, the one it is lent to, so it is never used from
    // two threads. The other properties are immutable.
    /// The sessions held by the current thread and its callers, innermost first.
    @TaskLocal static var innermost: PostgresHeldSession?

    let database: ObjectIdentifier
    let session: PostgresSession
    let thread: UInt
    let outer: PostgresHeldSession?

    private init(session: PostgresSession, outer: PostgresHeldSession?) {
        database = ObjectIdentifier(session.database)
        self.session = session
        thread = ThreadIdentity.current
        self.outer = outer
    }

    /// Runs `body` with `session` recorded as held by the current thread.
    static func holding<T>(_ session: PostgresSession, _ body: () throws -> T) throws -> T {
        try $innermost.withValue(PostgresHeldSession(session: session, outer: innermost), operation: body)
    }

    /// The session a call on `database` from the current thread runs on instead of a pooled
    /// connection, or `nil` to borrow one.
    ///
    /// The innermost session this thread holds of that database is joined: always by a read
    /// (nested reads share one snapshot, as SQLite's do); by a write unless the session is in a
    /// read-only transaction (a `read`, or a `forEach` outside a transaction), beside which a
    /// write runs on a connection of its own, as SQLite's writer runs beside a reader.
    static func joinable(on database: PostgresDatabase, reading: Bool) -> PostgresSession? {
        guard let held = innermost?.first(of: ObjectIdentifier(database)),
            held.thread == ThreadIdentity.current
        else { return nil }
        let session = held.session
        if !reading && session.isReadOnly && session.transactionDepth > 0 { return nil }
        return session
    }

    /// How many sessions of `database` the current thread and its callers hold: connections of
    /// its pool that none of them will give back while this call waits.
    static func heldCount(of database: PostgresDatabase) -> Int {
        let id = ObjectIdentifier(database)
        var count = 0
        var node = innermost
        while let held = node {
            if held.database == id { count += 1 }
            node = held.outer
        }
        return count
    }

    private func first(of database: ObjectIdentifier) -> PostgresHeldSession? {
        var node: PostgresHeldSession? = self
        while let held = node {
            if held.database == database { return held }
            node = held.outer
        }
        return nil
    }
}
