#if canImport(Glibc)
    import Foundation
    import Glibc

    /// Watches a database's directory with inotify, on a thread of its own that sleeps in
    /// `poll` until the kernel reports a change of the database, its `-wal` or its `-journal`.
    ///
    /// The directory is watched rather than the files: the `-wal` and `-journal` files come and
    /// go, and a watch on the directory sees them appear. The thread is named `lrw-<inode of the
    /// directory>` (Linux keeps 15 characters), so tools and tests can tell which directory it
    /// watches. It owns one file descriptor, the inotify instance; stopping removes the watch,
    /// which queues `IN_IGNORED` and so wakes the thread, joins it, then closes the descriptor
    /// (closing it under a thread blocked in `poll` would race with its reuse).
    final class InotifyFileChangeSource: FileChangeSource {
        private let descriptor: Int32
        private let watch: Int32
        private let isStopping = Locked(false)
        private let thread: pthread_t

        /// Events that can mean new content: writes, and files created, deleted or renamed
        /// (a `-journal` deleted is a commit in rollback-journal mode).
        private static let mask: UInt32 =
            UInt32(IN_MODIFY) | UInt32(IN_CLOSE_WRITE) | UInt32(IN_CREATE) | UInt32(IN_DELETE)
            | UInt32(IN_MOVED_FROM) | UInt32(IN_MOVED_TO)

        /// - Returns: `nil` when inotify is unavailable or the directory cannot be watched.
        init?(files: DatabaseFiles, onChange: @escaping @Sendable () -> Void) {
            let descriptor = inotify_init1(Int32(IN_NONBLOCK) | Int32(IN_CLOEXEC))
            guard descriptor >= 0 else { return nil }
            let watch = inotify_add_watch(descriptor, files.directory, Self.mask)
            guard watch >= 0 else {
                close(descriptor)
                return nil
            }
            var status = stat()
            let inode = stat(files.directory, &status) == 0 ? UInt64(status.st_ino) : 0
            self.descriptor = descriptor
            self.watch = watch
            let work = WatcherThreadWork(
                name: "lrw-\(inode % 100_000_000_000)", descriptor: descriptor, names: files.names,
                isStopping: isStopping, onChange: onChange)
            var thread = pthread_t()
            let context = Unmanaged.passRetained(work).toOpaque()
            guard pthread_create(&thread, nil, { InotifyFileChangeSource.threadMain($0) }, context) == 0
            else {
                Unmanaged<WatcherThreadWork>.fromOpaque(context).release()
                inotify_rm_watch(descriptor, watch)
                close(descriptor)
                return nil
            }
            self.thread = thread
        }

        func stop() {
            let isFirstStop = isStopping.withLock { stopping in
                defer { stopping = true }
                return !stopping
            }
            guard isFirstStop else { return }
            // Fails harmlessly when the watch is already gone (the directory was deleted).
            inotify_rm_watch(descriptor, watch)
            // Joined, not signalled: the thread is gone (and its name with it) when this returns.
            pthread_join(thread, nil)
            close(descriptor)
        }

        /// What the watcher thread needs, handed to it through `pthread_create`'s context pointer.
        private final class WatcherThreadWork: Sendable {
            let name: String
            let descriptor: Int32
            let names: Set<String>
            let isStopping: Locked<Bool>
            let onChange: @Sendable () -> Void

            init(
                name: String, descriptor: Int32, names: Set<String>, isStopping: Locked<Bool>,
                onChange: @escaping @Sendable () -> Void
            ) {
                self.name = name
                self.descriptor = descriptor
                self.names = names
                self.isStopping = isStopping
                self.onChange = onChange
            }
        }

        /// The thread's entry point: names the thread before it watches, so it can be told apart.
        private static func threadMain(_ context: UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? {
            guard let context else { return nil }
            let work = Unmanaged<WatcherThreadWork>.fromOpaque(context).takeRetainedValue()
            nameCurrentThread(work.name)
            run(
                descriptor: work.descriptor, names: work.names, isStopping: work.isStopping,
                onChange: work.onChange)
            return nil
        }

        /// Names the calling thread the way `pthread_setname_np` does (which Swift's Glibc module
        /// does not export): by writing its `comm` file, synchronously, before anyone looks for it.
        private static func nameCurrentThread(_ name: String) {
            let file = open("/proc/thread-self/comm", O_WRONLY | O_CLOEXEC)
            guard file >= 0 else { return }
            defer { close(file) }
            // Linux keeps 15 bytes of a thread's name.
            let bytes = Array(name.utf8.prefix(15))
            _ = bytes.withUnsafeBytes { write(file, $0.baseAddress, $0.count) }
        }

        /// The thread's loop: sleep until events arrive, report those about the database's
        /// files, end when stopped or when the watch is gone.
        private static func run(
            descriptor: Int32, names: Set<String>, isStopping: Locked<Bool>,
            onChange: @Sendable () -> Void
        ) {
            // Room for many events at once; each is a 16-byte header and a padded name.
            var buffer = [UInt8](repeating: 0, count: 16 * 1024)
            while true {
                var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
                if poll(&poller, 1, -1) < 0 {
                    if errno == EINTR { continue }
                    return
                }
                let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
                if count < 0 {
                    if errno == EINTR || errno == EAGAIN { continue }
                    return
                }
                let batch = EventBatch(buffer[0..<count], names: names)
                if isStopping.withLock({ $0 }) { return }
                if batch.isRelevant { onChange() }
                if batch.watchIsGone { return }
            }
        }

        /// What one `read` of the inotify descriptor says.
        private struct EventBatch {
            /// An event concerned the database's files, or events were lost (queue overflow).
            var isRelevant = false
            /// The kernel removed the watch (the directory was deleted or unmounted, or `stop`).
            var watchIsGone = false

            init(_ bytes: ArraySlice<UInt8>, names: Set<String>) {
                // struct inotify_event { int wd; uint32_t mask; uint32_t cookie; uint32_t len; char name[]; }
                let headerSize = 16
                var offset = bytes.startIndex
                while offset + headerSize <= bytes.endIndex {
                    let mask = Self.word(bytes, at: offset + 4)
                    let length = Int(Self.word(bytes, at: offset + 12))
                    let nameStart = offset + headerSize
                    let nameEnd = min(nameStart + length, bytes.endIndex)
                    if mask & UInt32(IN_Q_OVERFLOW) != 0 { isRelevant = true }
                    if mask & UInt32(IN_IGNORED) != 0 { watchIsGone = true }
                    if length > 0 {
                        let raw = bytes[nameStart..<nameEnd]
                        let name = String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
                        if names.contains(name) { isRelevant = true }
                    }
                    offset = nameStart + length
                }
            }

            /// A field of the header, in the machine's byte order.
            private static func word(_ bytes: ArraySlice<UInt8>, at offset: Int) -> UInt32 {
                bytes.withUnsafeBytes {
                    $0.loadUnaligned(fromByteOffset: offset - bytes.startIndex, as: UInt32.self)
                }
            }
        }
    }
#endif
