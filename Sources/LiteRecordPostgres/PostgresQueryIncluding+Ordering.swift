import LiteRecord

// Sorting the roots by a column alone (kept apart from the `Ordering` overloads, which a
// trailing closure could not tell from these in one file), as LiteRecord's
// QueryIncluding+Ordering.swift does.

extension PostgresQueryIncludingAll {
    /// Sorts the roots by a column, ascending (replacing earlier sort keys).
    ///
    /// - Parameter column: `{ $0.name }`.
    /// - Returns: The sorted query.
    public func order<Value>(_ column: (Columns<Root>) -> Column<Value>) -> Self {
        with { $0.order(column) }
    }
}

extension PostgresQueryIncludingOne {
    /// Sorts the roots by a column, ascending (replacing earlier sort keys).
    ///
    /// - Parameter column: `{ $0.title }`.
    /// - Returns: The sorted query.
    public func order<Value>(_ column: (Columns<Root>) -> Column<Value>) -> Self {
        Self(all: all.order(column))
    }
}
