/// Collects what each transaction on the writer changed and, once it has committed, tells the
/// observations that subscribed; changes of a rolled-back transaction are dropped.
///
/// The hooks are installed on the writer with the first subscriber, so a database nobody
/// observes pays nothing per row.
final class ChangeCenter: Sendable {
    private let writer: SerializedConnection
    private let state = Locked(State())

    private struct State {
        var isInstalled = false
        var nextID = 0
        var subscribers: [Int: Subscriber] = [:]
        var tablesChanged: Set<String> = []
        var rowsChanged: [DatabaseChange] = []
        var recordsRows: Bool { subscribers.values.contains { $0.wantsRows } }
    }

    private struct Subscriber {
        let wantsRows: Bool
        let notify: @Sendable (CommittedChanges) -> Void
    }

    init(writer: SerializedConnection) {
        self.writer = writer
    }

    /// Calls `notify` after each transaction that committed changes; it runs on the thread that
    /// committed, so it must hand work off rather than use the database.
    ///
    /// - Parameters:
    ///   - wantsRows: Whether `notify` needs each changed row, not only the tables.
    ///   - notify: Receives the tables changed (and rows, when asked).
    /// - Returns: The subscription, for ``unsubscribe(_:)``.
    func subscribe(wantsRows: Bool, _ notify: @escaping @Sendable (CommittedChanges) -> Void) -> Int {
        let (id, needsInstall) = state.withLock { state in
            state.nextID += 1
            state.subscribers[state.nextID] = Subscriber(wantsRows: wantsRows, notify: notify)
            defer { state.isInstalled = true }
            return (state.nextID, !state.isInstalled)
        }
        if needsInstall { installHooks() }
        return id
    }

    func unsubscribe(_ id: Int) {
        state.withLock { _ = $0.subscribers.removeValue(forKey: id) }
    }

    private func installHooks() {
        writer.withConnection { connection in
            connection.reportEveryDeletedRow()
            _ = connection.hooks.addUpdate { [weak self] change in self?.record(change) }
            _ = connection.hooks.addCommit { [weak self] in self?.didCommit() }
            _ = connection.hooks.addRollback { [weak self] in self?.didRollback() }
        }
    }

    private func record(_ change: DatabaseChange) {
        state.withLock { state in
            state.tablesChanged.insert(change.tableName)
            if state.recordsRows { state.rowsChanged.append(change) }
        }
    }

    private func didCommit() {
        let (changes, subscribers) = state.withLock { state in
            defer {
                state.tablesChanged = []
                state.rowsChanged = []
            }
            return (
                CommittedChanges(tables: state.tablesChanged, rows: state.rowsChanged),
                Array(state.subscribers.values)
            )
        }
        guard !changes.tables.isEmpty else { return }
        for subscriber in subscribers { subscriber.notify(changes) }
    }

    private func didRollback() {
        state.withLock { state in
            state.tablesChanged = []
            state.rowsChanged = []
        }
    }
}

/// What one committed transaction changed.
struct CommittedChanges: Sendable {
    /// The tables with at least one changed row.
    let tables: Set<String>
    /// Each changed row, in order, when a subscriber asked for rows.
    let rows: [DatabaseChange]
}
