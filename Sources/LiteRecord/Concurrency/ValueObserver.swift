import Dispatch

/// Keeps a fetched value fresh: fetches it once, then again after each committed transaction
/// that changed a table the last fetch read, and after each commit of another connection to
/// the file (see ``ExternalCommitWatcher``), which may have changed anything.
///
/// At most one fetch runs at a time. Commits that arrive during a fetch are remembered and, when
/// they touch the region the fetch read, trigger one more fetch: a burst of commits costs one
/// or two fetches, not one each, and no commit is missed. An observation of a query with a
/// ``RowFilter`` also skips the fetch when the rows a commit changed cannot alter its results.
///
/// While idle, it asks ``ChangeCenter`` for the commits that change the tables of its last
/// fetch only, so the commits to other tables cost it nothing; see ``routeCommits(_:)``.
final class ValueObserver<Value: Sendable>: Observer {
    private let database: Database
    private let prepare: @Sendable () throws -> Void
    private let fetch: @Sendable (Connection) throws -> Value
    private let rowFilter: RowFilter?
    private let sink: ObservationSink<Value>
    private let state = Locked(State())

    private struct State {
        var subscription: Int?
        /// The tables the last fetch read; `nil` before the first fetch, and after one that
        /// failed.
        var region: Set<String>?
        /// The last fetch failed and the observation goes on (``ObservationSink/report``): what
        /// it would have read is unknown, so any commit fetches again.
        var lastFetchFailed = false
        /// The rowids of the rows the last fetch returned, when there is a row filter.
        var resultRowIDs: Set<Int64>?
        /// Whether a fetch or a probe runs (or is about to).
        var isBusy = false
        var changedWhileBusy = PendingChanges()
        var isCancelled = false
    }

    /// What commits changed since the last fetch or probe began.
    private struct PendingChanges {
        var tables: Set<String> = []
        /// Another connection committed: anything may have changed.
        var isExternal = false
        /// The rowids changed in the row filter's table, while they are few enough to probe.
        var filteredRowIDs: Set<Int64> = []
        /// The filter's table changed in ways the rowids above do not tell.
        var filteredRowsUnknown = false
        /// A row of the filter's table was updated (perhaps its rowid: see ``RowFilter``).
        var filteredRowsUpdated = false

        mutating func add(_ changes: CommittedChanges, filter: RowFilter?) {
            tables.formUnion(changes.tables)
            isExternal = isExternal || changes.isExternal
            guard let filter, changes.tables.contains(filter.table) else { return }
            var sawRow = false
            if !changes.rowsAreComplete { filteredRowsUnknown = true }
            for change in changes.rows where change.tableName == filter.table {
                sawRow = true
                if change.databaseName != "main" || filteredRowIDs.count >= RowFilter.maximumProbedRows {
                    filteredRowsUnknown = true
                } else {
                    filteredRowIDs.insert(change.rowID)
                }
                if change.operation == .update { filteredRowsUpdated = true }
            }
            if !sawRow { filteredRowsUnknown = true }
        }
    }

    /// What to do about the changes pending.
    private enum Step {
        case nothing
        case fetch
        /// Ask whether one of these rows matches the query now, and (after an update) whether
        /// every row of the results is still there; fetch unless both answers allow skipping.
        case probe([Int64], resultRowIDs: Set<Int64>?)
    }

    init(
        database: Database,
        prepare: @escaping @Sendable () throws -> Void,
        fetch: @escaping @Sendable (Connection) throws -> Value,
        rowFilter: RowFilter? = nil,
        sink: ObservationSink<Value>
    ) {
        self.database = database
        self.prepare = prepare
        self.fetch = fetch
        self.rowFilter = rowFilter
        self.sink = sink
    }

    /// Subscribes to commits, then fetches the first value; all off the caller's thread.
    func start() {
        database.readQueue.async { [self] in
            guard subscribe() else { return }
            do {
                try prepare()
            } catch {
                return fail(error)
            }
            work(.fetch)
        }
    }

    /// Subscribes to commits and fetches the first value on the calling thread, returning it
    /// instead of sending it: a live value created on the main actor holds its first value at
    /// once. Commits made meanwhile are not missed: the subscription comes first, and what they
    /// call for runs off the caller's thread afterwards.
    ///
    /// - Returns: The first value.
    /// - Throws: What preparing or fetching threw; the observation is then cancelled.
    func startHere() throws -> Value {
        guard subscribe() else { throw CancellationError() }
        let value: Value
        do {
            try prepare()
            value = try fetchRecordingRegion()
        } catch {
            cancel()
            throw error
        }
        let step = state.withLock { state in
            let next = state.isCancelled ? .nothing : nextStep(&state)
            if case .nothing = next {
                state.isBusy = false
                routeCommits(state)
            }
            return next
        }
        if case .nothing = step {} else { database.readQueue.async { [self] in work(step) } }
        return value
    }

    /// Subscribes to commits, marking a fetch as under way.
    ///
    /// - Returns: Whether the observation proceeds (it was not cancelled meanwhile).
    private func subscribe() -> Bool {
        let subscription = database.changeCenter.subscribe(
            wantsRows: rowFilter != nil, wantsExternalCommits: true
        ) { [weak self] changes in
            self?.databaseDidCommit(changes)
        }
        let proceeds = state.withLock { state in
            state.subscription = subscription
            state.isBusy = !state.isCancelled
            return !state.isCancelled
        }
        if !proceeds { database.changeCenter.unsubscribe(subscription) }
        return proceeds
    }

    func cancel() {
        let subscription = state.withLock { state in
            state.isCancelled = true
            defer { state.subscription = nil }
            return state.subscription
        }
        if let subscription { database.changeCenter.unsubscribe(subscription) }
    }

    private func databaseDidCommit(_ changes: CommittedChanges) {
        let step: Step = state.withLock { state in
            guard !state.isCancelled else { return .nothing }
            state.changedWhileBusy.add(changes, filter: rowFilter)
            guard !state.isBusy else { return .nothing }
            let step = nextStep(&state)
            if case .nothing = step { return .nothing }
            state.isBusy = true
            routeCommits(state)
            return step
        }
        if case .nothing = step { return }
        database.readQueue.async { [self] in work(step) }
    }

    /// Under the lock, after `isBusy` or `region` changed: tells ``ChangeCenter`` which of this
    /// Database's commits to report, so that the others cost nothing.
    ///
    /// Idle, with the tables the last fetch read: a commit changing none of them cannot alter
    /// that fetch's value, and ``nextStep(_:)`` would drop it anyway. Every commit while busy
    /// (from before a fetch begins until the observer is idle again), and while there is no
    /// region (before the first fetch, after a failed one): a fetch may read tables the last
    /// one did not (a closure that reads another table depending on a value), and a commit to
    /// one of them during the fetch, after its snapshot, must not be missed. That holds because
    /// the center reports a commit once it is done, on the writer's thread, one commit after
    /// the other, and the observer asks for every commit before its read begins: a commit is
    /// either already in the fetch's snapshot or reported afterwards, while busy. Going busy
    /// happens in ``databaseDidCommit(_:)``, on the writer's thread, so even the next commit is
    /// reported. Called under the observer's lock, so that two transitions cannot reach the
    /// center out of order (the center never calls an observer under its own lock).
    private func routeCommits(_ state: State) {
        guard let subscription = state.subscription else { return }
        database.changeCenter.route(subscription, tables: state.isBusy ? nil : state.region)
    }

    /// Under the lock: what the pending changes call for, given the last fetch; clears them.
    private func nextStep(_ state: inout State) -> Step {
        let pending = state.changedWhileBusy
        state.changedWhileBusy = PendingChanges()
        guard let region = state.region else {
            let changed = pending.isExternal || !pending.tables.isEmpty
            return state.lastFetchFailed && changed ? .fetch : .nothing
        }
        if pending.isExternal { return .fetch }
        let touched = pending.tables.intersection(region)
        guard !touched.isEmpty else { return .nothing }
        guard let rowFilter, touched == [rowFilter.table], !pending.filteredRowsUnknown,
            let resultRowIDs = state.resultRowIDs
        else { return .fetch }
        if !pending.filteredRowIDs.isDisjoint(with: resultRowIDs) { return .fetch }
        return .probe(
            pending.filteredRowIDs.sorted(), resultRowIDs: pending.filteredRowsUpdated ? resultRowIDs : nil)
    }

    /// Runs `step`, then whatever the changes that came meanwhile call for, until none is left.
    private func work(_ first: Step) {
        var step = first
        while true {
            if case .probe(let rowIDs, let resultRowIDs) = step, let rowFilter {
                let mayMatter =
                    (try? database.read { connection in
                        if try rowFilter.anyMatches(connection, rowIDs) { return true }
                        guard let resultRowIDs else { return false }
                        return try !rowFilter.allExist(connection, resultRowIDs)
                    }) ?? true
                step = mayMatter ? .fetch : .nothing
            }
            if case .fetch = step {
                guard fetchAndDeliver() else { return }
            }
            step = state.withLock { state in
                let next = state.isCancelled ? .nothing : nextStep(&state)
                if case .nothing = next {
                    state.isBusy = false
                    routeCommits(state)
                }
                return next
            }
            if case .nothing = step { return }
        }
    }

    /// - Returns: Whether the observation goes on.
    private func fetchAndDeliver() -> Bool {
        let value: Value
        do {
            value = try fetchRecordingRegion()
        } catch {
            let goesOn = state.withLock { state in
                state.region = nil
                state.resultRowIDs = nil
                state.lastFetchFailed = true
                return !state.isCancelled
            }
            guard goesOn, sink.fetchFailed(error) else {
                fail(error)
                return false
            }
            return true
        }
        guard !state.withLock({ $0.isCancelled }) else { return false }
        sink.send(value)
        return true
    }

    /// Fetches the value, recording the tables it read (and the rowids of its results, when
    /// there is a row filter) for the commits to come.
    private func fetchRecordingRegion() throws -> Value {
        let ((value, rowIDs), region) = try database.readRecordingTables { connection in
            // The same snapshot as the value; without the rowids, changes cost a fetch.
            (try fetch(connection), try? rowFilter?.resultRowIDs(connection))
        }
        state.withLock { state in
            state.region = region
            state.resultRowIDs = rowIDs
            state.lastFetchFailed = false
        }
        return value
    }

    private func fail(_ error: any Error) {
        let wasCancelled = state.withLock { $0.isCancelled }
        cancel()
        if !wasCancelled { sink.fail(error) }
    }
}

extension Database {
    /// Runs `body` as ``read(_:)-(_)`` does, and returns the tables its statements read.
    func readRecordingTables<T>(_ body: (Connection) throws -> T) throws -> (T, Set<String>) {
        try read { connection in
            try connection.recordingTablesRead { try body(connection) }
        }
    }
}
