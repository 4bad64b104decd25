/// How a ``Database`` opens and sets up its connection.
///
/// The defaults suit an application: writable, created when missing, a 5-second busy timeout,
/// foreign keys enforced, and for file databases the WAL journal with `synchronous = NORMAL`
/// (durable across application crashes; a power loss may lose the last transactions but never
/// corrupts the file).
public struct Configuration: Sendable {
    /// Opens the database read-only: every write fails with `.readOnly`.
    public var readOnly = false
    /// Creates the file when it does not exist (ignored when ``readOnly``).
    public var createIfMissing = true
    /// How long a statement waits for another connection's lock before failing with `.busy`.
    /// Zero fails at once.
    public var busyTimeout: Duration = .seconds(5)
    /// Whether `FOREIGN KEY` constraints are enforced (`PRAGMA foreign_keys`).
    public var foreignKeys = true
    /// The journal mode for file databases; `nil` keeps the file's current mode.
    ///
    /// The default, `.wal`, is stored in the file: it stays in WAL mode for every program that
    /// opens it later. For a file another program also uses, open it with ``existingFile``.
    public var journalMode: JournalMode? = .wal
    /// The `synchronous` level for file databases; `nil` keeps SQLite's default (`FULL`).
    public var synchronous: SynchronousMode? = .normal
    /// How `Date` values are stored by the row encoder, and how numeric dates are read back.
    /// Text dates are read in every strategy.
    public var dateStorage: DateStorage = .text
    /// How many prepared statements the connection keeps for reuse.
    public var statementCacheCapacity = 512
    /// The most reader connections a WAL file database opens, so that this many reads run at
    /// once beside the writer. Readers are opened when first needed; `0` sends every read to
    /// the single writer connection.
    public var maximumReaderCount = 4

    /// The default configuration.
    public init() {}

    /// For a file another program made and still uses: opens it as that program left it.
    ///
    /// The default configuration switches a file to the WAL journal, and SQLite records that in
    /// the file: the other program then runs in WAL mode too, with `-wal` and `-shm` files
    /// beside the database.
    /// This configuration changes nothing about the file: it keeps the file's journal mode
    /// (``journalMode`` `nil`) and SQLite's default durability for it (``synchronous`` `nil`,
    /// `FULL`, which a rollback journal needs to survive a power loss), and it never creates the
    /// file (``createIfMissing`` `false`: a mistyped path fails with ``ResultCode/cannotOpen``
    /// instead of opening a new, empty database). Everything else is the default: writable,
    /// foreign keys enforced, a 5-second busy timeout.
    ///
    /// Reads stay parallel where the file's mode allows it: a WAL file keeps its pool of reader
    /// connections, a rollback-journal file uses the single connection for everything
    /// (``Database/readsInParallel`` tells which).
    ///
    /// ```swift
    /// let chinook = try Database(path: "Chinook.sqlite", configuration: .existingFile)
    /// ```
    public static var existingFile: Configuration {
        var configuration = Configuration()
        configuration.journalMode = nil
        configuration.synchronous = nil
        configuration.createIfMissing = false
        return configuration
    }

    /// A journal mode (`PRAGMA journal_mode`).
    public enum JournalMode: String, Sendable {
        /// A rollback journal, deleted at the end of each transaction.
        case delete = "DELETE"
        /// A rollback journal, truncated to zero length at the end of each transaction.
        case truncate = "TRUNCATE"
        /// A rollback journal, its header zeroed at the end of each transaction.
        case persist = "PERSIST"
        /// A rollback journal kept in memory: a crash mid-transaction can corrupt the file.
        case memory = "MEMORY"
        /// Write-ahead logging: readers run in parallel with the writer (the default for files).
        case wal = "WAL"
        /// No journal: no rollback, and a crash mid-transaction can corrupt the file.
        case off = "OFF"
    }

    /// A durability level (`PRAGMA synchronous`).
    public enum SynchronousMode: String, Sendable {
        /// No syncs: fastest, and a power loss can corrupt the file.
        case off = "OFF"
        /// Syncs at critical moments; with WAL, a power loss may lose the last commits but never
        /// corrupts (the default for files).
        case normal = "NORMAL"
        /// Syncs at every commit: commits survive a power loss.
        case full = "FULL"
        /// Like `full`, and also syncs the directory of a deleted rollback journal.
        case extra = "EXTRA"
    }

    /// The milliseconds handed to `sqlite3_busy_timeout`, clamped to its `Int32` range.
    var busyTimeoutMilliseconds: Int32 {
        let (seconds, attoseconds) = busyTimeout.components
        let milliseconds = seconds.multipliedReportingOverflow(by: 1000)
        guard !milliseconds.overflow else { return Int32.max }
        let total = milliseconds.partialValue + attoseconds / 1_000_000_000_000_000
        return Int32(clamping: max(0, total))
    }
}
