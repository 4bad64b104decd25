import Foundation
import LiteRecord

/// The connections of one ``PostgresDatabase``: opened on demand up to a maximum, each lent to
/// one operation at a time; an operation beyond the maximum waits for a connection.
final class PostgresPool: @unchecked Sendable {
    // @unchecked Sendable: every stored property is guarded by `condition`, and a connection is
    // handed to one thread at a time (taken out of `idle` under the lock, put back under it).
    private let url: String
    private let maximum: Int
    private let condition = NSCondition()
    private var idle: [PostgresConnection] = []
    private var openCount = 0

    init(url: String, maximum: Int) {
        self.url = url
        self.maximum = max(1, maximum)
    }

    /// Keeps a connection opened before the pool existed (the one that checked the URL).
    func adopt(_ connection: PostgresConnection) {
        condition.lock()
        openCount += 1
        idle.append(connection)
        condition.unlock()
    }

    /// Runs `body` with a connection, returning it to the pool afterwards; a connection left
    /// broken or inside a transaction is closed rather than reused.
    func withConnection<T>(_ body: (PostgresConnection) throws -> T) throws -> T {
        let connection = try take()
        defer { giveBack(connection) }
        // An async operation's task may cancel what runs on this connection (PQcancel).
        if let tracker = CancellationTracker.current {
            try tracker.begin(connection.canceller)
            defer { tracker.end() }
            return try body(connection)
        }
        return try body(connection)
    }

    private func take() throws -> PostgresConnection {
        condition.lock()
        while idle.isEmpty && openCount >= maximum { condition.wait() }
        if let connection = idle.popLast() {
            condition.unlock()
            return connection
        }
        openCount += 1
        condition.unlock()
        do {
            return try PostgresConnection(url: url)
        } catch {
            condition.lock()
            openCount -= 1
            condition.signal()
            condition.unlock()
            throw error
        }
    }

    private func giveBack(_ connection: PostgresConnection) {
        let healthy = connection.isHealthy
        condition.lock()
        if healthy {
            idle.append(connection)
        } else {
            openCount -= 1
        }
        condition.signal()
        condition.unlock()
    }
}
