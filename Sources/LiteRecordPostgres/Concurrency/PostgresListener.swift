import CLibPQ
import Foundation
import LiteRecord

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The one connection of a ``PostgresDatabase`` that waits for `NOTIFY`s, and its thread.
///
/// The connection is not taken from the pool: it stays in `LISTEN` for as long as anything
/// observes. Only the listener's thread uses it. That thread sleeps in `poll` on the
/// connection's socket and on a pipe that other threads write to when they need it: to `LISTEN`
/// to more channels, to `UNLISTEN` channels nobody wants, or to stop. Each notification is
/// handed to the subscribers of its channel, which must return at once (they only schedule
/// work).
final class PostgresListener: @unchecked Sendable {
    // @unchecked Sendable: `connection` is used only by the listener's thread (and closed after
    // it ended); everything in `state` is read and written under `condition`.

    /// Called with the channels that were notified.
    typealias Handler = @Sendable (Set<String>) -> Void
    /// Called once when the listening connection fails; the listener then stops.
    typealias FailureHandler = @Sendable (any Error) -> Void

    private struct Subscriber {
        var channels: Set<String> = []
        let handler: Handler
        let onFailure: FailureHandler
    }

    private struct State {
        var subscribers: [Int: Subscriber] = [:]
        var listening: Set<String> = []
        /// Bumped by each request for more channels; the thread reports the last it served.
        var requested = 0
        var served = 0
        var failure: (any Error)?
        var isStopping = false
        var hasExited = false
    }

    /// Closed by the thread as it ends, so that stopping leaves no session on the server.
    private var connection: PostgresConnection?
    /// The server process of the listening connection, to find it in `pg_stat_activity`.
    let backendPID: Int32
    private let condition = NSCondition()
    private var state = State()
    /// Written to wake the thread; read (drained) by the thread.
    private let wakeRead: Int32
    private let wakeWrite: Int32
    private var thread: Thread?

    /// Connects and starts the thread.
    ///
    /// - Throws: ``LiteRecord/DatabaseError`` when the server cannot be reached.
    init(url: String) throws {
        let connection = try PostgresConnection(url: url)
        _ = try connection.execute("SET application_name = 'literecord listener'")
        self.connection = connection
        backendPID = PQbackendPID(connection.handle)
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else {
            throw DatabaseError(
                backendName: "PostgreSQL", resultCode: .ioError,
                message: "cannot create the listener's wake-up pipe")
        }
        (wakeRead, wakeWrite) = (fds[0], fds[1])
        for fd in fds { _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) }
        let thread = Thread { [self] in run() }
        thread.name = "LiteRecordPostgres listener"
        self.thread = thread
        thread.start()
    }

    deinit {
        close(wakeRead)
        close(wakeWrite)
    }

    /// Whether the thread has finished.
    var hasExited: Bool {
        condition.lock()
        defer { condition.unlock() }
        return state.hasExited
    }

    // MARK: - Subscribers

    /// Registers a subscriber that listens to no channel yet.
    func addSubscriber(_ id: Int, handler: @escaping Handler, onFailure: @escaping FailureHandler) {
        condition.lock()
        state.subscribers[id] = Subscriber(handler: handler, onFailure: onFailure)
        condition.unlock()
    }

    /// Listens to `channels` for the subscriber; returns once the server confirmed `LISTEN`
    /// for each, so that every commit from then on is notified.
    ///
    /// - Throws: The error of `LISTEN`, or of the connection.
    func listen(_ channels: Set<String>, for id: Int) throws {
        condition.lock()
        defer { condition.unlock() }
        if let failure = state.failure { throw failure }
        state.subscribers[id]?.channels.formUnion(channels)
        guard !channels.isSubset(of: state.listening) else { return }
        state.requested += 1
        let request = state.requested
        wake()
        while state.served < request && state.failure == nil && !state.hasExited { condition.wait() }
        if let failure = state.failure { throw failure }
    }

    /// Removes a subscriber; its channels are unlistened when nobody else wants them.
    ///
    /// - Returns: How many subscribers remain.
    func removeSubscriber(_ id: Int) -> Int {
        condition.lock()
        state.subscribers[id] = nil
        let remaining = state.subscribers.count
        condition.unlock()
        wake()
        return remaining
    }

    /// Stops the thread and waits until it has finished (unless called on it), then closes
    /// the connection.
    func stop() {
        condition.lock()
        state.isStopping = true
        condition.unlock()
        wake()
        condition.lock()
        defer { condition.unlock() }
        guard Thread.current !== thread else { return }
        while !state.hasExited { condition.wait() }
    }

    private func wake() {
        var byte: UInt8 = 1
        _ = write(wakeWrite, &byte, 1)
    }

    // MARK: - The thread

    private func run() {
        defer {
            connection = nil
            condition.lock()
            state.hasExited = true
            thread = nil
            condition.broadcast()
            condition.unlock()
        }
        do {
            while try serveRequests() {
                try waitForInput()
                deliver(try receivedChannels())
            }
        } catch {
            fail(error)
        }
    }

    /// Runs the `LISTEN`s and `UNLISTEN`s the subscribers call for.
    ///
    /// - Returns: Whether to go on (false once stopping).
    private func serveRequests() throws -> Bool {
        condition.lock()
        let isStopping = state.isStopping
        let wanted = state.subscribers.values.reduce(into: Set<String>()) { $0.formUnion($1.channels) }
        let listening = state.listening
        let request = state.requested
        condition.unlock()
        if isStopping { return false }
        for channel in wanted.subtracting(listening).sorted() {
            _ = try connected().execute(SQL(verbatim: "LISTEN \(SQL.quoteIdentifier(channel))"))
        }
        for channel in listening.subtracting(wanted).sorted() {
            _ = try connected().execute(SQL(verbatim: "UNLISTEN \(SQL.quoteIdentifier(channel))"))
        }
        condition.lock()
        state.listening = wanted
        state.served = request
        condition.broadcast()
        condition.unlock()
        // Notifications that arrived while those commands ran wait in libpq's queue.
        deliver(try receivedChannels())
        return true
    }

    /// Sleeps until the server sends something or another thread wakes us.
    private func waitForInput() throws {
        let socket = PQsocket(try connected().handle)
        guard socket >= 0 else { throw listenerError("the listening connection has no socket") }
        var fds = [
            pollfd(fd: socket, events: Int16(POLLIN), revents: 0),
            pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0),
        ]
        while poll(&fds, nfds_t(fds.count), -1) < 0 {
            guard errno == EINTR else { throw listenerError("poll failed (errno \(errno))") }
        }
        if fds[1].revents != 0 {
            var buffer = [UInt8](repeating: 0, count: 64)
            while read(wakeRead, &buffer, buffer.count) > 0 {}
        }
    }

    /// Reads what the server sent and returns the channels notified.
    private func receivedChannels() throws -> Set<String> {
        let connection = try connected()
        guard PQconsumeInput(connection.handle) == 1 else {
            throw listenerError(
                "the listening connection failed: "
                    + String(cString: PQerrorMessage(connection.handle)).trimmingCharacters(
                        in: .whitespacesAndNewlines))
        }
        var channels: Set<String> = []
        while let notification = PQnotifies(connection.handle) {
            channels.insert(String(cString: notification.pointee.relname))
            PQfreemem(notification)
        }
        return channels
    }

    private func deliver(_ channels: Set<String>) {
        guard !channels.isEmpty else { return }
        condition.lock()
        let subscribers = Array(state.subscribers.values)
        condition.unlock()
        for subscriber in subscribers {
            let touched = subscriber.channels.intersection(channels)
            if !touched.isEmpty { subscriber.handler(touched) }
        }
    }

    private func fail(_ error: any Error) {
        condition.lock()
        state.failure = error
        let subscribers = Array(state.subscribers.values)
        condition.broadcast()
        condition.unlock()
        for subscriber in subscribers { subscriber.onFailure(error) }
    }

    private func connected() throws -> PostgresConnection {
        guard let connection else { throw listenerError("the listening connection is closed") }
        return connection
    }

    private func listenerError(_ message: String) -> DatabaseError {
        DatabaseError(backendName: "PostgreSQL", resultCode: .ioError, message: "observation: " + message)
    }
}
