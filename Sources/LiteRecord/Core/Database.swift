import CSQLite
import Foundation

/// An SQLite database: the one thread-safe entry point of LiteRecord.
///
/// Share one `Database` across your whole program; every method can be called from any thread
/// or task. Calls are serialized on the database's connection, and a transaction keeps the
/// connection for its whole closure, so other threads wait for it rather than interleave.
///
/// ```swift
/// let db = try Database(path: "game.sqlite")       // WAL, foreign keys, 5 s busy timeout
/// let memory = try Database(.inMemory)
/// try db.execute(sql: "CREATE TABLE IF NOT EXISTS notes(id INTEGER PRIMARY KEY, body TEXT)")
/// try db.execute(sql: "INSERT INTO notes(body) VALUES (\(text))")
/// ```
///
/// ## Topics
/// - ``init(_:configuration:)``
/// - ``init(path:configuration:)``
/// - ``interrupt()``
/// - ``sqliteVersion``
/// - ``DatabaseContext``
public final class Database: DatabaseContext, @unchecked Sendable {
    // @unchecked Sendable: the only mutable state is `connection`, and every access to it goes
    // through `withConnection`, under `lock`. `interruptHandle` is immutable and
    // `sqlite3_interrupt` is documented as safe to call from any thread.

    /// Where the database lives.
    public let location: Location
    /// The settings it was opened with.
    public let configuration: Configuration
    private let connection: Connection
    private let interruptHandle: OpaquePointer
    /// Recursive, so that a call made from inside a transaction closure on the same thread runs
    /// inside that transaction instead of deadlocking.
    private let lock = NSRecursiveLock()

    /// Opens a database.
    ///
    /// - Parameters:
    ///   - location: `.inMemory`, `.temporary`, `.file(path)` or `.uri(uri)`.
    ///   - configuration: Read-only, busy timeout, journal mode and so on.
    /// - Throws: ``DatabaseError``: `.cannotOpen` for a missing file or directory, `.notADatabase`
    ///   for a file that is not SQLite, with the location in the message.
    public init(_ location: Location, configuration: Configuration = Configuration()) throws {
        self.location = location
        self.configuration = configuration
        self.connection = try Connection(location: location, configuration: configuration)
        self.interruptHandle = connection.handle
    }

    /// Opens (and creates, by default) the database file at `path`.
    ///
    /// - Parameters:
    ///   - path: A file path.
    ///   - configuration: Read-only, busy timeout, journal mode and so on.
    /// - Throws: ``DatabaseError`` as ``init(_:configuration:)``.
    public convenience init(path: String, configuration: Configuration = Configuration()) throws {
        try self.init(.file(path), configuration: configuration)
    }

    /// The version of the SQLite library in use, such as `3.40.1`.
    public static var sqliteVersion: String {
        String(cString: sqlite3_libversion())
    }

    /// Runs `body` with the database's connection, waiting while another thread uses it.
    ///
    /// - Parameter body: Work to run; it must not keep the connection after it returns.
    /// - Returns: What `body` returns.
    /// - Throws: What `body` throws.
    public func withConnection<T>(_ body: (Connection) throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body(connection)
    }

    /// Makes the statement running now (on any thread) stop with ``ResultCode/interrupt``.
    ///
    /// Safe to call from any thread at any time; an open transaction may be rolled back by
    /// SQLite as a result, which the interrupted call reports.
    public func interrupt() {
        sqlite3_interrupt(interruptHandle)
    }

    public var lastInsertRowID: Int64 { withConnection { $0.lastInsertRowID } }
    public var changes: Int { withConnection { $0.changes } }
    public var totalChanges: Int { withConnection { $0.totalChanges } }
    public var isReadOnly: Bool { withConnection { $0.isReadOnly } }
    public var isInsideTransaction: Bool { withConnection { $0.isInsideTransaction } }
}
