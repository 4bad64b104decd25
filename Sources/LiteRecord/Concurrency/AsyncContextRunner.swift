/// The connection an async operation of ``ModelDatabase`` needs.
package enum AsyncWork: Sendable {
    /// A write: on SQLite, the writer connection, outside any transaction.
    case writing
    /// A read of raw SQL: on SQLite, a reader connection when the database has readers.
    case reading
    /// A read of a model's table: on SQLite, a reader, once the writer made sure the table
    /// exists (a read alone never creates it).
    case readingModel(any Model.Type)
}

/// A backend that runs the async model and SQL operations of ``ModelDatabase`` its own way.
///
/// The operations themselves are written once, in `ModelDatabase+Async.swift`, against the
/// synchronous ``ModelContext`` the backend hands over. What differs is where they run: SQLite
/// queues the work on its writer or reader queue and interrupts the connection when the task
/// is cancelled; PostgreSQL runs it on a thread of its own and cancels the statement on the
/// server. A package protocol, so that it stays out of the public API; a type that adopts
/// ``ModelDatabase`` without it runs the operations in its async `write` and `read`.
package protocol AsyncContextRunner: Sendable {
    /// Runs `body` off the calling task on a context suited to `work`.
    ///
    /// - Parameters:
    ///   - work: The kind of connection the operation needs.
    ///   - body: The synchronous operation.
    /// - Returns: What `body` returns.
    /// - Throws: What `body` throws, or the backend's cancellation error.
    func runOffTask<T: Sendable>(
        _ work: AsyncWork, _ body: @escaping @Sendable (any ModelContext) throws -> T
    )
        async throws -> T
}

extension Database: AsyncContextRunner {
    package func runOffTask<T: Sendable>(
        _ work: AsyncWork, _ body: @escaping @Sendable (any ModelContext) throws -> T
    ) async throws -> T {
        switch work {
        case .writing: try await asyncWriting { try body($0) }
        case .reading: try await asyncReading { try body($0) }
        case .readingModel(let type): try await asyncReading(preparing: type) { try body($0) }
        }
    }
}
