// Sorting the roots by a column alone, as `Query.order(_:)` does (kept apart from the
// `Ordering` overload, which a trailing closure could not tell from this one in one file).

extension IncludingQuery {
    /// Sorts the roots by a column, ascending (replacing earlier sort keys).
    ///
    /// - Parameter column: `{ $0.name }`.
    /// - Returns: The sorted query.
    public func order<Value>(_ column: (Columns<Root>) -> Column<Value>) -> Self {
        changingRoots { $0.order(column) }
    }
}
