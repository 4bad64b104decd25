#if canImport(Darwin)
    import Darwin
    import Dispatch

    /// Watches a database's files with dispatch sources (kqueue): one on the directory, which
    /// fires when the `-wal` or `-journal` file appears or goes, and one on each of the
    /// database's files that exists.
    ///
    /// Every source runs on one serial queue, which also guards the state below. Stopping
    /// cancels the sources and waits for their cancel handlers, which close the descriptors.
    final class DispatchFileChangeSource: FileChangeSource, @unchecked Sendable {
        // @unchecked Sendable: `directorySource`, `fileSources` and `isStopped` are only read
        // and written on `queue`.
        private let queue = DispatchQueue(label: "LiteRecord.DispatchFileChangeSource")
        private let files: DatabaseFiles
        private let onChange: @Sendable () -> Void
        /// Entered for each source, left by its cancel handler once its descriptor is closed.
        private let openSources = DispatchGroup()
        private var directorySource: (any DispatchSourceFileSystemObject)?
        private var fileSources: [String: WatchedFile] = [:]
        private var isStopped = false

        private struct WatchedFile {
            let source: any DispatchSourceFileSystemObject
            let descriptor: Int32
        }

        /// - Returns: `nil` when the directory cannot be opened for events.
        init?(files: DatabaseFiles, onChange: @escaping @Sendable () -> Void) {
            self.files = files
            self.onChange = onChange
            let descriptor = open(files.directory, O_EVTONLY)
            guard descriptor >= 0 else { return nil }
            queue.sync {
                directorySource = makeSource(
                    descriptor: descriptor, events: [.write, .delete, .rename, .revoke])
                watchFiles()
            }
        }

        func stop() {
            queue.sync {
                isStopped = true
                directorySource?.cancel()
                directorySource = nil
                for file in fileSources.values { file.source.cancel() }
                fileSources = [:]
            }
            openSources.wait()
        }

        /// On `queue`: the directory or one of the files changed.
        private func somethingChanged() {
            guard !isStopped else { return }
            watchFiles()
            onChange()
        }

        /// On `queue`: ends the sources of files deleted or replaced since they were opened,
        /// and starts one on each of the database's files that exists and has none.
        private func watchFiles() {
            for (name, file) in fileSources where !Self.isSameFile(file.descriptor, path: path(of: name)) {
                file.source.cancel()
                fileSources[name] = nil
            }
            for name in files.names where fileSources[name] == nil {
                let descriptor = open(path(of: name), O_EVTONLY)
                guard descriptor >= 0 else { continue }
                let source = makeSource(
                    descriptor: descriptor, events: [.write, .extend, .delete, .rename, .revoke])
                fileSources[name] = WatchedFile(source: source, descriptor: descriptor)
            }
        }

        private func path(of name: String) -> String {
            files.directory + "/" + name
        }

        /// Whether `path` still names the file open as `descriptor`.
        private static func isSameFile(_ descriptor: Int32, path: String) -> Bool {
            var opened = stat()
            var named = stat()
            guard fstat(descriptor, &opened) == 0, stat(path, &named) == 0 else { return false }
            return opened.st_dev == named.st_dev && opened.st_ino == named.st_ino
        }

        /// On `queue`: a running source on `descriptor`, closed when the source is cancelled.
        private func makeSource(descriptor: Int32, events: DispatchSource.FileSystemEvent)
            -> any DispatchSourceFileSystemObject
        {
            let source = DispatchSource.makeFileSystemObjectSource(
                fileDescriptor: descriptor, eventMask: events, queue: queue)
            openSources.enter()
            let group = openSources
            source.setEventHandler { [weak self] in
                self?.somethingChanged()
            }
            source.setCancelHandler {
                close(descriptor)
                group.leave()
            }
            source.resume()
            return source
        }
    }
#endif
