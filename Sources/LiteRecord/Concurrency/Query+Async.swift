// Async forms of a query's operations. A query is a `Sendable` value, so they can be awaited
// from any actor (the main actor included); the work runs on the database's own queues. The
// closures that pick a column are `@Sendable` for the same reason: they cross to those queues.

extension Query {
    /// Every matching model, fetched without blocking the caller's thread.
    ///
    /// - Returns: The models, in the query's order.
    /// - Throws: As ``fetchAll()``, or `CancellationError`.
    public func fetchAll() async throws -> [M] {
        try await runAsync(reading: true) { try $0.fetchAll() }
    }

    /// The first matching model, or `nil`.
    ///
    /// - Returns: The model.
    /// - Throws: As ``fetchOne()``, or `CancellationError`.
    public func fetchOne() async throws -> M? {
        try await runAsync(reading: true) { try $0.fetchOne() }
    }

    /// The first matching model, or `nil`; the same as ``fetchOne()-95mgs``.
    ///
    /// - Returns: The model.
    /// - Throws: As ``fetchOne()-95mgs``, or `CancellationError`.
    public func first() async throws -> M? {
        try await fetchOne()
    }

    /// The number of matching rows.
    ///
    /// - Returns: The count.
    /// - Throws: As ``count()``, or `CancellationError`.
    public func count() async throws -> Int {
        try await runAsync(reading: true) { try $0.count() }
    }

    /// Whether any row matches.
    ///
    /// - Returns: Whether one does.
    /// - Throws: As ``exists()``, or `CancellationError`.
    public func exists() async throws -> Bool {
        try await runAsync(reading: true) { try $0.exists() }
    }

    /// The sum of a numeric column over the matching rows; 0 when none match.
    ///
    /// - Parameter column: `{ $0.score }`.
    /// - Returns: The sum.
    /// - Throws: As ``sum(_:)``, or `CancellationError`.
    public func sum<Value: Numeric & Decodable & Sendable>(
        _ column: @Sendable (Columns<M>) -> Column<Value>
    ) async throws -> Value {
        let selected = column(columns)
        return try await runAsync(reading: true) { try $0.sum { _ in selected } }
    }

    /// The smallest value of a column over the matching rows, or `nil` when none match.
    ///
    /// - Parameter column: `{ $0.score }`.
    /// - Returns: The minimum.
    /// - Throws: As ``min(_:)``, or `CancellationError`.
    public func min<Value: Comparable & Decodable & Sendable>(
        _ column: @Sendable (Columns<M>) -> Column<Value>
    ) async throws -> Value? {
        let selected = column(columns)
        return try await runAsync(reading: true) { try $0.min { _ in selected } }
    }

    /// The largest value of a column over the matching rows, or `nil` when none match.
    ///
    /// - Parameter column: `{ $0.score }`.
    /// - Returns: The maximum.
    /// - Throws: As ``max(_:)``, or `CancellationError`.
    public func max<Value: Comparable & Decodable & Sendable>(
        _ column: @Sendable (Columns<M>) -> Column<Value>
    ) async throws -> Value? {
        let selected = column(columns)
        return try await runAsync(reading: true) { try $0.max { _ in selected } }
    }

    /// The average of a numeric column over the matching rows, or `nil` when none match.
    ///
    /// - Parameter column: `{ $0.score }`.
    /// - Returns: The average.
    /// - Throws: As ``average(_:)``, or `CancellationError`.
    public func average<Value: Numeric & Sendable>(
        _ column: @Sendable (Columns<M>) -> Column<Value>
    ) async throws -> Double? {
        let selected = column(columns)
        return try await runAsync(reading: true) { try $0.average { _ in selected } }
    }

    /// Sets columns of every matching row, in one statement, on the writer.
    ///
    /// - Parameter assignments: The columns to set and their new values or expressions.
    /// - Returns: The number of rows changed.
    /// - Throws: As ``updateAll(_:)``, or `CancellationError`.
    @discardableResult
    public func updateAll(
        _ assignments: @Sendable (Columns<M>) -> [ColumnAssignment]
    ) async throws -> Int {
        let sets = assignments(columns)
        return try await runAsync(reading: false) { try $0.updateAll { _ in sets } }
    }

    /// Deletes every matching row.
    ///
    /// - Returns: The number of rows deleted.
    /// - Throws: As ``deleteAll()``, or `CancellationError`.
    @discardableResult
    public func deleteAll() async throws -> Int {
        try await runAsync(reading: false) { try $0.deleteAll() }
    }

    /// Runs the synchronous form on the query's database, off the caller's thread; a query
    /// built on a transaction's connection runs right there, as it must (and only there).
    func runAsync<T: Sendable>(
        reading: Bool, _ body: @escaping @Sendable (Query) throws -> T
    ) async throws -> T {
        if let backend { return try await backend.run { try body(self) } }
        guard let database = target.database else { return try body(self) }
        if reading {
            return try await database.asyncReading(preparing: M.self) { try body(self.on($0)) }
        }
        return try await database.asyncWriting { try body(self.on($0)) }
    }
}

extension Query {
    /// Every model `matching(_:)` finds, each with a snippet of one indexed property, fetched
    /// without blocking the caller's thread.
    ///
    /// - Parameters:
    ///   - property: An indexed property (one of `fullTextSearch(on:)`'s).
    ///   - style: How words are marked and the text shortened.
    /// - Returns: Each model with its snippet, in the query's order.
    /// - Throws: As the synchronous `fetchAll(withSnippetsOf:style:)`, or `CancellationError`.
    public func fetchAll(
        withSnippetsOf property: PartialKeyPath<M> & Sendable, style: SnippetStyle = SnippetStyle()
    ) async throws -> [(M, String)] {
        try await runAsync(reading: true) { try $0.fetchAll(withSnippetsOf: property, style: style) }
    }
}

extension Projection where T: Sendable {
    /// Every result row, decoded, fetched without blocking the caller's thread.
    ///
    /// - Returns: The rows.
    /// - Throws: As ``fetchAll()``, or `CancellationError`.
    public func fetchAll() async throws -> [T] {
        try await query.runAsync(reading: true) { try Projection(query: $0, selection: selection).fetchAll() }
    }

    /// The first result row, or `nil`.
    ///
    /// - Returns: The row.
    /// - Throws: As ``fetchOne()``, or `CancellationError`.
    public func fetchOne() async throws -> T? {
        try await query.runAsync(reading: true) { try Projection(query: $0, selection: selection).fetchOne() }
    }
}
