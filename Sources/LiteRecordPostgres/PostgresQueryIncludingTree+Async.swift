import LiteRecord

// Async forms and column ordering of nested `including` queries on PostgreSQL (the column
// overloads kept apart from the `Ordering` ones, as LiteRecord's QueryIncludingTree+Async.swift
// does).

extension PostgresQueryIncludingAllTree {
    /// Sorts the roots by a column, ascending (replacing earlier sort keys).
    ///
    /// - Parameter column: `{ $0.name }`.
    /// - Returns: The sorted query.
    public func order<Value>(_ column: (Columns<Root>) -> Column<Value>) -> Self {
        with { $0.order(column) }
    }

    /// Every matching root with its tree of related rows, off the calling task.
    ///
    /// - Returns: As ``fetchAll()-39jda``.
    /// - Throws: As ``fetchAll()-39jda``; ``LiteRecord/ResultCode/interrupt`` when cancelled.
    public func fetchAll() async throws -> [(Root, [Children.Element])] {
        try await postgresRelationTree.fetchAsync { $0 }
    }
}

extension PostgresQueryIncludingOneTree {
    /// Sorts the roots by a column, ascending (replacing earlier sort keys).
    ///
    /// - Parameter column: `{ $0.title }`.
    /// - Returns: The sorted query.
    public func order<Value>(_ column: (Columns<Root>) -> Column<Value>) -> Self {
        with { $0.order(column) }
    }

    /// Every matching root with its related row and that row's own, off the calling task.
    ///
    /// - Returns: As ``fetchAll()-92uf8``.
    /// - Throws: As ``fetchAll()-92uf8``; ``LiteRecord/ResultCode/interrupt`` when cancelled.
    public func fetchAll() async throws -> [(Root, Child.Element?)] {
        try await postgresRelationTree.fetchAsync { $0 }
    }
}
