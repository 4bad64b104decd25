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
        /// The subscribers called for every commit, whatever it changed.
        var everyCommit: Set<Int> = []
        /// For each table, the other subscribers that a commit changing it calls.
        var byTable: [String: Set<Int>] = [:]
        /// How many subscribers want rows.
        var rowSubscribers = 0
        var tablesChanged: Set<String> = []
        var rowsChanged: [DatabaseChange] = []
        /// False when a subscriber that wants rows came in the middle of a transaction that
        /// had already changed rows without recording them.
        var rowsAreComplete = true
        var recordsRows: Bool { rowSubscribers > 0 }

        /// Files subscriber `id` under the tables it wants (`nil`: every commit).
        mutating func route(_ id: Int, tables: Set<String>?) {
            if let tables {
                for table in tables { byTable[table, default: []].insert(id) }
            } else {
                everyCommit.insert(id)
            }
        }

        /// Undoes ``route(_:tables:)``.
        mutating func unroute(_ id: Int, tables: Set<String>?) {
            guard let tables else {
                everyCommit.remove(id)
                return
            }
            for table in tables {
                byTable[table]?.remove(id)
                if byTable[table]?.isEmpty == true { byTable[table] = nil }
            }
        }

        /// The subscribers a commit changing `changed` calls, each once.
        func notified(by changed: Set<String>) -> [Subscriber] {
            var ids = everyCommit
            for table in changed { if let routed = byTable[table] { ids.formUnion(routed) } }
            return ids.compactMap { subscribers[$0] }
        }
    }

    private struct Subscriber {
        let wantsRows: Bool
        let wantsExternalCommits: Bool
        /// The tables whose changes it wants; `nil` for every commit.
        var tables: Set<String>?
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
    /// The subscription starts with every commit; ``route(_:tables:)`` narrows it to the
    /// commits that change some tables, so that a commit costs nothing to the subscribers that
    /// do not care about it (a hundred live queries of other tables).
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
                wantsRows: wantsRows, wantsExternalCommits: wantsExternalCommits, tables: nil, notify: notify)
            state.route(state.nextID, tables: nil)
            if wantsRows { state.rowSubscribers += 1 }
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
        let removed = state.withLock { state in
            guard let removed = state.subscribers.removeValue(forKey: id) else { return nil as Subscriber? }
            state.unroute(id, tables: removed.tables)
            if removed.wantsRows { state.rowSubscribers -= 1 }
            return removed
        }
        if removed?.wantsExternalCommits == true { externalWatcher?.release() }
    }

    /// Narrows (or widens) the commits that call subscriber `id`: from the next commit on, only
    /// those that change one of `tables`; every commit when `tables` is `nil`. External commits
    /// are not affected. Commits are reported once they are done (visible to a new read), so a
    /// subscriber that widens before it begins a read either sees a commit in that read or is
    /// called for it.
    func route(_ id: Int, tables: Set<String>?) {
        state.withLock { state in
            guard let old = state.subscribers[id], old.tables != tables else { return }
            state.unroute(id, tables: old.tables)
            state.route(id, tables: tables)
            state.subscribers[id]?.tables = tables
        }
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
        // Whatever it changed: the watcher need not check at once for its file event.
        externalWatcher?.noteOwnCommit()
        let commit: (CommittedChanges, [Subscriber])? = state.withLock { state in
            defer {
                state.tablesChanged = []
                state.rowsChanged = []
                state.rowsAreComplete = true
            }
            guard !state.tablesChanged.isEmpty else { return nil }
            let changes = CommittedChanges(
                tables: state.tablesChanged, rows: state.rowsChanged,
                rowsAreComplete: state.rowsAreComplete, isExternal: false)
            return (changes, state.notified(by: state.tablesChanged))
        }
        guard let (changes, subscribers) = commit else { return }
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
