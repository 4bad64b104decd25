import CLibPQ
import Foundation
import LiteRecord

extension PostgresConnection {
    /// How many statements are sent before their results are read: few enough that their
    /// results fit in the socket's buffers (so neither side blocks writing while the other
    /// does), many enough that round trips no longer count.
    static let pipelineDepth = 256

    /// Runs statements in pipeline mode (libpq ≥ 14): up to ``pipelineDepth`` sent at once
    /// through their prepared statements, then their results read: one round trip for all of
    /// them instead of one each. The caller runs them inside a transaction or savepoint: the
    /// first that fails makes the server skip the rest of its pipeline, and its error is thrown
    /// once the pipeline is drained, as ``execute(_:)`` would have thrown it.
    ///
    /// Statements a pipeline cannot run prepared (several statements, named parameters,
    /// parameter types other than the prepared ones, statements that change the session) and
    /// every statement outside a transaction run one by one through ``execute(_:)``.
    ///
    /// - Parameter batch: The statements, with `?` parameters.
    /// - Returns: Their results, in order.
    /// - Throws: ``LiteRecord/DatabaseError`` as ``execute(_:)``.
    func executePipelined(_ batch: [SQL]) throws -> [PostgresResult] {
        try sendPendingBegin()
        var results: [PostgresResult] = []
        results.reserveCapacity(batch.count)
        var start = 0
        while start < batch.count {
            let chunk = batch[start..<min(start + Self.pipelineDepth, batch.count)]
            start = chunk.endIndex
            if let sends = try pipelineSends(chunk) {
                results += try runPipeline(sends)
            } else {
                for sql in chunk { results.append(try execute(sql)) }
            }
        }
        return results
    }

    private typealias PipelineSend = (name: String, binary: Bool, parameters: PostgresParameters, sql: SQL)

    /// The chunk's statements prepared (each new text once, outside the pipeline), or `nil`
    /// when one cannot run in a pipeline.
    private func pipelineSends(_ chunk: ArraySlice<SQL>) throws -> [PipelineSend]? {
        guard PQtransactionStatus(handle) == PQTRANS_INTRANS else { return nil }
        var sends: [PipelineSend] = []
        sends.reserveCapacity(chunk.count)
        for sql in chunk {
            guard sql.arguments.named.isEmpty else { return nil }
            let statement = statements.statement(for: sql.text)
            let numbered = statement.numbered
            let values = sql.arguments.positional
            guard numbered.isPreparable, numbered.sessionChange == .none, !numbered.dropsPreparedStatements,
                numbered.count == values.count
            else { return nil }
            let parameters = try PostgresParameters(values, sql: sql)
            if statement.preparedName != nil, !parameters.hasTypes(statement.preparedTypes) { return nil }
            statement.uses += 1
            let name = try preparedName(of: statement, parameters, sql: sql)
            sends.append((name, statement.binaryResults, parameters, sql))
        }
        return sends
    }

    /// Sends the statements, a sync, and reads every result; throws the first failure.
    private func runPipeline(_ sends: [PipelineSend]) throws -> [PostgresResult] {
        guard PQenterPipelineMode(handle) == 1 else {
            return try sends.map { try execute($0.sql) }
        }
        defer { _ = PQexitPipelineMode(handle) }
        for send in sends {
            statementLog?.append(send.sql)
            let sent = send.parameters.withCArrays { _, pointers, lengths, formats in
                PQsendQueryPrepared(
                    handle, send.name, Int32(send.parameters.count), pointers, lengths, formats,
                    send.binary ? 1 : 0)
            }
            guard sent == 1 else { throw pipelineFailure(sql: send.sql) }
        }
        guard PQpipelineSync(handle) == 1 else { throw pipelineFailure(sql: sends.last?.sql ?? "") }
        var results: [PostgresResult] = []
        results.reserveCapacity(sends.count)
        var failure: (any Error)?
        for send in sends {
            guard let result = PQgetResult(handle) else { throw pipelineFailure(sql: send.sql) }
            if PQresultStatus(result) == PGRES_PIPELINE_ABORTED {
                PQclear(result)
            } else if failure == nil {
                do {
                    results.append(try self.result(of: result, sql: send.sql, binary: send.binary))
                } catch {
                    failure = error
                }
            } else {
                PQclear(result)
            }
            // Each statement's results end with a NULL.
            while let extra = PQgetResult(handle) {
                PQclear(extra)
            }
        }
        // The sync's own result ends the pipeline.
        while let result = PQgetResult(handle) {
            let status = PQresultStatus(result)
            PQclear(result)
            if status == PGRES_PIPELINE_SYNC { break }
        }
        if let failure { throw failure }
        return results
    }

    /// The error of a pipeline libpq could not send or read: the connection's, as a lost
    /// connection when it is gone.
    func pipelineFailure(sql: SQL) -> any Error {
        if PQstatus(handle) != CONNECTION_OK {
            return PostgresConnectionLoss.error(reason: nil, connection: handle, sql: sql)
        }
        return DatabaseError(
            backendName: "PostgreSQL", resultCode: .error,
            message: String(cString: PQerrorMessage(handle)).trimmingCharacters(in: .whitespacesAndNewlines),
            sql: sql.text, arguments: sql.arguments)
    }
}
