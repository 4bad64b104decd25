// Sorting the roots by a column alone, as `Query.order(_:)` does (kept apart from the
// `Ordering` overloads, which a trailing closure could not tell from these in one file).

extension QueryIncludingAll {
    /// Sorts the roots by a column, ascending (replacing earlier sort keys).
    ///
    /// - Parameter column: `{ $0.name }`.
    /// - Returns: The sorted query.
    public func order<Value>(_ column: (Columns<Root>) -> Column<Value>) -> Self {
        Self(root: root.order(column), children: children, load: load)
    }
}

extension QueryIncludingOne {
    /// Sorts the roots by a column, ascending (replacing earlier sort keys).
    ///
    /// - Parameter column: `{ $0.title }`.
    /// - Returns: The sorted query.
    public func order<Value>(_ column: (Columns<Root>) -> Column<Value>) -> Self {
        Self(all: all.order(column))
    }
}
