import Dispatch
import Foundation

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
/// file in between, so its commits were seen only by the 50 ms check (a p50 of 50 ms). It runs only while someone observes: ``retain()`` starts the
/// source with the first observer, ``release()`` stops it (thread ended, descriptors closed)
/// with the last.
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

    /// The delays after the last file event at which the check runs again.
    static let followUpDelays: [Double] = [0.002, 0.01, 0.05, 0.5]

    private struct State {
        var users = 0
        var source: (any FileChangeSource)?
        /// Counts starts and stops, so a check that began before one cannot report after it.
        var epoch = 0
        /// The writer's `data_version` at the last check; `nil` when it could not be read.
        var dataVersion: Int64?
        var isChecking = false
        var checksAgain = false
        /// Counts batches of file events, so only the follow-ups of the last one run.
        var eventBatch = 0
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
    }

    deinit {
        state.withLock { $0.source }?.stop()
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
            let checks = checks
            let source = FileChangeSources.start(watching: files) { [weak self] in
                checks.async { [weak self] in self?.filesDidChange() }
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

    private func filesDidChange() {
        let batch = state.withLock { state in
            state.eventBatch += 1
            return state.eventBatch
        }
        requestCheck()
        for delay in Self.followUpDelays {
            checks.asyncAfter(deadline: .now() + delay) { [weak self] in
                guard let self, state.withLock({ $0.eventBatch == batch }) else { return }
                requestCheck()
            }
        }
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
