import Foundation
import LiteRecord

/// Keeps a fetched value fresh on PostgreSQL: fetches it, then again after each committed
/// transaction that changed a table the fetches read, and delivers it when it differs from the
/// last value delivered.
///
/// The tables a fetch reads come from the plans of the queries it ran (see
/// ``PostgresObservationHub/tables(readBy:session:)``). Before a value is delivered, every one of
/// them carries LiteRecord's trigger and the listener is in `LISTEN` on its channel; a fetch that
/// reads a table for the first time is therefore run again once the table is listened to, so
/// no commit falls between the fetch and the `LISTEN`.
///
/// At most one fetch runs at a time; notifications that arrive during a fetch cost one more
/// fetch, not one each.
final class PostgresValueObserver<Fetched: Sendable>: @unchecked Sendable {
    // @unchecked Sendable: every `var` is in `state`, only touched under `lock`; the rest is
    // immutable and Sendable.
    private let database: PostgresDatabase
    private let prepare: @Sendable () throws -> [SQL]
    private let fetch: @Sendable (PostgresTransaction) throws -> Fetched
    private let isSame: @Sendable (Fetched, Fetched) -> Bool
    private let onValue: @Sendable (Fetched) -> Void
    private let onError: @Sendable (any Error) -> Void
    private let queue = DispatchQueue(label: "LiteRecordPostgres observation")
    private let lock = NSLock()
    private var state = State()

    private struct State {
        var subscription: (listener: PostgresListener, id: Int)?
        var channels: Set<String> = []
        /// The query texts whose tables are known (queries only: see `isExplained`).
        var explained: Set<String> = []
        var lastDelivered: Fetched?
        var isBusy = true
        var changedWhileBusy = false
        var isCancelled = false
    }

    /// - Parameters:
    ///   - prepare: Runs first (creates the model's table); returns statements whose tables
    ///     to listen to before the first fetch.
    ///   - fetch: Reads the value, inside a read-only transaction.
    ///   - isSame: Whether two fetched values are the same (the second is then not delivered).
    init(
        database: PostgresDatabase,
        prepare: @escaping @Sendable () throws -> [SQL],
        fetch: @escaping @Sendable (PostgresTransaction) throws -> Fetched,
        isSame: @escaping @Sendable (Fetched, Fetched) -> Bool,
        onValue: @escaping @Sendable (Fetched) -> Void,
        onError: @escaping @Sendable (any Error) -> Void
    ) {
        self.database = database
        self.prepare = prepare
        self.fetch = fetch
        self.isSame = isSame
        self.onValue = onValue
        self.onError = onError
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
                let proceeds = withState { state in
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
                    withState { $0.explained.formUnion(statements.map(\.text)) }
                }
                work(subscription)
            } catch {
                fail(error)
            }
        }
    }

    func cancel() {
        let subscription = withState { state in
            state.isCancelled = true
            defer { state.subscription = nil }
            return state.subscription
        }
        if let subscription {
            database.observationHub.unsubscribe(subscription.listener, id: subscription.id)
        }
    }

    private func withState<T>(_ body: (inout State) throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body(&state)
    }

    /// Called on the listener's thread: schedules a fetch, or notes one is due after the
    /// fetch in progress.
    private func tablesDidChange() {
        let subscription: (listener: PostgresListener, id: Int)? = withState { state in
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
            withState { $0.changedWhileBusy = false }
            do {
                let explained = withState { $0.explained }
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
                    withState { $0.explained.formUnion(statements.map(\.text)) }
                    continue
                }
                withState { $0.explained.formUnion(statements.map(\.text)) }
                deliver(value)
            } catch {
                return fail(error)
            }
            let goesOn = withState { state in
                if state.isCancelled { return false }
                if state.changedWhileBusy { return true }
                state.isBusy = false
                return false
            }
            if !goesOn { return }
        }
    }

    /// Installs the triggers and listens to the tables' channels.
    ///
    /// - Returns: Whether a channel was new.
    @discardableResult
    private func listen(to tables: Set<UInt32>, subscription: (listener: PostgresListener, id: Int)) throws
        -> Bool
    {
        let channels = Set(tables.map(PostgresObservationHub.channel(of:)))
        let new = withState { channels.subtracting($0.channels) }
        guard !new.isEmpty else { return false }
        try database.observationHub.installTriggers(on: tables, database: database)
        try subscription.listener.listen(new, for: subscription.id)
        withState { $0.channels.formUnion(new) }
        return true
    }

    private func deliver(_ value: Fetched) {
        let delivers = withState { state in
            guard !state.isCancelled else { return false }
            if let last = state.lastDelivered, isSame(last, value) { return false }
            state.lastDelivered = value
            return true
        }
        if delivers { onValue(value) }
    }

    /// Called on the listener's thread, which must not wait for the observation's end.
    private func failLater(_ error: any Error) {
        queue.async { [self] in fail(error) }
    }

    private func fail(_ error: any Error) {
        let wasCancelled = withState { $0.isCancelled }
        cancel()
        if !wasCancelled { onError(error) }
    }
}
