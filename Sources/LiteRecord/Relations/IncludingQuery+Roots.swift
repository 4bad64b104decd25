// Narrowing, sorting and limiting the roots of every `including` query, written once through
// `changingRoots(_:)`: each root still comes with all its related rows.

extension IncludingQuery {
    /// Keeps the roots for which the condition holds.
    ///
    /// - Parameter condition: `{ $0.name == "Tolkien" }`.
    /// - Returns: The narrowed query.
    public func `where`(_ condition: (Columns<Root>) -> Condition) -> Self {
        changingRoots { $0.where(condition) }
    }

    /// Sorts the roots (replacing earlier sort keys).
    ///
    /// - Parameter ordering: `{ $0.name.ascending }`.
    /// - Returns: The sorted query.
    public func order(_ ordering: (Columns<Root>) -> Ordering) -> Self {
        changingRoots { $0.order(ordering) }
    }

    /// Returns at most `count` roots, after skipping `offset`; each still has all its related rows.
    ///
    /// - Parameters:
    ///   - count: The maximum number of roots.
    ///   - offset: How many roots to skip first.
    /// - Returns: The limited query.
    public func limit(_ count: Int, offset: Int? = nil) -> Self {
        changingRoots { $0.limit(count, offset: offset) }
    }
}
