import Foundation
import LiteRecord

/// Keeps a fetched value fresh on PostgreSQL: fetches it, then again after each committed
/// transaction that changed a table the fetches read, and sends each value to its sink (which
/// leaves out a value that did not change).
///
/// The tables a fetch reads come from the plans of the queries it ran (see
/// ``PostgresObservationHub/tables(readBy:session:)``). Before a value is delivered, every one of
/// them carries LiteRecord's trigger and the listener is in `LISTEN` on its channel; a fetch that
/// reads a table for the first time is therefore run again once the table is listened to, so
/// no commit falls between the fetch and the `LISTEN`.
///
/// At most one fetch runs at a time; notifications that arrive during a fetch cost one more
/// fetch, not one each.
final class PostgresValueObserver<Fetched: Sendable>: Observer {
    private let database: PostgresDatabase
    private let prepare: @Sendable () throws -> [SQL]
    private let fetch: @Sendable (PostgresTransaction) throws -> Fetched
    private let sink: ObservationSink<Fetched>
    private let queue = DispatchQueue(label: "LiteRecordPostgres observation")
    private let state = Locked(State())

    private struct State {
        var subscription: (listener: PostgresListener, id: Int)?
        var channels: Set<String> = []
        /// The query texts whose tables are known (queries only: see `isExplained`).
        var explained: Set<String> = []
        var isBusy = true
        var changedWhileBusy = false
        var isCancelled = false
        /// After a failed fetch that the observation outlives, while no table is listened to
        /// yet (no notification can come): how long until the fetch is tried again.
        var retryDelay: TimeInterval = 0
    }

    /// The first and the longest wait before a failed fetch that listens to nothing is tried again.
    static var retryDelays: (first: TimeInterval, longest: TimeInterval) { (0.5, 30) }

    /// - Parameters:
    ///   - prepare: Runs first (creates the model's table); returns statements whose tables
    ///     to listen to before the first fetch.
    ///   - fetch: Reads the value, inside a read-only transaction.
    ///   - sink: Receives each value fetched (``LiteRecord/ObservationSink/skippingRepeats(by:)``
    ///     leaves out those that did not change).
    init(
        database: PostgresDatabase,
        prepare: @escaping @Sendable () throws -> [SQL],
        fetch: @escaping @Sendable (PostgresTransaction) throws -> Fetched,
        sink: ObservationSink<Fetched>
    ) {
        self.database = database
        self.prepare = prepare
        self.fetch = fetch
        self.sink = sink
    }

    /// Subscribes, listens to what the prepared statements read, and fetches the first value;
    /// all off the caller's thread.
    func start() {
        queue.async { [self] in
            do {
                let statements = try prepare()
                let subscription = try database.observationHub.subscribe(
                    handler: { [weak self] _ in self?.tablesDidChange() },
                    onFailure: { [weak self] error in self?.failLater(error) })
                let proceeds = state.withLock { state in
                    state.subscription = subscription
                    return !state.isCancelled
                }
                guard proceeds else {
                    return database.observationHub.unsubscribe(subscription.listener, id: subscription.id)
                }
                if !statements.isEmpty {
                    let tables = try database.read { tx in
                        try tx.withSession {
                            try PostgresObservationHub.tables(readBy: statements, session: $0)
                        }
                    }
                    try listen(to: tables, subscription: subscription)
                    state.withLock { $0.explained.formUnion(statements.map(\.text)) }
                }
                work(subscription)
            } catch {
                fail(error)
            }
        }
    }

    func cancel() {
        let subscription = state.withLock { state in
            state.isCancelled = true
            defer { state.subscription = nil }
            return state.subscription
        }
        if let subscription {
            database.observationHub.unsubscribe(subscription.listener, id: subscription.id)
        }
    }

    /// Called on the listener's thread: schedules a fetch, or notes one is due after the
    /// fetch in progress.
    private func tablesDidChange() {
        let subscription: (listener: PostgresListener, id: Int)? = state.withLock { state in
            guard !state.isCancelled, let subscription = state.subscription else { return nil }
            if state.isBusy {
                state.changedWhileBusy = true
                return nil
            }
            state.isBusy = true
            return subscription
        }
        guard let subscription else { return }
        queue.async { [self] in work(subscription) }
    }

    /// Fetches and delivers until no change is pending.
    private func work(_ subscription: (listener: PostgresListener, id: Int)) {
        while true {
            state.withLock { $0.changedWhileBusy = false }
            do {
                let explained = state.withLock { $0.explained }
                let (value, tables, statements, missing) = try database.read { tx in
                    try tx.withSession { session in
                        session.connection.statementLog = []
                        session.connection.missingModelTables = []
                        defer {
                            session.connection.statementLog = nil
                            session.connection.missingModelTables = []
                        }
                        let value = try fetch(tx)
                        let statements = (session.connection.statementLog ?? []).filter {
                            PostgresObservationHub.isExplained($0) && !explained.contains($0.text)
                        }
                        let missing = session.connection.missingModelTables
                        session.connection.statementLog = nil
                        let tables = try PostgresObservationHub.tables(readBy: statements, session: session)
                        return (value, tables, statements, missing)
                    }
                }
                if !missing.isEmpty {
                    // A model's table the fetch read as empty, since a read creates nothing:
                    // created now, as observing a query creates its table, so that a trigger
                    // reports its first rows; then the fetch runs again and listens to it.
                    try database.withSession { try $0.prepareTables(of: missing) }
                    continue
                }
                if try listen(to: tables, subscription: subscription) {
                    // A table read for the first time: fetch again now that it is listened to.
                    state.withLock { $0.explained.formUnion(statements.map(\.text)) }
                    continue
                }
                state.withLock { $0.explained.formUnion(statements.map(\.text)) }
                deliver(value)
                state.withLock { $0.retryDelay = 0 }
            } catch {
                guard !state.withLock({ $0.isCancelled }), sink.fetchFailed(error) else { return fail(error) }
                scheduleRetryIfDeaf(subscription)
            }
            let goesOn = state.withLock { state in
                if state.isCancelled { return false }
                if state.changedWhileBusy { return true }
                state.isBusy = false
                return false
            }
            if !goesOn { return }
        }
    }

    /// After a failed fetch the observation outlives: when it listens to no table yet (its first
    /// fetch failed), no notification will fetch again, so a timer does, waiting longer each time.
    private func scheduleRetryIfDeaf(_ subscription: (listener: PostgresListener, id: Int)) {
        let delay: TimeInterval? = state.withLock { state in
            guard state.channels.isEmpty else { return nil }
            state.retryDelay = min(
                max(state.retryDelay * 2, Self.retryDelays.first), Self.retryDelays.longest)
            return state.retryDelay
        }
        guard let delay else { return }
        queue.asyncAfter(deadline: .now() + delay) { [weak self] in self?.tablesDidChange() }
    }

    /// Installs the triggers and listens to the tables' channels.
    ///
    /// - Returns: Whether a channel was new.
    @discardableResult
    private func listen(to tables: Set<UInt32>, subscription: (listener: PostgresListener, id: Int)) throws
        -> Bool
    {
        let channels = Set(tables.map(PostgresObservationHub.channel(of:)))
        let new = state.withLock { channels.subtracting($0.channels) }
        guard !new.isEmpty else { return false }
        try database.observationHub.installTriggers(on: tables, database: database)
        try subscription.listener.listen(new, for: subscription.id)
        state.withLock { $0.channels.formUnion(new) }
        return true
    }

    private func deliver(_ value: Fetched) {
        if !state.withLock({ $0.isCancelled }) { sink.send(value) }
    }

    /// Called on the listener's thread, which must not wait for the observation's end.
    private func failLater(_ error: any Error) {
        queue.async { [self] in fail(error) }
    }

    private func fail(_ error: any Error) {
        let wasCancelled = state.withLock { $0.isCancelled }
        cancel()
        if !wasCancelled { sink.fail(error) }
    }
}
