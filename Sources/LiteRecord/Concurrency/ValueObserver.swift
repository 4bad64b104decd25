import Dispatch

/// Keeps a fetched value fresh: fetches it once, then again after each committed transaction
/// that changed a table the last fetch read, and after each commit of another connection to
/// the file (see ``ExternalCommitWatcher``), which may have changed anything.
///
/// At most one fetch runs at a time. Commits that arrive during a fetch are remembered and, when
/// they touch the region the fetch read, trigger one more fetch: a burst of commits costs one
/// or two fetches, not one each, and no commit is missed.
final class ValueObserver<Value: Sendable>: Sendable {
  private let database: Database
  private let prepare: @Sendable () throws -> Void
  private let fetch: @Sendable (Connection) throws -> Value
  private let onValue: @Sendable (Value) -> Void
  private let onError: @Sendable (any Error) -> Void
  private let state = Locked(State())

  private struct State {
    var subscription: Int?
    /// The tables the last fetch read; `nil` before the first fetch.
    var region: Set<String>?
    var isFetching = false
    var changedDuringFetch = PendingChanges()
    var isCancelled = false
  }

  /// What commits changed since the last fetch began.
  private struct PendingChanges {
    var tables: Set<String> = []
    /// Another connection committed: anything may have changed.
    var isExternal = false

    mutating func add(_ changes: CommittedChanges) {
      tables.formUnion(changes.tables)
      isExternal = isExternal || changes.isExternal
    }

    func mayChange(_ region: Set<String>) -> Bool {
      isExternal || !tables.isDisjoint(with: region)
    }
  }

  init(
    database: Database,
    prepare: @escaping @Sendable () throws -> Void,
    fetch: @escaping @Sendable (Connection) throws -> Value,
    onValue: @escaping @Sendable (Value) -> Void,
    onError: @escaping @Sendable (any Error) -> Void
  ) {
    self.database = database
    self.prepare = prepare
    self.fetch = fetch
    self.onValue = onValue
    self.onError = onError
  }

  /// Subscribes to commits, then fetches the first value; all off the caller's thread.
  func start() {
    database.readQueue.async { [self] in
      let subscription = database.changeCenter.subscribe(
        wantsRows: false, wantsExternalCommits: true
      ) {
        [weak self] changes in
        self?.databaseDidCommit(changes)
      }
      let proceeds = state.withLock { state in
        state.subscription = subscription
        state.isFetching = !state.isCancelled
        return !state.isCancelled
      }
      guard proceeds else { return database.changeCenter.unsubscribe(subscription) }
      do {
        try prepare()
      } catch {
        return fail(error)
      }
      fetchUntilFresh()
    }
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
    let startsFetch = state.withLock { state in
      guard !state.isCancelled else { return false }
      if state.isFetching {
        state.changedDuringFetch.add(changes)
        return false
      }
      var pending = PendingChanges()
      pending.add(changes)
      guard let region = state.region, pending.mayChange(region) else { return false }
      state.isFetching = true
      return true
    }
    if startsFetch {
      database.readQueue.async { [self] in fetchUntilFresh() }
    }
  }

  private func fetchUntilFresh() {
    while true {
      let fetched: (Value, Set<String>)
      do {
        fetched = try database.readRecordingTables(fetch)
      } catch {
        return fail(error)
      }
      let (value, region) = fetched
      let delivers = state.withLock { state in
        state.region = region
        return !state.isCancelled
      }
      guard delivers else { return }
      onValue(value)
      let fetchesAgain = state.withLock { state in
        defer { state.changedDuringFetch = PendingChanges() }
        if !state.isCancelled && state.changedDuringFetch.mayChange(region) {
          return true
        }
        state.isFetching = false
        return false
      }
      guard fetchesAgain else { return }
    }
  }

  private func fail(_ error: any Error) {
    let wasCancelled = state.withLock { $0.isCancelled }
    cancel()
    if !wasCancelled { onError(error) }
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
