/// A sort key of a query: a column, ascending or descending, with NULLs first or last.
///
/// Several keys are an array literal: `.order { [$0.team.ascending, $0.score.descending] }`.
public struct Ordering: ExpressibleByArrayLiteral, Sendable {
    /// The sort terms, most significant first.
    let terms: [SQL]
    let error: (any Error)?

    init(sql: SQL, error: (any Error)?) {
        self.terms = [sql]
        self.error = error
    }

    /// Several sort keys, most significant first.
    public init(arrayLiteral elements: Ordering...) {
        self.terms = elements.flatMap(\.terms)
        self.error = elements.lazy.compactMap(\.error).first
    }

    /// Where NULLs go.
    public enum Nulls: Sendable {
        case first, last
    }
}

extension Column {
    /// Smallest first. NULLs come first, as in SQLite (and as `nil` sorts before values in
    /// LiteRecord's documentation of Swift optionals).
    public var ascending: Ordering { Ordering(sql: "\(orderingSQL) ASC", error: error) }

    /// Largest first; NULLs last.
    public var descending: Ordering { Ordering(sql: "\(orderingSQL) DESC", error: error) }

    /// Smallest first, with NULLs where you say.
    ///
    /// - Parameter nulls: `.first` or `.last`.
    public func ascending(nulls: Ordering.Nulls) -> Ordering {
        Ordering(sql: "\(orderingSQL) ASC NULLS \(SQL(nulls == .first ? "FIRST" : "LAST"))", error: error)
    }

    /// Largest first, with NULLs where you say.
    ///
    /// - Parameter nulls: `.first` or `.last`.
    public func descending(nulls: Ordering.Nulls) -> Ordering {
        Ordering(sql: "\(orderingSQL) DESC NULLS \(SQL(nulls == .first ? "FIRST" : "LAST"))", error: error)
    }
}
