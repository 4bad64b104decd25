import Dispatch
import Foundation
import Synchronization

/// Notices commits that other connections make to a database file — another `Database`,
/// another process, the `sqlite3` shell — and reports each one as "anything may have changed".
///
/// A ``FileChangeSource`` says when the database's files change; then `PRAGMA data_version` on
/// the `Database`'s own writer tells whether that was a commit by another connection: SQLite
/// changes that number for every commit except the connection's own. So the commits made
/// through this `Database`, which ``ChangeCenter`` already reports table by table, are not
/// reported a second time, and nothing is reported for checkpoints, reads or rolled-back work.
///
/// Checks coalesce: at most one runs and one waits, so a burst of events costs a few checks.
/// A check runs at once, and again 2, 10, 50 and 500 ms after the last event, because a WAL
/// commit writes the `-wal` file (the event) a moment before it publishes the commit in the
/// `-shm` index (which has no event): the `sqlite3` shell, at `synchronous = FULL`, syncs the
/// file in between, so its commits were seen only by the 50 ms check (a p50 of 50 ms). The
/// follow-ups run from one timer, re-armed, not from closures scheduled per event.
///
/// This `Database`'s own commits write the `-wal` too, each one an event. A check then finds
/// nothing (`data_version` ignores them) and only takes the writer from the writes. So an event
/// that comes after an own commit (``noteOwnCommit()``) does not check at once: its follow-ups
/// will, 2 ms later. A burst of own writes costs a check every 2 ms instead of one per commit;
/// another connection's commit made during it is seen by the follow-up, and never missed (an
/// event is taken for an own commit's only when this `Database` committed since the event
/// before, so outside such bursts another connection's commit is checked at once, as before).
///
/// It runs only while someone observes: ``retain()`` starts the source with the first observer,
/// ``release()`` stops it (thread ended, descriptors closed) with the last.
final class ExternalCommitWatcher: Sendable {
    private let files: DatabaseFiles
    private let writer: SerializedConnection
    private let onExternalCommit: @Sendable () -> Void
    private let checks = DispatchQueue(label: "LiteRecord.ExternalCommitWatcher")
    /// Serializes starting and stopping the source. Never held while waiting for the writer,
    /// and the source's thread never takes it, so stopping (which waits for that thread)
    /// cannot deadlock.
    private let lifecycle = NSLock()
    private let state = Locked(State())
    /// Counts this `Database`'s commits, on the writer's thread: an atomic, not the lock, since
    /// it costs every commit.
    private let ownCommits = Atomic<Int>(0)
    /// Runs the follow-up checks; armed while some are due. `nonisolated(unsafe)`: Dispatch
    /// does not mark its sources `Sendable`, but they are thread-safe objects, and this one is
    /// only scheduled on the checks queue (cancelled in `deinit`, when no one else has it).
    private nonisolated(unsafe) let followUps: any DispatchSourceTimer

    /// The delays after the last file event at which the check runs again, in nanoseconds.
    static let followUpDelays: [UInt64] = [2_000_000, 10_000_000, 50_000_000, 500_000_000]

    private struct State {
        var users = 0
        var source: (any FileChangeSource)?
        /// Counts starts and stops, so a check that began before one cannot report after it.
        var epoch = 0
        /// The writer's `data_version` at the last check; `nil` when it could not be read.
        var dataVersion: Int64?
        var isChecking = false
        var checksAgain = false
        /// When the last file event came (uptime nanoseconds).
        var lastEvent: UInt64 = 0
        /// When the follow-up timer fires next; `nil` when it is not armed.
        var nextFollowUp: UInt64?
        /// ``ownCommits`` at the last file event.
        var ownCommitsSeen = 0
        /// A file event came that no own commit preceded: check at once.
        var checksAtOnce = false
        /// A call of ``filesDidChange()`` waits on the checks queue.
        var eventIsQueued = false
    }

    /// - Parameters:
    ///   - files: The database's files.
    ///   - writer: The `Database`'s writer, whose `data_version` ignores its own commits.
    ///   - onExternalCommit: Called on a queue of the watcher after each check that found a
    ///     commit made by another connection (several commits may be reported once).
    init(files: DatabaseFiles, writer: SerializedConnection, onExternalCommit: @escaping @Sendable () -> Void)
    {
        self.files = files
        self.writer = writer
        self.onExternalCommit = onExternalCommit
        followUps = DispatchSource.makeTimerSource(queue: checks)
        followUps.setEventHandler { [weak self] in self?.followUpDue() }
        followUps.activate()
    }

    deinit {
        state.withLock { $0.source }?.stop()
        followUps.cancel()
    }

    /// This `Database`'s writer committed: the file event that follows is probably its own.
    func noteOwnCommit() {
        ownCommits.add(1, ordering: .relaxed)
    }

    /// One more observer: the first starts watching. The current `data_version` is read first,
    /// so that a commit made after this returns is reported. When the writer is busy (a long
    /// write), the observer does not wait for it: the first check reads the baseline instead,
    /// and reports a commit once, to be safe (one fetch more).
    func retain() {
        let baseline = writer.withConnectionIfAvailable { Self.dataVersion(on: $0) } ?? nil
        lifecycle.withLock {
            let starts = state.withLock { state in
                state.users += 1
                guard state.users == 1 else { return false }
                state.epoch += 1
                state.dataVersion = baseline
                return true
            }
            guard starts else { return }
            // Off the source's thread at once: the watcher must never be released (and stop the
            // source, waiting for its thread) on that thread.
            let source = FileChangeSources.start(watching: files) { [weak self] in
                self?.fileEventArrived()
            }
            state.withLock { $0.source = source }
            if baseline == nil { requestCheck() }
        }
    }

    /// One observer fewer: the last stops watching, and returns once the source's thread has
    /// ended and its descriptors are closed.
    func release() {
        lifecycle.withLock {
            let source: (any FileChangeSource)? = state.withLock { state in
                state.users -= 1
                guard state.users == 0 else { return nil }
                state.epoch += 1
                defer { state.source = nil }
                return state.source
            }
            source?.stop()
        }
    }

    /// On the source's thread: notes the event, and queues one call of ``filesDidChange()`` for
    /// the events that come before it runs, unless the event needs nothing more: it follows an
    /// own commit and the timer will fire within the first follow-up delay (it then reads
    /// ``State/lastEvent`` to schedule the rest). A burst of own commits thus wakes no thread
    /// but this one.
    private func fileEventArrived() {
        let now = DispatchTime.now().uptimeNanoseconds
        let ownCommits = ownCommits.load(ordering: .relaxed)
        let queues = state.withLock { state in
            state.lastEvent = now
            let followsOwnCommit = state.ownCommitsSeen != ownCommits
            state.ownCommitsSeen = ownCommits
            if !followsOwnCommit { state.checksAtOnce = true }
            let armedInTime = state.nextFollowUp.map { $0 <= now + Self.followUpDelays[0] } ?? false
            guard !(followsOwnCommit && armedInTime), !state.eventIsQueued else { return false }
            state.eventIsQueued = true
            return true
        }
        if queues { checks.async { [weak self] in self?.filesDidChange() } }
    }

    /// On the checks queue: checks at once (unless every event since the last call followed an
    /// own commit), and arms the follow-ups of the last event.
    private func filesDidChange() {
        let (checksNow, arm) = state.withLock { state in
            defer {
                state.eventIsQueued = false
                state.checksAtOnce = false
            }
            let first = state.lastEvent + Self.followUpDelays[0]
            let arm = state.nextFollowUp.map { $0 > first } ?? true
            if arm { state.nextFollowUp = first }
            return (state.checksAtOnce, arm ? first : nil)
        }
        if checksNow { requestCheck() }
        if let arm { followUps.schedule(deadline: DispatchTime(uptimeNanoseconds: arm)) }
    }

    /// On the checks queue, when the timer fires: checks, and arms it for the next follow-up
    /// of the last event, if any is left.
    private func followUpDue() {
        let now = DispatchTime.now().uptimeNanoseconds
        let next = state.withLock { state in
            let lastEvent = state.lastEvent
            let next = Self.followUpDelays.lazy.map { lastEvent + $0 }.first { $0 > now }
            state.nextFollowUp = next
            return next
        }
        requestCheck()
        if let next { followUps.schedule(deadline: DispatchTime(uptimeNanoseconds: next)) }
    }

    /// Starts a check, or asks the running one to check once more when it is done.
    private func requestCheck() {
        let starts = state.withLock { state in
            guard state.users > 0 else { return false }
            if state.isChecking {
                state.checksAgain = true
                return false
            }
            state.isChecking = true
            return true
        }
        if starts {
            checks.async { [self] in checkUntilSettled() }
        }
    }

    private func checkUntilSettled() {
        while true {
            let epoch = state.withLock { $0.epoch }
            let version = readDataVersion()
            let committed = state.withLock { state in
                guard state.epoch == epoch, state.users > 0, let version else { return false }
                defer { state.dataVersion = version }
                return state.dataVersion != version
            }
            if committed { onExternalCommit() }
            let checksAgain = state.withLock { state in
                defer { state.checksAgain = false }
                state.isChecking = state.checksAgain && state.users > 0
                return state.isChecking
            }
            guard checksAgain else { return }
        }
    }

    /// The writer's `PRAGMA data_version`, which changes when another connection commits;
    /// `nil` when it cannot be read (the file is gone, or locked past the busy timeout).
    private func readDataVersion() -> Int64? {
        writer.withConnection { Self.dataVersion(on: $0) }
    }

    private static func dataVersion(on connection: Connection) -> Int64? {
        try? connection.fetchOne(Int64.self, sql: "PRAGMA data_version")
    }
}
