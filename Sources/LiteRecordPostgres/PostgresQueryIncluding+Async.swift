import Foundation
import LiteRecord

// Async forms of the eager loads, as `PostgresQuery` has: off the calling task, and cancelling
// the task cancels the statement running on the server.

extension PostgresQueryIncludingAll where Root: Sendable, Target: Sendable {
    /// Every matching root with its related rows, off the calling task.
    ///
    /// - Returns: As ``fetchAll()``.
    /// - Throws: As ``fetchAll()``; ``LiteRecord/ResultCode/interrupt`` when cancelled.
    public func fetchAll() async throws -> [(Root, [Target])] {
        let fetch: () throws -> [(Root, [Target])] = fetchAll
        guard let database = target.database else {
            // A query on a transaction runs inside that transaction's closure, on its thread.
            return try fetch()
        }
        let query = UncheckedSendable(fetch)
        return try await database.runCancellable { _ in try query.value() }
    }
}

extension PostgresQueryIncludingOne where Root: Sendable, Target: Sendable {
    /// Every matching root with its related row, off the calling task.
    ///
    /// - Returns: As ``fetchAll()``.
    /// - Throws: As ``fetchAll()``; ``LiteRecord/ResultCode/interrupt`` when cancelled.
    public func fetchAll() async throws -> [(Root, Target?)] {
        let all: [(Root, [Target])] = try await all.fetchAll()
        return all.map { ($0.0, $0.1.first) }
    }
}
