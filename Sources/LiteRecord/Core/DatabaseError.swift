import CSQLite

/// An error reported by SQLite or PostgreSQL, or by LiteRecord while talking to them.
///
/// It carries the extended ``ResultCode``, the database's message, the SQL that failed and the
/// arguments bound to it; PostgreSQL's errors also carry their ``sqlState``, and their
/// ``resultCode`` is the SQLite family that SQLSTATE maps onto, so that one `catch` works on both
/// backends. ``description`` leaves the arguments out, because they may be private data that
/// should not reach logs; ``expandedDescription`` includes them.
///
/// ## Topics
/// - ``resultCode``
/// - ``sqlState``
/// - ``message``
/// - ``sql``
/// - ``arguments``
/// - ``expandedDescription``
public struct DatabaseError: Error, Sendable, CustomStringConvertible {
    /// The extended result code (its ``ResultCode/primary`` gives the primary code).
    public let resultCode: ResultCode
    /// The database's message, such as `UNIQUE constraint failed: players.name`.
    ///
    /// PostgreSQL's primary message is followed by the table and column, or the constraint, that
    /// the error names.
    public let message: String
    /// The five-character SQLSTATE of an error PostgreSQL reported (`23505`, `40001`); `nil` for
    /// SQLite's errors and for those LiteRecord raises itself.
    public let sqlState: String?
    /// The SQL being prepared or run, when there was one.
    public let sql: String?
    /// The arguments bound to ``sql``, when there were some.
    public let arguments: StatementArguments?
    /// The database an error LiteRecord raised itself belongs to when it is not SQLite
    /// ("PostgreSQL"): its name takes the place of SQLite's code name in ``description``.
    package let backendName: String?

    /// Creates an error.
    ///
    /// - Parameters:
    ///   - resultCode: The (extended) SQLite result code.
    ///   - message: What went wrong, in words.
    ///   - sql: The SQL involved, if any.
    ///   - arguments: The arguments bound to `sql`, if any.
    ///   - sqlState: The SQLSTATE PostgreSQL reported, if it did.
    public init(
        resultCode: ResultCode, message: String, sql: String? = nil, arguments: StatementArguments? = nil,
        sqlState: String? = nil
    ) {
        self.resultCode = resultCode
        self.message = message
        self.sql = sql
        self.arguments = arguments
        self.sqlState = sqlState
        self.backendName = nil
    }

    /// An error of another backend than SQLite, described without SQLite's code names.
    ///
    /// - Parameters:
    ///   - backendName: The backend, as its users know it: "PostgreSQL".
    ///   - resultCode: The result code family the error belongs to.
    ///   - message: What went wrong, in words.
    ///   - sql: The SQL involved, if any.
    ///   - arguments: The arguments bound to `sql`, if any.
    ///   - sqlState: The SQLSTATE the server reported, if it did.
    package init(
        backendName: String, resultCode: ResultCode, message: String, sql: String? = nil,
        arguments: StatementArguments? = nil, sqlState: String? = nil
    ) {
        self.resultCode = resultCode
        self.message = message
        self.sql = sql
        self.arguments = arguments
        self.sqlState = sqlState
        self.backendName = backendName
    }

    /// The primary result code, such as `.constraint` for `.constraintUnique`.
    public var primaryResultCode: ResultCode { resultCode.primary }

    /// Code, message and SQL (cut when long); never the arguments.
    ///
    /// The code is PostgreSQL's SQLSTATE when there is one (`SQLSTATE 23505: duplicate key ...`),
    /// SQLite's on SQLite (`SQLITE_CONSTRAINT_UNIQUE (2067): UNIQUE constraint failed: ...`), and
    /// the code's family with the backend's name for an error LiteRecord raised on another
    /// backend (`misuse (PostgreSQL): ...`).
    public var description: String {
        var text: String
        if let sqlState {
            text = "SQLSTATE \(sqlState): \(message)"
        } else if let backendName {
            text = "\(resultCode.familyName) (\(backendName)): \(message)"
        } else {
            text = "\(resultCode): \(message)"
        }
        if let sql {
            text += " — while executing `\(SafeDescription.cut(sql, toScalars: SafeDescription.sqlLimit))`"
        }
        return text
    }

    /// Like ``description``, with the bound arguments appended. Keep it out of shared logs.
    public var expandedDescription: String {
        guard let arguments, !arguments.isEmpty else { return description }
        return description + " with arguments \(arguments)"
    }
}

extension DatabaseError {
    /// Builds the error for a failed `sqlite3_*` call on `handle`, reading SQLite's message.
    static func fromConnection(
        _ handle: OpaquePointer?, code: Int32, sql: String? = nil, arguments: StatementArguments? = nil
    ) -> DatabaseError {
        var extended = code
        var message = String(cString: sqlite3_errstr(code))
        if let handle {
            // When extended codes are on, `code` is already extended; the handle's own code
            // refines a primary one in the rare calls that return primary codes only.
            let handleCode = sqlite3_extended_errcode(handle)
            if handleCode & 0xFF == code & 0xFF { extended = handleCode }
            if let cMessage = sqlite3_errmsg(handle), handleCode & 0xFF == code & 0xFF {
                message = String(cString: cMessage)
            }
        }
        // SQLite checks RESTRICT keys with a trigger and says so in the code; a foreign key's
        // refusal is `.constraintForeignKey` whichever way SQLite checked it (as on PostgreSQL).
        if extended == ResultCode.constraintTrigger.rawValue && message == "FOREIGN KEY constraint failed" {
            extended = ResultCode.constraintForeignKey.rawValue
        }
        return DatabaseError(
            resultCode: ResultCode(rawValue: extended), message: message, sql: sql, arguments: arguments)
    }

    /// An API misuse detected by LiteRecord before SQLite saw it (wrong argument count, ...).
    static func misuse(_ message: String, sql: String? = nil, arguments: StatementArguments? = nil)
        -> DatabaseError
    {
        DatabaseError(resultCode: .misuse, message: message, sql: sql, arguments: arguments)
    }
}
