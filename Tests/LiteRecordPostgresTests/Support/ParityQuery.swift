import Foundation
import LiteRecord
import LiteRecordPostgres

/// A query of either backend (LiteRecord's `Query` on both), with the operations the
/// parity checks run, so that one source builds both. Every requirement is the libraries' own
/// method, of the same signature on both: the conformances add nothing but the projections.
protocol ParityQuery<M>: ParityOptionalColumnAggregates {
    associatedtype M: Model
    func `where`(_ condition: (Columns<M>) -> Condition) -> Self
    func order(_ ordering: (Columns<M>) -> Ordering) -> Self
    func limit(_ count: Int, offset: Int?) -> Self
    func offset(_ count: Int) -> Self
    func distinct() -> Self
    func group(by keyPaths: PartialKeyPath<M>...) -> Self
    func page(after cursor: M?, limit: Int) -> Self
    func matching(_ text: String) -> Self
    func `where`<Related: Model>(_ related: Related.Type, _ condition: (Columns<Related>) -> Condition)
        -> Self
    func `where`<Related: Model>(
        _ related: Related.Type, via key: PartialKeyPath<M>, _ condition: (Columns<Related>) -> Condition
    ) -> Self
    func `where`<Related: Model>(any related: Related.Type, _ condition: (Columns<Related>) -> Condition)
        -> Self
    func `where`<Related: Model>(
        any related: Related.Type, via key: PartialKeyPath<Related>,
        _ condition: (Columns<Related>) -> Condition
    ) -> Self
    func count() throws -> Int
    func fetchAll() throws -> [M]
    func forEach(_ body: (M) throws -> Void) throws
    func fetchAll(withSnippetsOf property: PartialKeyPath<M>, style: SnippetStyle) throws -> [(M, String)]
    func updateAll(_ assignments: (Columns<M>) -> [ColumnAssignment]) throws -> Int
    func deleteAll() throws -> Int
    func sum<Value: Numeric & Decodable>(_ column: (Columns<M>) -> Column<Value>) throws -> Value
    func min<Value: Comparable & Decodable>(_ column: (Columns<M>) -> Column<Value>) throws -> Value?
    func max<Value: Comparable & Decodable>(_ column: (Columns<M>) -> Column<Value>) throws -> Value?
    func average<Value: Numeric>(_ column: (Columns<M>) -> Column<Value>) throws -> Double?
    /// `select(T.self)`: a `Projection`.
    func paritySelect<T: Decodable>(_ type: T.Type) -> any ParityProjection<T>
    /// `select(T.self) { selection }`.
    func paritySelect<T: Decodable>(_ type: T.Type, _ selection: (Columns<M>) -> [SelectedColumn])
        -> any ParityProjection<T>
}

/// The aggregates of optional columns, kept apart from ``ParityQuery``'s over plain ones as the
/// libraries keep them in extensions of their own (swift-format's
/// AmbiguousTrailingClosureOverload rule reads one declaration at a time).
protocol ParityOptionalColumnAggregates<M> {
    associatedtype M: Model
    func sum<Value: Numeric & Decodable>(_ column: (Columns<M>) -> Column<Value?>) throws -> Value
    func min<Value: Comparable & Decodable>(_ column: (Columns<M>) -> Column<Value?>) throws -> Value?
    func max<Value: Comparable & Decodable>(_ column: (Columns<M>) -> Column<Value?>) throws -> Value?
    func average<Value: Numeric>(_ column: (Columns<M>) -> Column<Value?>) throws -> Double?
}

/// A projection of either backend (LiteRecord's `Projection` on both).
protocol ParityProjection<T> {
    associatedtype T: Decodable
    func fetchAll() throws -> [T]
    func fetchOne() throws -> T?
    func forEach(_ body: (T) throws -> Void) throws
}

extension Projection: ParityProjection {}

extension Query: ParityQuery {
    func paritySelect<T: Decodable>(_ type: T.Type) -> any ParityProjection<T> { select(T.self) }
    func paritySelect<T: Decodable>(_ type: T.Type, _ selection: (Columns<M>) -> [SelectedColumn])
        -> any ParityProjection<T>
    { select(T.self, selection) }
}

extension ParityQuery {
    /// This query narrowed, sorted and limited as `shape` says.
    func shaped(by shape: RootShape<M>) -> Self {
        var query = self
        if let condition = shape.condition { query = query.where(condition) }
        if let order = shape.order { query = query.order(order) }
        if let limit = shape.limit { query = query.limit(limit, offset: shape.offset) }
        return query
    }

    /// `select(T.self)`, then `fetchAll()`, `fetchOne()` or `forEach`.
    func selectAll<T: Decodable>(_ type: T.Type) throws -> [T] { try paritySelect(T.self).fetchAll() }
    func selectOne<T: Decodable>(_ type: T.Type) throws -> T? { try paritySelect(T.self).fetchOne() }
    func selectForEach<T: Decodable>(_ type: T.Type, _ body: (T) throws -> Void) throws {
        try paritySelect(T.self).forEach(body)
    }

    /// `select(T.self) { selection }`, then `fetchAll()`, `fetchOne()` or `forEach`.
    func selectAll<T: Decodable>(_ type: T.Type, _ selection: (Columns<M>) -> [SelectedColumn]) throws -> [T]
    {
        try paritySelect(T.self, selection).fetchAll()
    }
    func selectOne<T: Decodable>(_ type: T.Type, _ selection: (Columns<M>) -> [SelectedColumn]) throws -> T? {
        try paritySelect(T.self, selection).fetchOne()
    }
    func selectForEach<T: Decodable>(
        _ type: T.Type, _ selection: (Columns<M>) -> [SelectedColumn], _ body: (T) throws -> Void
    ) throws {
        try paritySelect(T.self, selection).forEach(body)
    }
}
