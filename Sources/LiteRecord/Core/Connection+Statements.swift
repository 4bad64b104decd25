import CSQLite

extension Connection {
    // MARK: - Statements

    /// Prepares a statement that you own: it is not cached and is finalized when released.
    ///
    /// - Parameter sql: Exactly one SQL statement.
    /// - Throws: ``DatabaseError`` with SQLite's message and the SQL when it does not compile,
    ///   or with `.misuse` when `sql` holds more than one statement.
    public func makeStatement(sql: String) throws -> Statement {
        try prepareSingle(sql, persistent: false)
    }

    /// Lends out the cached statement for `sql`, or a fresh one when the cached one is in use
    /// (a nested query of the same SQL); the statement is reset after `body`.
    func withCachedStatement<T>(_ sql: String, _ body: (Statement) throws -> T) throws -> T {
        let statement = try checkOutStatement(forText: sql)
        defer { giveBack(statement) }
        return try body(statement)
    }

    /// The statement for `sql` (see ``withCachedStatement(_:_:)``), marked in use until
    /// ``giveBack(_:)``.
    private func checkOutStatement(forText sql: String) throws -> Statement {
        let statement: Statement
        if authorizer?.isRecordingReads == true {
            // The authorizer only sees statements as they are compiled: record with a fresh one.
            statement = try prepareSingle(sql, persistent: false)
        } else if let cached = statementCache.statement(for: sql) {
            statement = cached.isInUse ? try prepareSingle(sql, persistent: false) : cached
        } else {
            statement = try prepareSingle(sql, persistent: true)
            statementCache.insert(statement, for: sql)
        }
        statement.isInUse = true
        return statement
    }

    /// ``checkOutStatement(forText:)`` for the text of `sql`, found by its literals when it has
    /// them.
    ///
    /// A checkout rather than a closure: a closure over `sql` made the optimizer copy the value
    /// into it and destroy it again, retaining and releasing each of its parts, about a
    /// fifteenth of a fetch of one row by raw SQL.
    // Inlined: see `DatabaseContext.forEachModel(_:sql:allocatingAll:collectingAll:_:)`.
    @inline(__always)
    private func checkOutStatement(for sql: borrowing SQL) throws -> Statement {
        guard authorizer?.isRecordingReads != true, let cached = statementCache.statement(for: sql) else {
            return try checkOutStatement(forText: sql.text)
        }
        let statement = cached.isInUse ? try prepareSingle(sql.text, persistent: false) : cached
        statement.isInUse = true
        return statement
    }

    /// Resets a checked-out statement for its next user.
    private func giveBack(_ statement: Statement) {
        statement.reset()
        statement.forgetArguments()
        statement.isInUse = false
    }

    /// Binds `sql`'s values to `statement` and runs `body`; an error of the statement gets the
    /// arguments, as when the statement keeps them (``Statement/bindWithoutKeeping(_:)``).
    // Inlined: see `DatabaseContext.forEachModel(_:sql:allocatingAll:collectingAll:_:)`.
    @inline(__always)
    private func withBound<T>(_ sql: SQL, to statement: Statement, _ body: (Statement) throws -> T) throws
        -> T
    {
        guard try statement.bindWithoutKeeping(sql) else { return try body(statement) }
        return try naming(sql.arguments, inErrorsOf: statement) { try body(statement) }
    }

    /// Runs `body`, adding `arguments` to the errors of `statement` that come without them.
    ///
    /// Only the statement's own errors: its step (SQLite's error, or the refusal after a
    /// rollback) names its SQL and, the statement not keeping the values it was given, no
    /// arguments.
    func naming<T>(
        _ arguments: @autoclosure () -> StatementArguments, inErrorsOf statement: Statement,
        _ body: () throws -> T
    ) throws -> T {
        do {
            return try body()
        } catch let error as DatabaseError
            where error.arguments == nil && error.backendName == nil && error.sql == statement.sql
        {
            throw DatabaseError(
                resultCode: error.resultCode, message: error.message, sql: error.sql,
                arguments: arguments(),
                sqlState: error.sqlState)
        }
    }

    /// Marks a statement in use for the duration of `body`, then resets it for the next user.
    private func lend<T>(_ statement: Statement, _ body: (Statement) throws -> T) rethrows -> T {
        statement.isInUse = true
        defer {
            statement.reset()
            statement.forgetArguments()
            statement.isInUse = false
        }
        return try body(statement)
    }

    private func prepareSingle(_ sql: String, persistent: Bool) throws -> Statement {
        try Connection.checkNoNUL(in: sql)
        var statementHandle: OpaquePointer?
        var trailingText = false
        let code = sql.withCString { start in
            var tail: UnsafePointer<CChar>?
            let flags = persistent ? UInt32(SQLITE_PREPARE_PERSISTENT) : 0
            let code = sqlite3_prepare_v3(handle, start, -1, flags, &statementHandle, &tail)
            trailingText = tail.map { ScriptScanner.hasStatement(after: $0) } ?? false
            return code
        }
        guard code == SQLITE_OK else {
            throw failure(DatabaseError.fromConnection(handle, code: code, sql: sql))
        }
        guard let statementHandle else {
            throw DatabaseError.misuse("no SQL statement to run", sql: sql)
        }
        let statement = Statement(
            handle: statementHandle, connectionHandle: handle, hooks: hooks,
            transactionState: transactionState,
            sql: sql)
        if trailingText {
            throw DatabaseError.misuse(
                "the SQL holds more than one statement; use execute(sql:) to run a script", sql: sql)
        }
        return statement
    }

    // MARK: - Running SQL

    /// Runs one statement or a script of many, binding the arguments in order across them.
    func execute(_ sql: SQL) throws {
        if let error = sql.conversionError { throw error }
        // One cache lookup: hashing long SQL text is a visible cost on hot paths, and
        // interpolated SQL is found by its literals, without its text.
        guard let cached = statementCache.statement(for: sql) else {
            return try executeScript(sql)
        }
        let statement = cached.isInUse ? try prepareSingle(sql.text, persistent: false) : cached
        try lend(statement) { statement in
            try withBound(sql, to: statement) { try run(countingChanges: $0) }
        }
    }

    /// Runs a statement of ``execute(_:)``, noting in ``lastExecuteChanges`` the rows it
    /// inserted, updated or deleted: `sqlite3_changes` keeps the count of the last such
    /// statement, so a statement that changed nothing (DDL, a `SELECT`) counts 0 by comparing
    /// the total before and after.
    private func run(countingChanges statement: Statement) throws {
        let before = totalChanges
        try statement.run()
        lastExecuteChanges = totalChanges == before ? 0 : changes
    }

    /// Runs one of a model type's fixed statements with `values`, as ``execute(_:)`` would run
    /// `SQL(sql, arguments: StatementArguments(positional: values))`.
    ///
    /// The first run goes through ``execute(_:)`` (same preparation, same errors); the statement
    /// it cached is then kept under `key`, so later rows skip hashing the SQL text.
    func executeModelStatement(_ sql: String, key: ModelStatementKey, values: [DatabaseValue]) throws {
        let arguments = StatementArguments(positional: values)
        guard let entry = modelStatements[key], entry.sql == sql, !entry.statement.isInUse,
            authorizer?.isRecordingReads != true
        else {
            try execute(SQL(sql, arguments: arguments))
            if authorizer?.isRecordingReads != true, let cached = statementCache.statement(for: sql) {
                modelStatements[key] = (sql, cached)
            }
            return
        }
        try lend(entry.statement) { statement in
            try statement.bind(arguments)
            try statement.run()
        }
    }

    /// SQLite reads SQL text as a C string: a NUL character would silently end it early, and
    /// `DELETE FROM t\0 WHERE ...` would run as `DELETE FROM t`.
    private static func checkNoNUL(in sql: String, arguments: StatementArguments? = nil) throws {
        guard sql.utf8.contains(0) else { return }
        throw DatabaseError.misuse(
            "the SQL text holds a NUL character, which would cut it short; bind such values instead",
            sql: sql, arguments: arguments)
    }

    /// Prepares statements one after the other from the text; a single statement is cached so
    /// that the next run of the same SQL skips the parser.
    func executeScript(_ sql: SQL) throws {
        try Connection.checkNoNUL(in: sql.text, arguments: sql.arguments)
        // Before the first statement runs: a NaN for a later one must not leave a partial write.
        try sql.arguments.refuseNaN()
        var consumer = ArgumentConsumer(sql.arguments)
        try sql.text.withCString { start in
            var cursor = start
            var isFirst = true
            while cursor.pointee != 0 {
                var statementHandle: OpaquePointer?
                var tail: UnsafePointer<CChar>?
                let code = sqlite3_prepare_v2(handle, cursor, -1, &statementHandle, &tail)
                guard code == SQLITE_OK else {
                    throw failure(
                        DatabaseError.fromConnection(
                            handle, code: code, sql: ScriptScanner.excerpt(from: cursor, whole: sql.text),
                            arguments: sql.arguments))
                }
                let next = tail ?? cursor
                defer { cursor = next }
                guard let statementHandle else { continue }  // only spaces or comments
                let text = String(cString: sqlite3_sql(statementHandle))
                let statement = Statement(
                    handle: statementHandle, connectionHandle: handle, hooks: hooks,
                    transactionState: transactionState, sql: text)
                let isLast = !ScriptScanner.hasStatement(after: next)
                let isWholeText = isFirst && isLast
                isFirst = false
                if isWholeText {
                    statementCache.insert(statement, for: sql.text)
                    statement.isInUse = true
                }
                defer {
                    statement.reset()
                    statement.forgetArguments()
                    statement.isInUse = false
                }
                try statement.bind(consuming: &consumer)
                // Values left over are an error before the last statement runs, not after it wrote.
                if isLast { try consumer.finish(sql: sql.text) }
                try run(countingChanges: statement)
            }
        }
        try consumer.finish(sql: sql.text)
    }

    /// Notes a failure to prepare, which can also roll a transaction back (out of memory, I/O).
    private func failure(_ error: DatabaseError) -> DatabaseError {
        transactionState.statementFailed(error, connectionHandle: handle)
        return error
    }

    /// Prepares a single statement from the cache, binds it and hands it to `body` to step.
    func withStatement<T>(_ sql: SQL, _ body: (Statement) throws -> T) throws -> T {
        if let error = sql.conversionError { throw error }
        let statement = try checkOutStatement(for: sql)
        defer { giveBack(statement) }
        if isServingRoutedRead, statement.needsWriter { throw RoutedReadNeedsWriter() }
        return try withBound(sql, to: statement, body)
    }
}

/// Which of a model type's statements: see ``Connection/executeModelStatement(_:key:values:)``.
struct ModelStatementKey: Hashable {
    enum Kind: Hashable {
        case insert, update, upsert
    }

    let model: ObjectIdentifier
    let kind: Kind
}
