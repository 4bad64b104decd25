import LiteRecord

extension PostgresProjection where T: Sendable {
    /// Every result row, decoded, off the calling task; cancelling the task cancels the query.
    ///
    /// - Returns: The rows.
    /// - Throws: As ``fetchAll()-817ya``; ``LiteRecord/ResultCode/interrupt`` when cancelled.
    public func fetchAll() async throws -> [T] {
        try await runAsync { try $0.fetchAll() }
    }

    /// The first result row, or `nil`, off the calling task.
    ///
    /// - Returns: The row.
    /// - Throws: As ``fetchOne()-7th6u``.
    public func fetchOne() async throws -> T? {
        try await runAsync { try $0.fetchOne() }
    }

    private func runAsync<Result: Sendable>(
        _ work: @escaping @Sendable (PostgresProjection) throws -> Result
    ) async throws -> Result {
        guard let database = rows.target.database else {
            // A query on a transaction runs inside that transaction's closure, on its thread.
            return try work(self)
        }
        return try await database.runCancellable { _ in try work(self) }
    }
}
