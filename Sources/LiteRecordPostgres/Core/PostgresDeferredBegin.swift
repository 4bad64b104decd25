import CLibPQ
import LiteRecord

// Why `BEGIN` waits for the transaction's first statement: on its own it is a round trip that
// returns nothing the client needs. A read-modify-write transaction (`find`, `update`) was four
// round trips, `BEGIN`, `SELECT`, `UPDATE`, `COMMIT`, each ~95 µs on a local socket; sent in one
// pipeline with the first statement, `BEGIN` costs none of its own. A transaction whose body
// sends nothing sends no `BEGIN` and no `COMMIT` either.

extension PostgresConnection {
    /// Opens a transaction with `begin`, sent with the next statement (see
    /// ``runPreparedAfterBegin(_:name:statement:parameters:sql:keepingResult:)``), or on its own
    /// by ``sendPendingBegin()`` before anything that cannot travel with it.
    func beginWithNextStatement(_ begin: String) {
        pendingBegin = begin
    }

    /// Sends the `BEGIN` waiting for a statement now, when one is waiting.
    ///
    /// - Throws: ``LiteRecord/DatabaseError`` when the server refuses it.
    func sendPendingBegin() throws {
        guard let begin = pendingBegin else { return }
        pendingBegin = nil
        let sql = SQL(verbatim: begin)
        _ = try result(of: PQexec(handle, begin), sql: sql)
    }

    /// Ends a transaction that sent nothing yet: `true` (and the `BEGIN` is dropped) when its
    /// `BEGIN` is still waiting, so that there is nothing to commit or roll back.
    func dropUnsentBegin() -> Bool {
        guard pendingBegin != nil else { return false }
        pendingBegin = nil
        return true
    }

    /// Runs `begin` and a prepared statement in one pipeline: one round trip for both.
    ///
    /// - Returns: The statement's result.
    /// - Throws: The error of `BEGIN` or of the statement, as ``execute(_:keepingResult:)``.
    func runPreparedAfterBegin(
        _ begin: String, name: String, statement: PostgresStatement, parameters: PostgresParameters,
        sql: SQL, keepingResult: Bool
    ) throws -> PostgresResult {
        guard PQenterPipelineMode(handle) == 1 else {
            pendingBegin = begin
            try sendPendingBegin()
            return try runPreparedStatement(
                name, statement, parameters, sql: sql, keepingResult: keepingResult)
        }
        defer { _ = PQexitPipelineMode(handle) }
        guard PQsendQueryParams(handle, begin, 0, nil, nil, nil, nil, 0) == 1 else {
            throw pipelineFailure(sql: SQL(verbatim: begin))
        }
        let count = Int32(parameters.count)
        let format: Int32 = statement.binaryResults ? 1 : 0
        let handle = handle
        let sent = parameters.withCArrays { _, pointers, lengths, formats in
            PQsendQueryPrepared(handle, name, count, pointers, lengths, formats, format)
        }
        guard sent == 1, PQpipelineSync(handle) == 1 else { throw pipelineFailure(sql: sql) }
        var failure: (any Error)?
        // BEGIN's result, then the statement's (skipped by the server when BEGIN failed); each
        // is followed by a NULL, and the sync by its own result.
        if let started = nextPipelineResult() {
            // `BEGIN`'s text as SQL only for an error: made at every transaction, it cost more
            // than reading its result.
            if PQresultStatus(started) == PGRES_COMMAND_OK, PQstatus(handle) == CONNECTION_OK {
                PQclear(started)
            } else {
                do { _ = try result(of: started, sql: SQL(verbatim: begin)) } catch { failure = error }
            }
        }
        var value: PostgresResult?
        if let ran = nextPipelineResult() {
            if failure != nil || PQresultStatus(ran) == PGRES_PIPELINE_ABORTED {
                PQclear(ran)
            } else {
                do {
                    value = try result(
                        of: ran, sql: sql, binary: statement.binaryResults, keepingResult: keepingResult)
                } catch {
                    failure = error
                }
            }
        }
        while let result = PQgetResult(handle) {
            let status = PQresultStatus(result)
            PQclear(result)
            if status == PGRES_PIPELINE_SYNC { break }
        }
        if let failure { throw failure }
        guard let value else { throw pipelineFailure(sql: sql) }
        value.raw?.prepared = (statement, name)
        return value
    }

    /// The next query's result in a pipeline, with the NULL that ends its results read.
    private func nextPipelineResult() -> OpaquePointer? {
        guard let result = PQgetResult(handle) else { return nil }
        while let extra = PQgetResult(handle) { PQclear(extra) }
        return result
    }
}
