import Foundation
import LiteRecord

/// Observations on PostgreSQL are LiteRecord's ``LiteRecord/DatabaseObservation``, as on SQLite.
@available(*, deprecated, renamed: "DatabaseObservation", message: "the same type as on SQLite")
public typealias PostgresObservation<Value: Sendable> = DatabaseObservation<Value>

struct FetchedModels<M: Model>: Sendable {
    let rows: [[DatabaseValue]]
    let models: [M]
}

extension PostgresDatabase {
    /// Observes the results of a query, as an `AsyncSequence` of fresh arrays of models.
    ///
    /// Unlike SQLite's, an observation on PostgreSQL sees commits from every client: this
    /// process, another ``PostgresDatabase``, another program or `psql` (a trigger `NOTIFY`s,
    /// and one connection per database `LISTEN`s). The model's table is created first when it
    /// does not exist yet. The tables the query reads are taken from its plan (joins and
    /// subqueries included) and each gets LiteRecord's notifying trigger (see the PostgreSQL
    /// article). New results are delivered only when the rows differ from the last ones
    /// delivered. Iteration throws if a fetch fails or the listening connection breaks.
    ///
    /// ```swift
    /// for try await players in pg.observe(pg.query(Player.self).order { $0.score.descending }) {
    ///     scoreboard.show(players)
    /// }
    /// ```
    ///
    /// - Parameter query: A query built on this database (`pg.query`): its SQL is PostgreSQL's.
    /// - Returns: The observation; nothing runs until it is iterated. A query built on a SQLite
    ///   database or on another PostgreSQL database makes the iteration throw
    ///   ``LiteRecord/DatabaseError`` with ``LiteRecord/ResultCode/misuse``.
    public func observe<M: Model>(_ query: Query<M>) -> DatabaseObservation<[M]> {
        let sql = Result {
            _ = try query.postgresExecutor(for: "observe", on: self)
            return try query.backendSelectSQL("*")
        }
        return DatabaseObservation { sink in
            PostgresValueObserver<FetchedModels<M>>(
                database: self,
                prepare: {
                    try self.withSession { _ = try $0.preparedTable(for: M.self) }
                    return [try sql.get()]
                },
                fetch: { tx in
                    try tx.withSession { session in
                        let table = try session.preparedTable(for: M.self)
                        let decoder = table.rowDecoder(dateStorage: session.dateStorage)
                        let result = try session.execute(try sql.get())
                        let models = try result.lrRows.map { try decoder.decode(M.self, from: $0) }
                        return FetchedModels(rows: result.rows, models: models)
                    }
                },
                sink: sink.map(\.models).skippingRepeats { $0.rows == $1.rows })
        }
    }

    /// Observes the value `fetch` returns, as an `AsyncSequence` of fresh values.
    ///
    /// `fetch` runs as a ``read(_:)-bfe8``; the tables its queries read are recorded each time
    /// (from their plans) and a commit changing one of them fetches again. A value equal to
    /// the last one delivered is not delivered again.
    ///
    /// ```swift
    /// for try await count in pg.observe({ tx in try tx.query(Player.self).count() }) { show(count) }
    /// ```
    ///
    /// - Parameter fetch: Reads the value; it must only read.
    /// - Returns: The observation; nothing runs until it is iterated.
    public func observe<Value: Sendable & Equatable>(
        _ fetch: @escaping @Sendable (PostgresTransaction) throws -> Value
    ) -> DatabaseObservation<Value> {
        DatabaseObservation { sink in
            PostgresValueObserver<Value>(
                database: self, prepare: { [] }, fetch: fetch, sink: sink.skippingRepeats(by: ==))
        }
    }
}
