import CSQLite
import Dispatch
import Foundation

/// An SQLite database: the one thread-safe entry point of LiteRecord.
///
/// Share one `Database` across your whole program; every method can be called from any thread
/// or task. A file database in WAL mode (the default) has one writer connection and a pool of
/// reader connections: reads run in parallel with each other and with the write in progress,
/// while writes wait their turn. In-memory, temporary and rollback-journal databases use a single
/// connection for everything. See ``read(_:)-46ql0`` and ``write(_:)-20lfu``.
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
/// - ``read(_:)-46ql0``
/// - ``write(_:)-20lfu``
/// - ``observe(_:)->DatabaseObservation<[M]>``
/// - ``interrupt()``
/// - ``sqliteVersion``
/// - ``DatabaseContext``
public final class Database: DatabaseContext, Sendable {
    /// Where the database lives.
    public let location: Location
    /// The settings it was opened with.
    public let configuration: Configuration
    let writer: SerializedConnection
    /// Present for a file database in WAL mode (or opened read-only); `nil` means every read
    /// runs on the writer.
    let readers: ReaderPool?
    /// Model types whose table the writer has created or checked, so a read on a reader can
    /// rely on it.
    private let preparedModels = Locked<Set<ObjectIdentifier>>([])
    /// Runs async writes one after the other, off Swift's cooperative thread pool.
    let writeQueue = DispatchQueue(label: "LiteRecord.Database.write")
    /// Runs async reads, in parallel when there are readers.
    let readQueue = DispatchQueue(label: "LiteRecord.Database.read", attributes: .concurrent)
    let changeCenter: ChangeCenter

    /// Opens a database.
    ///
    /// - Parameters:
    ///   - location: `.inMemory`, `.temporary`, `.file(path)` or `.uri(uri)`.
    ///   - configuration: Read-only, busy timeout, journal mode, reader count and so on.
    /// - Throws: ``DatabaseError``: `.cannotOpen` for a missing file or directory, `.notADatabase`
    ///   for a file that is not SQLite, with the location in the message.
    public init(_ location: Location, configuration: Configuration = Configuration()) throws {
        self.location = location
        self.configuration = configuration
        let writerConnection = try Connection(location: location, configuration: configuration)
        self.writer = SerializedConnection(writerConnection)
        if try Database.canReadInParallel(writerConnection, location: location, configuration: configuration)
        {
            // A reader never creates the file: if it is gone, opening one fails instead of
            // reading a new, empty database.
            var readerConfiguration = configuration
            readerConfiguration.createIfMissing = false
            self.readers = ReaderPool(capacity: configuration.maximumReaderCount) {
                try Connection(location: location, configuration: readerConfiguration, role: .reader)
            }
        } else {
            self.readers = nil
        }
        let files =
            location.isFileBacked
            ? DatabaseFiles(
                databasePath: sqlite3_db_filename(writerConnection.handle, "main").map { String(cString: $0) }
                    ?? "")
            : nil
        self.changeCenter = ChangeCenter(writer: writer, files: files)
    }

    /// Opens (and creates, by default) the database file at `path`.
    ///
    /// The default configuration switches the file to the WAL journal, which SQLite records in
    /// the file for every program that opens it later; for a file another program made and still
    /// uses, pass ``Configuration/existingFile``, which leaves the file's journal mode as it is.
    ///
    /// - Parameters:
    ///   - path: A file path.
    ///   - configuration: Read-only, busy timeout, journal mode and so on.
    /// - Throws: ``DatabaseError`` as ``init(_:configuration:)``.
    public convenience init(path: String, configuration: Configuration = Configuration()) throws {
        try self.init(.file(path), configuration: configuration)
    }

    /// Readers only help where they can read while the writer writes: WAL files. A read-only
    /// database has no writer of ours to wait for, whatever its journal.
    private static func canReadInParallel(
        _ writer: Connection, location: Location, configuration: Configuration
    ) throws -> Bool {
        guard configuration.maximumReaderCount > 0, location.isFileBacked else { return false }
        if writer.isReadOnly { return true }
        let mode = try writer.fetchOne(String.self, sql: SQL("PRAGMA journal_mode"))
        return mode?.lowercased() == "wal"
    }

    /// The version of the SQLite library in use, such as `3.40.1`.
    public static var sqliteVersion: String {
        String(cString: sqlite3_libversion())
    }

    /// Whether reads run on a pool of reader connections, in parallel with each other and with
    /// writes (file databases in WAL mode), rather than on the single connection.
    public var readsInParallel: Bool { readers != nil }

    /// Runs `body` with the writer connection, waiting while another thread uses it.
    ///
    /// Unlike ``write(_:)-20lfu``, no transaction is opened: each statement commits on its own.
    ///
    /// - Parameter body: Work to run; it must not keep the connection after it returns.
    /// - Returns: What `body` returns.
    /// - Throws: What `body` throws.
    public func withConnection<T>(_ body: (Connection) throws -> T) rethrows -> T {
        try writer.withConnection(body)
    }

    /// Makes the statements running now (on any thread, on any of the database's connections)
    /// stop with ``ResultCode/interrupt``.
    ///
    /// Safe to call from any thread at any time; an open transaction may be rolled back by
    /// SQLite as a result, which the interrupted call reports.
    public func interrupt() {
        sqlite3_interrupt(writer.handle)
        readers?.interruptAll { sqlite3_interrupt($0) }
    }

    public var lastInsertRowID: Int64 { withConnection { $0.lastInsertRowID } }
    public var changes: Int { withConnection { $0.changes } }
    public var totalChanges: Int { withConnection { $0.totalChanges } }
    public var isReadOnly: Bool { withConnection { $0.isReadOnly } }
    public var isInsideTransaction: Bool { withConnection { $0.isInsideTransaction } }

    /// Reports the SQL of every statement as it starts running, on the writer and on every
    /// reader (with `?` placeholders: values are not shown). Pass `nil` to stop.
    ///
    /// - Parameter handler: Called on the thread running the statement; must not use the database.
    public func trace(_ handler: (@Sendable (String) -> Void)?) {
        withConnection { $0.hooks.setTrace(handler) }
        readers?.setTrace(handler)
    }
}

// MARK: - Reads and writes

extension Database {
    /// Runs `body` in a transaction on the writer: commits when it returns, rolls back when it
    /// throws.
    ///
    /// Writes from all threads are serialized: a second `write` waits for the first (another
    /// process writing the same file is waited for up to the busy timeout). The transaction is
    /// `IMMEDIATE`, so it never fails half-way with `.busy`. Inside an open write on the same
    /// thread it becomes a savepoint.
    ///
    /// - Parameter body: The work; use the connection it receives.
    /// - Returns: What `body` returns.
    /// - Throws: What `body` throws, or the ``DatabaseError`` of `BEGIN` or `COMMIT`.
    @discardableResult
    public func write<T>(_ body: (Connection) throws -> T) throws -> T {
        try transaction(.immediate, body)
    }

    /// Runs `body` with a connection that only reads, seeing one consistent snapshot of the
    /// database for its whole duration.
    ///
    /// On a WAL file database the read takes a reader connection: it runs in parallel with
    /// other reads and with a write in progress, and does not see what that write has not
    /// committed yet. Called from inside a ``write(_:)-20lfu`` on the same thread, it runs on the
    /// writer and sees the write's own changes. Statements that write fail with
    /// ``ResultCode/readOnly``, and a read never creates a model's table (a write or
    /// ``DatabaseContext/migrate(_:)`` does).
    ///
    /// - Parameter body: The reads; use the connection it receives.
    /// - Returns: What `body` returns.
    /// - Throws: What `body` throws; ``DatabaseError`` when no reader can be opened.
    @discardableResult
    public func read<T>(_ body: (Connection) throws -> T) throws -> T {
        guard let readers, !writer.isHeldByCurrentThread else {
            return try writer.withConnection { try $0.performRead(body) }
        }
        return try readers.withReader { reader, _ in
            // A routed convenience read that calls `read` inside itself must not reroute.
            let wasRouted = reader.isServingRoutedRead
            reader.isServingRoutedRead = false
            defer { reader.isServingRoutedRead = wasRouted }
            return try reader.performRead(body)
        }
    }

    /// Runs one convenience read (a fetch, count, find) where it belongs: on the writer when
    /// this thread is writing, otherwise on a reader; a statement that turns out to write is
    /// run on the writer instead.
    // Inlined: see `DatabaseContext.forEachModel(_:sql:allocatingAll:collectingAll:_:)`.
    @inline(__always)
    func withReadingConnection<T>(_ body: (Connection) throws -> T) throws -> T {
        guard let readers, !writer.isHeldByCurrentThread else {
            return try writer.withConnection(body)
        }
        do {
            return try readers.withReader { reader, _ in
                let wasRouted = reader.isServingRoutedRead
                reader.isServingRoutedRead = true
                defer { reader.isServingRoutedRead = wasRouted }
                return try body(reader)
            }
        } catch is RoutedReadNeedsWriter {
            return try writer.withConnection(body)
        }
    }

    /// As ``withReadingConnection(_:)``, after making sure the model's table exists: readers
    /// never write, so the writer creates or grows it first.
    func withReadingConnection<M: Model, T>(preparing type: M.Type, _ body: (Connection) throws -> T) throws
        -> T
    {
        guard readers != nil, !writer.isHeldByCurrentThread, !isPrepared(M.self) else {
            return try withReadingConnection(body)
        }
        if try writer.withConnectionIfAvailable({ try prepare(M.self, on: $0) }) != nil {
            return try withReadingConnection(body)
        }
        // The writer is busy, perhaps for long: a table that is already there can be read now.
        do {
            return try withReadingConnection { connection in
                guard try connection.tableExists(TableSchemaCache.schema(for: M.self).tableName) else {
                    throw TableNotCreatedYet()
                }
                return try body(connection)
            }
        } catch is TableNotCreatedYet {
            try prepareTable(for: M.self)
            return try withReadingConnection(body)
        }
    }

    /// Makes the writer create or grow the model's table, waiting for the writer if needed.
    func prepareTable<M: Model>(for type: M.Type) throws {
        guard !isPrepared(M.self) else { return }
        try writer.withConnection { try prepare(M.self, on: $0) }
    }

    private func isPrepared<M: Model>(_ type: M.Type) -> Bool {
        preparedModels.withLock { $0.contains(ObjectIdentifier(M.self)) }
    }

    private func prepare<M: Model>(_ type: M.Type, on writer: Connection) throws {
        _ = try writer.table(for: M.self)
        // A table created inside a transaction is only there for good once it commits.
        if !writer.isInsideTransaction {
            preparedModels.withLock { _ = $0.insert(ObjectIdentifier(M.self)) }
        }
    }
}

/// A read of a model's table found no table, while the writer that would create it was busy.
private struct TableNotCreatedYet: Error {}

extension DatabaseContext {
    /// Runs a convenience read: on a ``Database``, routed to a reader when it has readers; on
    /// a ``Connection``, right there.
    // Inlined: see `DatabaseContext.forEachModel(_:sql:allocatingAll:collectingAll:_:)`.
    @inline(__always)
    func withReader<T>(_ body: (Connection) throws -> T) throws -> T {
        if let database { return try database.withReadingConnection(body) }
        return try withConnection(body)
    }

    /// As ``withReader(_:)``, for a read of a model's table.
    func withReader<M: Model, T>(preparing type: M.Type, _ body: (Connection) throws -> T) throws -> T {
        if let database { return try database.withReadingConnection(preparing: M.self, body) }
        return try withConnection(body)
    }

    /// This context, when it is a ``Database``.
    ///
    /// Compared by type rather than cast with `as?`: `Database` is final, so the two are the
    /// same test, and the dynamic cast cost about 80 instructions on every read, as much as
    /// binding the key of a lookup by raw SQL.
    // Inlined: see `DatabaseContext.forEachModel(_:sql:allocatingAll:collectingAll:_:)`.
    @inline(__always)
    private var database: Database? {
        guard Self.self == Database.self else { return nil }
        // The same type, checked above: the reference is taken as it is, not converted.
        return unsafeDowncast(unsafeBitCast(self, to: AnyObject.self), to: Database.self)
    }
}
