import CLibPQ
import Foundation
import LiteRecord

/// One connection to a PostgreSQL server (a libpq `PGconn`), used by one thread at a time.
///
/// You never create or call one: ``PostgresDatabase`` keeps them in its pool and lends one to
/// each operation. It is public only because ``PostgresContext`` names it.
public final class PostgresConnection {
    let handle: OpaquePointer
    /// What `PQcancel` needs to stop the statement running on this connection, from any thread.
    let canceller: PostgresCanceller
    /// The statements run while an observation records what its fetch reads; `nil` otherwise.
    var statementLog: [SQL]?
    /// While ``statementLog`` is on: the models whose tables a read found missing (and, in a
    /// session that creates nothing, read as empty), for an observer to create them.
    var missingModelTables: [any Model.Type] = []
    /// What the statements run since the connection was opened or reset may have changed in
    /// its session (``PostgresSessionReset``).
    private(set) var sessionChange = PostgresSessionChange.none
    /// The `BEGIN` of a transaction that waits to be sent with its first statement
    /// (``beginWithNextStatement(_:)``).
    var pendingBegin: String?
    /// Set by the notice receiver when the server sent a FATAL error outside any statement.
    private let fatal = PostgresFatalFlag()

    init(url: String) throws {
        guard let handle = PQconnectdb(url) else {
            throw DatabaseError(
                backendName: "PostgreSQL", resultCode: .noMemory,
                message: "libpq could not allocate a connection")
        }
        guard PQstatus(handle) == CONNECTION_OK else {
            let message = String(cString: PQerrorMessage(handle)).trimmingCharacters(
                in: .whitespacesAndNewlines)
            PQfinish(handle)
            throw DatabaseError(
                backendName: "PostgreSQL",
                resultCode: .cannotOpen, message: "cannot connect to PostgreSQL: \(message)")
        }
        self.handle = handle
        self.canceller = PostgresCanceller(connection: handle)
        // libpq's default prints the server's notices and warnings (a `RAISE NOTICE`, a
        // `plainto_tsquery` that found no word) on the process's standard error: a library has
        // no business writing there, so they are dropped, as SQLite's log is by default. The
        // receiver keeps one thing: a FATAL error that arrives while no statement runs (the
        // server ending an idle connection), which libpq hands to it as a notice.
        PQsetNoticeReceiver(
            handle, PostgresConnection.receiveNotice, Unmanaged.passUnretained(fatal).toOpaque())
        _ = PQsetClientEncoding(handle, "UTF8")
        _ = try execute(SQL(verbatim: PostgresSessionReset.connectionSettings))
        sessionChange = .none
    }

    deinit {
        PQfinish(handle)
    }

    /// Whether the connection is still usable (a pool drops one that is not).
    var isHealthy: Bool {
        PQstatus(handle) == CONNECTION_OK && PQtransactionStatus(handle) == PQTRANS_IDLE
    }

    /// Whether an idle connection can take a statement: reads what the server sent since the
    /// last one, without waiting. A connection the server ended while it sat in the pool (a
    /// restart, `pg_terminate_backend`, an idle timeout) has sent a FATAL error and closed its
    /// socket; nothing was sent on it, so the pool replaces it and the operation runs.
    var isAliveWhenIdle: Bool {
        guard PQstatus(handle) == CONNECTION_OK, PQconsumeInput(handle) == 1 else { return false }
        _ = PQisBusy(handle)  // parses what arrived: an unsolicited error goes to the receiver
        while let notification = PQnotifies(handle) { PQfreemem(notification) }
        return PQstatus(handle) == CONNECTION_OK && !fatal.isSet
    }

    /// Undoes what statements changed in the session, before the pool lends the connection to
    /// another operation; `false` when the reset failed (the pool then closes it).
    func resetSession() -> Bool {
        guard sessionChange != .none else { return true }
        guard PostgresSessionReset.reset(handle, undoing: sessionChange) else { return false }
        if sessionChange == .everything { statements.forgetPreparedStatements() }
        sessionChange = .none
        return true
    }

    /// Whether the open transaction was aborted by a statement that failed in it.
    var isTransactionAborted: Bool {
        PQtransactionStatus(handle) == PQTRANS_INERROR
    }

    /// Runs one statement with its arguments bound as parameters (never spliced into the text)
    /// and returns its rows.
    ///
    /// SQL with several statements and no arguments (a script) runs through the simple-query
    /// protocol. A single `SELECT`, `INSERT`, `UPDATE`, `DELETE` (…) runs through `PQexecParams`
    /// the first time, and through a statement prepared on the connection from its second time
    /// on (``PostgresStatementCache``); other statements through `PQexecParams`, or `PQexec`
    /// without arguments.
    ///
    /// - Parameters:
    ///   - sql: The SQL, with `?` parameters.
    ///   - keepingResult: Whether the rows stay in the `PGresult`, to be decoded straight from
    ///     it (``PostgresResult/raw``), rather than copied out.
    /// - Returns: The rows and the number of rows changed.
    /// - Throws: ``DatabaseError`` with the SQLSTATE mapped onto a ``ResultCode``.
    func execute(_ sql: SQL, keepingResult: Bool = false) throws -> PostgresResult {
        guard sql.arguments.named.isEmpty else {
            throw DatabaseError(
                backendName: "PostgreSQL",
                resultCode: .misuse, message: "named parameters (:name) are not supported on PostgreSQL",
                sql: sql.text)
        }
        statementLog?.append(sql)
        let statement = statements.statement(for: sql.text)
        let numbered = statement.numbered
        let values = sql.arguments.positional
        guard numbered.count == values.count else {
            throw DatabaseError(
                backendName: "PostgreSQL",
                resultCode: .misuse,
                message: "the SQL has \(numbered.count) parameters but \(values.count) arguments were given",
                sql: sql.text, arguments: sql.arguments)
        }
        sessionChange = max(sessionChange, numbered.sessionChange)
        statement.uses += 1
        defer {
            // The server has dropped them: a prepared name used now would not exist.
            if numbered.dropsPreparedStatements { statements.forgetPreparedStatements() }
        }
        var result = try run(statement, values, sql: sql, keepingResult: keepingResult)
        // One column index per statement, not one per result (a find runs for one row).
        if let raw = result.raw {
            raw.statement = statement
        } else if !result.columnNames.isEmpty {
            result.columns = statement.columns(named: result.columnNames)
        }
        return result
    }

    /// Runs a statement: prepared from its second use, else through `PQexecParams` (or
    /// `PQexec`, without arguments).
    private func run(_ statement: PostgresStatement, _ values: [DatabaseValue], sql: SQL, keepingResult: Bool)
        throws -> PostgresResult
    {
        if statement.numbered.isPreparable, statement.preparedName != nil || statement.uses >= 2,
            PQtransactionStatus(handle) != PQTRANS_INERROR
        {
            let parameters = try PostgresParameters(values, sql: sql)
            if statement.preparedName == nil || parameters.hasTypes(statement.preparedTypes) {
                return try executePrepared(statement, parameters, sql: sql, keepingResult: keepingResult)
            }
        }
        try sendPendingBegin()
        if values.isEmpty {
            return try result(
                of: PQexec(handle, statement.numbered.text), sql: sql, keepingResult: keepingResult)
        }
        let parameters = try PostgresParameters(values, sql: sql)
        let result = parameters.withCArrays { types, pointers, lengths, formats in
            PQexecParams(
                handle, statement.numbered.text, Int32(values.count), types, pointers, lengths, formats, 0)
        }
        return try self.result(of: result, sql: sql, keepingResult: keepingResult)
    }

    /// Whether the last statement failed because the server refused to reuse a cached plan
    /// after a schema change (SQLSTATE 0A000, `cached plan must not change result type`) inside
    /// a transaction, which that failure aborted: the transaction is then run again
    /// (``PostgresSession/execute(_:)``), and the statement prepared again.
    private(set) var lastFailureWasStalePlan = false

    /// Runs a statement through its prepared form, preparing it first when needed. A plan the
    /// server refuses after a schema change is prepared again and run once more, outside a
    /// transaction; inside one, the failure aborted it (see ``lastFailureWasStalePlan``).
    private func executePrepared(
        _ statement: PostgresStatement, _ parameters: PostgresParameters, sql: SQL, keepingResult: Bool
    ) throws -> PostgresResult {
        lastFailureWasStalePlan = false
        let name = try preparedName(of: statement, parameters, sql: sql)
        do {
            if let begin = pendingBegin {
                pendingBegin = nil
                return try runPreparedAfterBegin(
                    begin, name: name, statement: statement, parameters: parameters, sql: sql,
                    keepingResult: keepingResult)
            }
            return try runPreparedStatement(
                name, statement, parameters, sql: sql, keepingResult: keepingResult)
        } catch let error as DatabaseError where error.sqlState == "0A000" || error.sqlState == "26000" {
            // 26000: the statement is gone (a `DEALLOCATE` this cache did not see).
            if error.sqlState == "26000" {
                statements.forgetPreparedStatements()
            } else {
                statements.unprepare(statement)
            }
            guard PQtransactionStatus(handle) == PQTRANS_IDLE else {
                lastFailureWasStalePlan = true
                throw error
            }
            let name = try preparedName(of: statement, parameters, sql: sql)
            return try runPreparedStatement(
                name, statement, parameters, sql: sql, keepingResult: keepingResult)
        }
    }

    func runPreparedStatement(
        _ name: String, _ statement: PostgresStatement, _ parameters: PostgresParameters, sql: SQL,
        keepingResult: Bool
    ) throws -> PostgresResult {
        // Read outside the closure, which then captures no copy of the parameters.
        let count = Int32(parameters.count)
        let format: Int32 = statement.binaryResults ? 1 : 0
        let handle = handle
        let result = parameters.withCArrays { _, pointers, lengths, formats in
            PQexecPrepared(handle, name, count, pointers, lengths, formats, format)
        }
        let rows = try self.result(
            of: result, sql: sql, binary: statement.binaryResults, keepingResult: keepingResult)
        // The prepared statement's columns never change (the server refuses a plan whose
        // result type would): what is learned about them is kept with it.
        rows.raw?.prepared = (statement, name)
        return rows
    }

    /// The statement's prepared name, preparing it on the server first if needed.
    func preparedName(of statement: PostgresStatement, _ parameters: PostgresParameters, sql: SQL)
        throws -> String
    {
        if let name = statement.preparedName { return name }
        statements.deallocatePending(on: handle)
        let name = statements.newName()
        let prepared = parameters.types.withUnsafeBufferPointer { types in
            PQprepare(handle, name, statement.numbered.text, Int32(types.count), types.baseAddress)
        }
        _ = try result(of: prepared, sql: sql)
        statement.preparedName = name
        statement.preparedTypes = parameters.types
        statement.binaryResults = binaryResultsAreExact(name)
        return name
    }

    /// The statement's rows, or its error; a connection lost on the way is
    /// ``PostgresConnectionLoss``, whatever the server or libpq said about it.
    func result(of result: OpaquePointer?, sql: SQL, binary: Bool = false, keepingResult: Bool = false)
        throws -> PostgresResult
    {
        guard PQstatus(handle) == CONNECTION_OK else {
            let reason = result.map { PostgresErrorMapping.error(from: $0, connection: handle, sql: sql) }
            if let result { PQclear(result) }
            throw PostgresConnectionLoss.error(reason: reason, connection: handle, sql: sql)
        }
        guard let result else {
            throw DatabaseError(
                backendName: "PostgreSQL",
                resultCode: .noMemory,
                message: String(cString: PQerrorMessage(handle)).trimmingCharacters(
                    in: .whitespacesAndNewlines),
                sql: sql.text, arguments: sql.arguments)
        }
        return try PostgresResult(
            consuming: result, connection: handle, sql: sql, binary: binary, keepingResult: keepingResult)
    }

    /// Whether every column a prepared statement returns has a type whose binary form reads as
    /// its text does (``PostgresResult/ValueKind/binary(oid:)``), and one at least is cheaper
    /// to read that way (a number, a boolean, `bytea`): one round trip (`PQdescribePrepared`),
    /// paid once per prepared statement.
    private func binaryResultsAreExact(_ name: String) -> Bool {
        guard let description = PQdescribePrepared(handle, name) else { return false }
        defer { PQclear(description) }
        guard PQresultStatus(description) == PGRES_COMMAND_OK else { return false }
        var cheaper = false
        for field in 0..<PQnfields(description) {
            switch PostgresResult.ValueKind.binary(oid: PQftype(description, field)) {
            case nil: return false
            case .binaryText?, .binaryJSONB?: break
            default: cheaper = true
            }
        }
        return cheaper
    }

    /// Every SQL text run on this connection, with the prepared statements made for them.
    var statements = PostgresStatementCache()

    /// Forgets the prepared statements, which `DISCARD ALL` (the session reset) dropped.
    func forgetPreparedStatements() {
        statements.forgetPreparedStatements()
    }

    /// libpq's notice receiver: drops notices, notes a FATAL error (see `init`).
    private static let receiveNotice: PQnoticeReceiver = { argument, result in
        guard let argument, let result,
            let severity = PQresultErrorField(result, Int32(UInt8(ascii: "V")))
        else { return }
        let level = String(cString: severity)
        if level == "FATAL" || level == "PANIC" {
            Unmanaged<PostgresFatalFlag>.fromOpaque(argument).takeUnretainedValue().set()
        }
    }
}

/// Whether the server sent a FATAL error outside any statement; written by libpq's notice
/// receiver, which runs on the thread using the connection, and read by that thread.
final class PostgresFatalFlag {
    private(set) var isSet = false
    func set() { isSet = true }
}
