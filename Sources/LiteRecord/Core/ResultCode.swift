import CSQLite

/// An SQLite result code, primary or extended.
///
/// Extended codes refine a primary code: `.constraintUnique`, `.constraintNotNull` and
/// `.constraintForeignKey` are all `.constraint` at heart. Compare with `==` for an exact match,
/// or use ``primary`` to group. In a `catch` clause a code matches an error directly:
///
/// ```swift
/// do { try db.execute(sql: "INSERT INTO players(name) VALUES (\(name))") }
/// catch ResultCode.constraintUnique { /* the name is taken */ }
/// catch ResultCode.constraint { /* any other constraint */ }
/// ```
///
/// A primary pattern (`.constraint`) matches every extended code derived from it; an extended
/// pattern (`.constraintUnique`) matches only itself.
public struct ResultCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The integer SQLite returned.
    public let rawValue: Int32

    /// Wraps an SQLite result code.
    public init(rawValue: Int32) {
        self.rawValue = rawValue
    }

    /// The primary code: the low 8 bits of an extended code.
    public var primary: ResultCode {
        ResultCode(rawValue: rawValue & 0xFF)
    }

    /// Whether this is a primary code (has no extended refinement).
    public var isPrimary: Bool {
        rawValue == rawValue & 0xFF
    }

    /// SQLite's English description of the code, such as "constraint failed".
    public var explanation: String {
        String(cString: sqlite3_errstr(rawValue))
    }

    /// The code's family in words, without SQLite's prefix: `constraint unique`, `misuse`; its
    /// number when it has no name.
    package var familyName: String {
        guard let name = ResultCode.names[rawValue] else { return "code \(rawValue)" }
        return name.replacingOccurrences(of: "SQLITE_", with: "").replacingOccurrences(of: "_", with: " ")
            .lowercased()
    }

    /// The code's C name when known, else its number: `SQLITE_CONSTRAINT_UNIQUE (2067)`.
    public var description: String {
        if let name = ResultCode.names[rawValue] {
            return "\(name) (\(rawValue))"
        }
        return "SQLite code \(rawValue)"
    }

    /// Matches an error against a result code in a `catch` pattern.
    ///
    /// - Parameters:
    ///   - pattern: A primary code matches any of its extended codes; an extended code matches
    ///     only itself.
    ///   - error: Any error; only a ``DatabaseError`` can match.
    public static func ~= (pattern: ResultCode, error: any Error) -> Bool {
        guard let error = error as? DatabaseError else { return false }
        return pattern ~= error.resultCode
    }

    /// Matches a result code against another, with the same primary/extended rule as errors.
    public static func ~= (pattern: ResultCode, code: ResultCode) -> Bool {
        pattern.isPrimary ? pattern == code.primary : pattern == code
    }
}

// MARK: - Named codes

extension ResultCode {
    /// Success (`SQLITE_OK`).
    public static let ok = ResultCode(rawValue: SQLITE_OK)
    /// A generic error, such as an SQL syntax error or a missing table (`SQLITE_ERROR`).
    public static let error = ResultCode(rawValue: SQLITE_ERROR)
    /// An internal malfunction of SQLite (`SQLITE_INTERNAL`).
    public static let `internal` = ResultCode(rawValue: SQLITE_INTERNAL)
    /// The requested access mode for a new database cannot be provided (`SQLITE_PERM`).
    public static let permission = ResultCode(rawValue: SQLITE_PERM)
    /// An operation was aborted, for instance by a rollback (`SQLITE_ABORT`).
    public static let abort = ResultCode(rawValue: SQLITE_ABORT)
    /// Another connection holds a lock the statement needs, past the busy timeout
    /// (`SQLITE_BUSY`).
    public static let busy = ResultCode(rawValue: SQLITE_BUSY)
    /// A conflict within the same connection, or with a connection sharing its cache
    /// (`SQLITE_LOCKED`).
    public static let locked = ResultCode(rawValue: SQLITE_LOCKED)
    /// A memory allocation failed (`SQLITE_NOMEM`).
    public static let noMemory = ResultCode(rawValue: SQLITE_NOMEM)
    /// A write to a database opened read-only, or one that cannot be written
    /// (`SQLITE_READONLY`).
    public static let readOnly = ResultCode(rawValue: SQLITE_READONLY)
    /// The statement was interrupted by `Database.interrupt()` or by task cancellation
    /// (`SQLITE_INTERRUPT`).
    public static let interrupt = ResultCode(rawValue: SQLITE_INTERRUPT)
    /// The operating system reported an I/O error (`SQLITE_IOERR`).
    public static let ioError = ResultCode(rawValue: SQLITE_IOERR)
    /// The database file is damaged (`SQLITE_CORRUPT`).
    public static let corrupt = ResultCode(rawValue: SQLITE_CORRUPT)
    /// An unknown opcode or file control (`SQLITE_NOTFOUND`).
    public static let notFound = ResultCode(rawValue: SQLITE_NOTFOUND)
    /// The disk is full, or the database reached its maximum page count (`SQLITE_FULL`).
    public static let full = ResultCode(rawValue: SQLITE_FULL)
    /// The database file cannot be opened (`SQLITE_CANTOPEN`).
    public static let cannotOpen = ResultCode(rawValue: SQLITE_CANTOPEN)
    /// A problem with SQLite's file locking protocol (`SQLITE_PROTOCOL`).
    public static let `protocol` = ResultCode(rawValue: SQLITE_PROTOCOL)
    /// The schema changed while a statement was prepared (`SQLITE_SCHEMA`).
    public static let schema = ResultCode(rawValue: SQLITE_SCHEMA)
    /// A string or blob exceeds SQLite's size limit (`SQLITE_TOOBIG`).
    public static let tooBig = ResultCode(rawValue: SQLITE_TOOBIG)
    /// A constraint failed; matches every `constraint...` extended code
    /// (`SQLITE_CONSTRAINT`).
    public static let constraint = ResultCode(rawValue: SQLITE_CONSTRAINT)
    /// A value of the wrong type, such as a non-integer rowid (`SQLITE_MISMATCH`).
    public static let mismatch = ResultCode(rawValue: SQLITE_MISMATCH)
    /// The API was used wrongly, such as a wrong number of arguments for a statement's
    /// parameters (`SQLITE_MISUSE`).
    public static let misuse = ResultCode(rawValue: SQLITE_MISUSE)
    /// A parameter index out of range (`SQLITE_RANGE`).
    public static let range = ResultCode(rawValue: SQLITE_RANGE)
    /// The file is not an SQLite database (`SQLITE_NOTADB`).
    public static let notADatabase = ResultCode(rawValue: SQLITE_NOTADB)

    /// The transaction was rolled back: SQLite's code for statements a `ROLLBACK` cut short,
    /// and LiteRecord's for statements refused inside a transaction that SQLite itself rolled
    /// back after an error (see ``DatabaseContext/transaction(_:_:)``).
    public static let abortRollback = ResultCode(rawValue: SQLITE_ABORT | (2 << 8))
    /// A deferred transaction that read cannot write: another connection wrote since
    /// its snapshot (`SQLITE_BUSY_SNAPSHOT`).
    public static let busySnapshot = ResultCode(rawValue: SQLITE_BUSY | (2 << 8))
    /// A lock could not be taken in time during WAL recovery (`SQLITE_BUSY_TIMEOUT`).
    public static let busyTimeout = ResultCode(rawValue: SQLITE_BUSY | (3 << 8))
    /// A WAL database needs recovery that a read-only connection cannot run
    /// (`SQLITE_READONLY_RECOVERY`).
    public static let readOnlyRecovery = ResultCode(rawValue: SQLITE_READONLY | (1 << 8))
    /// A read-only connection cannot take the WAL's shared memory lock
    /// (`SQLITE_READONLY_CANTLOCK`).
    public static let readOnlyCannotLock = ResultCode(rawValue: SQLITE_READONLY | (2 << 8))
    /// A hot journal needs a rollback that a read-only connection cannot run
    /// (`SQLITE_READONLY_ROLLBACK`).
    public static let readOnlyRollback = ResultCode(rawValue: SQLITE_READONLY | (3 << 8))
    /// The database file was moved or deleted while open, in a rollback-journal mode
    /// (`SQLITE_READONLY_DBMOVED`).
    public static let readOnlyDatabaseMoved = ResultCode(rawValue: SQLITE_READONLY | (4 << 8))
    /// The WAL index (`-shm`) cannot be set up: the database is opened read-only and no
    /// connection with write access has it open.
    public static let readOnlyCannotInit = ResultCode(rawValue: SQLITE_READONLY | (5 << 8))
    /// The database's directory is read-only, so its journal or WAL files cannot be created.
    public static let readOnlyDirectory = ResultCode(rawValue: SQLITE_READONLY | (6 << 8))
    /// A `CHECK` constraint failed (`SQLITE_CONSTRAINT_CHECK`).
    public static let constraintCheck = ResultCode(rawValue: SQLITE_CONSTRAINT | (1 << 8))
    /// A foreign key constraint failed (`SQLITE_CONSTRAINT_FOREIGNKEY`).
    public static let constraintForeignKey = ResultCode(rawValue: SQLITE_CONSTRAINT | (3 << 8))
    /// A `NOT NULL` constraint failed (`SQLITE_CONSTRAINT_NOTNULL`).
    public static let constraintNotNull = ResultCode(rawValue: SQLITE_CONSTRAINT | (5 << 8))
    /// A `PRIMARY KEY` constraint failed (`SQLITE_CONSTRAINT_PRIMARYKEY`).
    public static let constraintPrimaryKey = ResultCode(rawValue: SQLITE_CONSTRAINT | (6 << 8))
    /// A trigger raised an error with `RAISE(ABORT|FAIL|ROLLBACK, ...)`
    /// (`SQLITE_CONSTRAINT_TRIGGER`).
    public static let constraintTrigger = ResultCode(rawValue: SQLITE_CONSTRAINT | (7 << 8))
    /// A `UNIQUE` constraint failed (`SQLITE_CONSTRAINT_UNIQUE`).
    public static let constraintUnique = ResultCode(rawValue: SQLITE_CONSTRAINT | (8 << 8))
    /// A rowid is not unique (`SQLITE_CONSTRAINT_ROWID`).
    public static let constraintRowID = ResultCode(rawValue: SQLITE_CONSTRAINT | (10 << 8))

    fileprivate static let names: [Int32: String] = [
        SQLITE_OK: "SQLITE_OK", SQLITE_ERROR: "SQLITE_ERROR", SQLITE_INTERNAL: "SQLITE_INTERNAL",
        SQLITE_PERM: "SQLITE_PERM", SQLITE_ABORT: "SQLITE_ABORT", SQLITE_BUSY: "SQLITE_BUSY",
        SQLITE_LOCKED: "SQLITE_LOCKED", SQLITE_NOMEM: "SQLITE_NOMEM",
        SQLITE_READONLY: "SQLITE_READONLY", SQLITE_INTERRUPT: "SQLITE_INTERRUPT",
        SQLITE_IOERR: "SQLITE_IOERR", SQLITE_CORRUPT: "SQLITE_CORRUPT",
        SQLITE_NOTFOUND: "SQLITE_NOTFOUND", SQLITE_FULL: "SQLITE_FULL",
        SQLITE_CANTOPEN: "SQLITE_CANTOPEN", SQLITE_PROTOCOL: "SQLITE_PROTOCOL",
        SQLITE_SCHEMA: "SQLITE_SCHEMA", SQLITE_TOOBIG: "SQLITE_TOOBIG",
        SQLITE_CONSTRAINT: "SQLITE_CONSTRAINT", SQLITE_MISMATCH: "SQLITE_MISMATCH",
        SQLITE_MISUSE: "SQLITE_MISUSE", SQLITE_RANGE: "SQLITE_RANGE",
        SQLITE_NOTADB: "SQLITE_NOTADB",
        SQLITE_ABORT | (2 << 8): "SQLITE_ABORT_ROLLBACK",
        SQLITE_BUSY | (2 << 8): "SQLITE_BUSY_SNAPSHOT", SQLITE_BUSY | (3 << 8): "SQLITE_BUSY_TIMEOUT",
        SQLITE_READONLY | (1 << 8): "SQLITE_READONLY_RECOVERY",
        SQLITE_READONLY | (2 << 8): "SQLITE_READONLY_CANTLOCK",
        SQLITE_READONLY | (3 << 8): "SQLITE_READONLY_ROLLBACK",
        SQLITE_READONLY | (4 << 8): "SQLITE_READONLY_DBMOVED",
        SQLITE_READONLY | (5 << 8): "SQLITE_READONLY_CANTINIT",
        SQLITE_READONLY | (6 << 8): "SQLITE_READONLY_DIRECTORY",
        SQLITE_CONSTRAINT | (1 << 8): "SQLITE_CONSTRAINT_CHECK",
        SQLITE_CONSTRAINT | (3 << 8): "SQLITE_CONSTRAINT_FOREIGNKEY",
        SQLITE_CONSTRAINT | (5 << 8): "SQLITE_CONSTRAINT_NOTNULL",
        SQLITE_CONSTRAINT | (6 << 8): "SQLITE_CONSTRAINT_PRIMARYKEY",
        SQLITE_CONSTRAINT | (7 << 8): "SQLITE_CONSTRAINT_TRIGGER",
        SQLITE_CONSTRAINT | (8 << 8): "SQLITE_CONSTRAINT_UNIQUE",
        SQLITE_CONSTRAINT | (10 << 8): "SQLITE_CONSTRAINT_ROWID",
    ]
}
