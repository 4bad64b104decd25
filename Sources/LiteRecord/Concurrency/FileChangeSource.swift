import Foundation

/// Reports that the files holding a database may have changed: from the kernel's file events
/// where the platform has them (inotify on Linux, dispatch sources on Apple platforms), or from
/// a slow timer elsewhere.
///
/// A report only says "look again": ``ExternalCommitWatcher`` then asks SQLite whether a commit
/// happened. Reports come on a thread of the source; the callback must return quickly.
protocol FileChangeSource: Sendable {
    /// Stops reporting. When it returns, no report runs any more, and the source's thread (if
    /// any) has ended and its file descriptors are closed.
    func stop()
}

/// The files whose changes can mean a commit: the database, its `-wal` and its `-journal`, all in
/// one directory (SQLite always puts them side by side).
struct DatabaseFiles: Sendable, Equatable {
    /// The directory that holds the database.
    let directory: String
    /// The database file's name and the names of its `-wal` and `-journal` files.
    let names: Set<String>

    /// - Parameter databasePath: The absolute path SQLite reports for the main database;
    ///   empty for in-memory and temporary databases, which have nothing to watch.
    init?(databasePath: String) {
        guard !databasePath.isEmpty else { return nil }
        let url = URL(fileURLWithPath: databasePath)
        let name = url.lastPathComponent
        guard !name.isEmpty else { return nil }
        self.directory = url.deletingLastPathComponent().path
        self.names = [name, name + "-wal", name + "-journal"]
    }
}

enum FileChangeSources {
    /// How often the fallback source reports, where no file events are available.
    static let pollingInterval = 1.0

    /// Starts the best source this platform offers for `files`.
    ///
    /// - Parameters:
    ///   - files: What to watch.
    ///   - onChange: Called on the source's thread after each batch of changes.
    /// - Returns: A running source; stop it with ``FileChangeSource/stop()``.
    static func start(watching files: DatabaseFiles, onChange: @escaping @Sendable () -> Void)
        -> any FileChangeSource
    {
        #if canImport(Glibc)
            if let source = InotifyFileChangeSource(files: files, onChange: onChange) { return source }
        #elseif canImport(Darwin)
            if let source = DispatchFileChangeSource(files: files, onChange: onChange) { return source }
        #endif
        return PollingFileChangeSource(interval: pollingInterval, onChange: onChange)
    }
}

/// The fallback: reports every `interval` seconds on a thread of its own, where the platform
/// offers no file events (or the directory cannot be watched).
final class PollingFileChangeSource: FileChangeSource {
    private let wake = DispatchSemaphore(value: 0)
    private let finished = DispatchSemaphore(value: 0)
    private let isStopping = Locked(false)

    init(interval: Double, onChange: @escaping @Sendable () -> Void) {
        let thread = Thread { [wake, finished, isStopping] in
            Thread.current.name = "lrw-poll"
            while true {
                _ = wake.wait(timeout: .now() + interval)
                if isStopping.withLock({ $0 }) { break }
                onChange()
            }
            finished.signal()
        }
        thread.start()
    }

    func stop() {
        let isFirstStop = isStopping.withLock { stopping in
            defer { stopping = true }
            return !stopping
        }
        guard isFirstStop else { return }
        wake.signal()
        finished.wait()
    }
}
