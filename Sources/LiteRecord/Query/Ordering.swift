/// A sort key of a query: a column, ascending or descending, with NULLs first or last.
///
/// Several keys are an array literal: `.order { [$0.team.ascending, $0.score.descending] }`; a
/// column without a direction sorts ascending: `.order { [$0.team, $0.score.descending] }`.
public struct Ordering: ExpressibleByArrayLiteral, OrderingTerm, Sendable {
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

    /// Several sort keys, most significant first; a column alone sorts ascending.
    public init(arrayLiteral elements: any OrderingTerm...) {
        let orderings = elements.map(\.sortOrdering)
        self.terms = orderings.flatMap(\.terms)
        self.keys = orderings.flatMap(\.keys)
        self.error = orderings.lazy.compactMap(\.error).first
    }

    /// This ordering itself.
    public var sortOrdering: Ordering { self }

    /// Where NULLs go.
    public enum Nulls: Sendable {
        /// NULLs come before every value.
        case first
        /// NULLs come after every value.
        case last
    }
}

/// Something a query can sort by: an ``Ordering``, or a ``Column`` (ascending).
public protocol OrderingTerm {
    /// The sort key this term stands for.
    var sortOrdering: Ordering { get }
}

extension Column: OrderingTerm {
    /// The column ascending: a column without a direction in `order` sorts ascending.
    public var sortOrdering: Ordering { ascending }
}

extension Query {
    /// Sorts by a column, ascending (replacing earlier sort keys): `.order { $0.title }`.
    ///
    /// - Parameter column: The column or expression to sort by.
    /// - Returns: The sorted query.
    public func order<Value>(_ column: (Columns<M>) -> Column<Value>) -> Query {
        order { column($0).ascending }
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
