/// Collects what each transaction on the writer changed and, once it has committed, tells the
/// observations that subscribed; changes of a rolled-back transaction are dropped.
///
/// The hooks are installed on the writer with the first subscriber, so a database nobody
/// observes pays nothing per row. Subscribers that also want the commits of other connections
/// (other `Database` objects, other processes) keep an ``ExternalCommitWatcher`` running while
/// they are subscribed; a database in memory has none, since nothing else can write it.
final class ChangeCenter: Sendable {
    private let writer: SerializedConnection
    private let externalWatcher: ExternalCommitWatcher?
    private let state = Locked(State())

    private struct State {
        var isInstalled = false
        var nextID = 0
        var subscribers: [Int: Subscriber] = [:]
        var tablesChanged: Set<String> = []
        var rowsChanged: [DatabaseChange] = []
        /// False when a subscriber that wants rows came in the middle of a transaction that
        /// had already changed rows without recording them.
        var rowsAreComplete = true
        var recordsRows: Bool { subscribers.values.contains { $0.wantsRows } }
    }

    private struct Subscriber {
        let wantsRows: Bool
        let wantsExternalCommits: Bool
        let notify: @Sendable (CommittedChanges) -> Void
    }

    /// - Parameters:
    ///   - writer: The connection whose commits are reported row by row.
    ///   - files: The database's files, watched for other connections' commits; `nil` for a
    ///     database that only this `Database` can write (in memory, temporary).
    init(writer: SerializedConnection, files: DatabaseFiles?) {
        self.writer = writer
        // The watcher reports through a weak reference: it must not keep the center alive.
        let relay = WeakChangeCenter()
        self.externalWatcher = files.map { files in
            ExternalCommitWatcher(files: files, writer: writer) { relay.center?.didCommitElsewhere() }
        }
        relay.center = self
    }

    /// Calls `notify` after each transaction that committed changes; it runs on the thread that
    /// committed, so it must hand work off rather than use the database.
    ///
    /// - Parameters:
    ///   - wantsRows: Whether `notify` needs each changed row, not only the tables.
    ///   - wantsExternalCommits: Whether `notify` also receives, as
    ///     ``CommittedChanges/isExternal``, the commits of other connections to the file.
    ///   - notify: Receives the tables changed (and rows, when asked).
    /// - Returns: The subscription, for ``unsubscribe(_:)``.
    func subscribe(
        wantsRows: Bool, wantsExternalCommits: Bool = false,
        _ notify: @escaping @Sendable (CommittedChanges) -> Void
    ) -> Int {
        let (id, needsInstall) = state.withLock { state in
            if wantsRows && !state.recordsRows && !state.tablesChanged.isEmpty {
                state.rowsAreComplete = false
            }
            state.nextID += 1
            state.subscribers[state.nextID] = Subscriber(
                wantsRows: wantsRows, wantsExternalCommits: wantsExternalCommits, notify: notify)
            defer { state.isInstalled = true }
            return (state.nextID, !state.isInstalled)
        }
        if needsInstall { installHooks() }
        if wantsExternalCommits { externalWatcher?.retain() }
        return id
    }

    /// Ends a subscription; the watcher of other connections' commits stops with the last
    /// subscriber that wanted them.
    func unsubscribe(_ id: Int) {
        let removed = state.withLock { $0.subscribers.removeValue(forKey: id) }
        if removed?.wantsExternalCommits == true { externalWatcher?.release() }
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
                state.rowsAreComplete = true
            }
            return (
                CommittedChanges(
                    tables: state.tablesChanged, rows: state.rowsChanged,
                    rowsAreComplete: state.rowsAreComplete, isExternal: false),
                Array(state.subscribers.values)
            )
        }
        guard !changes.tables.isEmpty else { return }
        for subscriber in subscribers { subscriber.notify(changes) }
    }

    /// Another connection committed: anything may have changed, and no table is known.
    private func didCommitElsewhere() {
        let subscribers = state.withLock { $0.subscribers.values.filter(\.wantsExternalCommits) }
        let changes = CommittedChanges(tables: [], rows: [], rowsAreComplete: false, isExternal: true)
        for subscriber in subscribers { subscriber.notify(changes) }
    }

    private func didRollback() {
        state.withLock { state in
            state.tablesChanged = []
            state.rowsChanged = []
            state.rowsAreComplete = true
        }
    }
}

/// What one committed transaction changed.
struct CommittedChanges: Sendable {
    /// The tables with at least one changed row.
    let tables: Set<String>
    /// Each changed row, in order, when a subscriber asked for rows.
    let rows: [DatabaseChange]
    /// Whether ``rows`` holds every row changed (a subscriber that came in the middle of the
    /// transaction missed the rows changed before it came).
    let rowsAreComplete: Bool
    /// Made by another connection to the file: ``tables`` and ``rows`` are empty, and any
    /// table may have changed.
    let isExternal: Bool
}

/// The watcher's way back to its ``ChangeCenter``, which owns it.
private final class WeakChangeCenter: Sendable {
    private let reference = Locked<WeakReference?>(nil)

    private struct WeakReference: @unchecked Sendable {
        // @unchecked Sendable: a weak reference to a Sendable class.
        weak var center: ChangeCenter?
    }

    var center: ChangeCenter? {
        get { reference.withLock { $0?.center } }
        set { reference.withLock { $0 = WeakReference(center: newValue) } }
    }
}
