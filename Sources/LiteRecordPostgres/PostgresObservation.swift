import Foundation
import LiteRecord

/// The results of a fetch on PostgreSQL, now and after every committed change that alters
/// them: an `AsyncSequence` made by ``PostgresDatabase/observe(_:)->PostgresObservation<[M]>``.
///
/// Iterating it fetches the value at once, then again after each committed transaction that
/// changed a table the fetch reads, from any client: this process, another
/// ``PostgresDatabase``, another program or `psql` (LiteRecord installs a trigger that
/// `NOTIFY`s, and one connection per database `LISTEN`s). Rolled-back work is never reported.
/// A value equal to the last one delivered is not delivered again. Bursts are coalesced: a slow
/// consumer gets the freshest value, not every intermediate one. Iteration ends when the
/// consuming task is cancelled, and throws if a fetch fails or the listening connection breaks.
///
/// ```swift
/// for try await players in pg.observe(pg.query(Player.self).order { $0.score.descending }) {
///     scoreboard.show(players)
/// }
/// ```
public struct PostgresObservation<Value: Sendable>: AsyncSequence, Sendable {
    public typealias Element = Value

    /// Starts an observer delivering to the two callbacks; returns what cancels it.
    let start:
        @Sendable (
            _ onValue: @escaping @Sendable (Value) -> Void, _ onError: @escaping @Sendable (any Error) -> Void
        ) -> @Sendable () -> Void

    /// Produces the observed values.
    public struct AsyncIterator: AsyncIteratorProtocol {
        var base: AsyncThrowingStream<Value, any Error>.AsyncIterator
        /// Stops the observation when the last copy of the iterator goes (a `break` out of
        /// the loop): the stream alone would keep it running, since the observer holds it.
        let stopper: Stopper

        /// The next fresh value; `nil` once the consuming task is cancelled.
        ///
        /// - Returns: The value.
        /// - Throws: The error of a fetch that failed, which ends the observation.
        public mutating func next() async throws -> Value? {
            try await base.next()
        }
    }

    /// Starts an observation of its own: it listens to the tables and fetches the first value.
    ///
    /// - Returns: The iterator; the observation stops when iteration ends or the task is
    ///   cancelled, and the last observation of a database stops its listening connection.
    public func makeAsyncIterator() -> AsyncIterator {
        let (stream, continuation) = AsyncThrowingStream.makeStream(
            of: Value.self, throwing: (any Error).self, bufferingPolicy: .bufferingNewest(1))
        let cancel = start({ continuation.yield($0) }, { continuation.finish(throwing: $0) })
        continuation.onTermination = { _ in cancel() }
        // Finishing runs `onTermination`, which cancels, and releases it: nothing is left
        // holding the observer.
        return AsyncIterator(base: stream.makeAsyncIterator(), stopper: Stopper { continuation.finish() })
    }

    /// Runs its closure when released.
    final class Stopper: Sendable {
        private let stop: @Sendable () -> Void

        init(_ stop: @escaping @Sendable () -> Void) {
            self.stop = stop
        }

        deinit {
            stop()
        }
    }
}

/// The rows of a query as fetched (compared to tell a change) and as decoded.
struct FetchedModels<M: Model>: Sendable {
    let rows: [[DatabaseValue]]
    let models: [M]
}

extension PostgresDatabase {
    /// Observes the results of a query, as an `AsyncSequence` of fresh arrays of models.
    ///
    /// The model's table is created first when it does not exist yet. The tables the query
    /// reads are taken from its plan (joins and subqueries included) and each gets LiteRecord's
    /// notifying trigger (see the PostgreSQL article). New results are delivered only when the rows
    /// differ from the last ones delivered.
    ///
    /// - Parameter query: The query; it runs on this database, whatever it was built on.
    /// - Returns: The observation; nothing runs until it is iterated.
    public func observe<M: Model>(_ query: Query<M>) -> PostgresObservation<[M]> {
        let sql = Result {
            _ = try query.postgresExecutor(for: "observe")
            return try SQLDialect.$current.withValue(.postgres) { try query.backendSelectSQL("*") }
        }
        return PostgresObservation { onValue, onError in
            let observer = PostgresValueObserver<FetchedModels<M>>(
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
                isSame: { $0.rows == $1.rows },
                onValue: { onValue($0.models) }, onError: onError)
            observer.start()
            return { observer.cancel() }
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
    ) -> PostgresObservation<Value> {
        PostgresObservation { onValue, onError in
            let observer = PostgresValueObserver<Value>(
                database: self, prepare: { [] }, fetch: fetch, isSame: ==, onValue: onValue, onError: onError)
            observer.start()
            return { observer.cancel() }
        }
    }
}
