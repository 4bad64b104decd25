/// A sort key of a query: a column, ascending or descending, with NULLs first or last.
///
/// Several keys are an array literal: `.order { [$0.team.ascending, $0.score.descending] }`.
public struct Ordering: ExpressibleByArrayLiteral {
    /// The sort terms, most significant first.
    let terms: [SQL]
    /// For each term, the plain column it sorts by (`nil` for an expression), which keyset
    /// pagination compares with a cursor (see `Query+Pagination.swift`).
    let keys: [OrderingKey?]
    let error: (any Error)?

    init(sql: SQL, error: (any Error)?, key: OrderingKey? = nil) {
        self.terms = [sql]
        self.keys = [key]
        self.error = error
    }

    /// Several sort keys, most significant first.
    public init(arrayLiteral elements: Ordering...) {
        self.terms = elements.flatMap(\.terms)
        self.keys = elements.flatMap(\.keys)
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
    public var ascending: Ordering {
        Ordering(sql: "\(orderingSQL) ASC", error: error, key: orderingKey(descending: false, nulls: nil))
    }

    /// Largest first; NULLs last.
    public var descending: Ordering {
        Ordering(sql: "\(orderingSQL) DESC", error: error, key: orderingKey(descending: true, nulls: nil))
    }

    /// Smallest first, with NULLs where you say.
    ///
    /// - Parameter nulls: `.first` or `.last`.
    public func ascending(nulls: Ordering.Nulls) -> Ordering {
        Ordering(
            sql: "\(orderingSQL) ASC NULLS \(SQL(nulls == .first ? "FIRST" : "LAST"))", error: error,
            key: orderingKey(descending: false, nulls: nulls))
    }

    /// Largest first, with NULLs where you say.
    ///
    /// - Parameter nulls: `.first` or `.last`.
    public func descending(nulls: Ordering.Nulls) -> Ordering {
        Ordering(
            sql: "\(orderingSQL) DESC NULLS \(SQL(nulls == .first ? "FIRST" : "LAST"))", error: error,
            key: orderingKey(descending: true, nulls: nulls))
    }
}
