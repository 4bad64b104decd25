import Foundation
import LiteRecord

/// A query of models on PostgreSQL, each fetched with all its related rows of another model:
/// `[(Author, [Book])]`. Made by ``PostgresQuery/including(all:_:)->PostgresQueryIncludingAll<M,Target>``.
///
/// It runs two statements whatever the number of roots, in one snapshot: the roots' query, then
/// one query of every related row, which receives the roots' distinct keys as one bound array
/// (`"authorID" = ANY($1::bigint[])`) and finds them through the foreign key's index. Roots come
/// in the root query's order (its `where`, `order` and `limit` apply to the roots only); each
/// root's related rows come in the order the children closure gives.
///
/// ## Topics
/// - ``fetchAll()-1ca3p``
/// - ``fetchAll()-9s1cn``
/// - ``where(_:)``
/// - ``order(_:)-((Columns<Root>)->Ordering)``
/// - ``order(_:)-((Columns<Root>)->Column<Value>)``
/// - ``limit(_:offset:)``
/// - ``postgresRelationTree``
public struct PostgresQueryIncludingAll<Root: Model, Target: Model>: PostgresIncludingQuery {
    let target: PostgresQueryTarget
    /// The database or transaction to run on (see ``PostgresQueryTarget``).
    var context: any PostgresContext { get throws { try target.context() } }
    let load: QueryIncludingAll<Root, Target>
    /// The models whose tables the load reads besides the root's, created before it runs.
    let tables: [any Model.Type]

    func with(_ change: (QueryIncludingAll<Root, Target>) -> QueryIncludingAll<Root, Target>) -> Self {
        Self(
            target: target, load: SQLDialect.$current.withValue(.postgres) { change(load) }, tables: tables)
    }

    /// Keeps the roots for which the condition holds.
    ///
    /// - Parameter condition: `{ $0.name == "Tolkien" }`.
    /// - Returns: The narrowed query.
    public func `where`(_ condition: (Columns<Root>) -> Condition) -> Self {
        with { $0.where(condition) }
    }

    /// Sorts the roots (replacing earlier sort keys).
    ///
    /// - Parameter ordering: `{ $0.name.ascending }`.
    /// - Returns: The sorted query.
    public func order(_ ordering: (Columns<Root>) -> Ordering) -> Self {
        with { $0.order(ordering) }
    }

    /// Returns at most `count` roots, after skipping `offset`; each still has all its related rows.
    ///
    /// - Parameters:
    ///   - count: The maximum number of roots.
    ///   - offset: How many roots to skip first.
    /// - Returns: The limited query.
    public func limit(_ count: Int, offset: Int? = nil) -> Self {
        with { $0.limit(count, offset: offset) }
    }

    /// How the query loads its rows and their related rows: LiteRecord's tree of one level.
    public var postgresRelationTree: PostgresRelationTree<Root, (Root, [Target])> {
        PostgresRelationTree(target: target, tree: load.relationTree, tables: tables)
    }

    /// Every matching root, each with its related rows.
    ///
    /// - Returns: The roots in the root query's order, each with its related rows (`[]` for none).
    /// - Throws: ``LiteRecord/SchemaError`` when no foreign key relates the models, or several do
    ///   and `via:` does not say which; ``LiteRecord/DatabaseError``, ``LiteRecord/RowDecodingError``.
    /// - Complexity: Two `SELECT` statements (in one snapshot), whatever the number of roots.
    public func fetchAll() throws -> [(Root, [Target])] {
        try postgresRelationTree.fetchAll()
    }
}

/// A query of models on PostgreSQL, each fetched with the one related row of another model, or
/// `nil`: `[(Book, Author?)]`. Made by ``PostgresQuery/including(one:_:)->PostgresQueryIncludingOne<M,Target>``.
///
/// It runs two statements whatever the number of roots, as ``PostgresQueryIncludingAll`` does.
///
/// ## Topics
/// - ``fetchAll()-82a8a``
/// - ``fetchAll()-6z8tm``
/// - ``where(_:)``
/// - ``order(_:)-((Columns<Root>)->Ordering)``
/// - ``order(_:)-((Columns<Root>)->Column<Value>)``
/// - ``limit(_:offset:)``
/// - ``postgresRelationTree``
public struct PostgresQueryIncludingOne<Root: Model, Target: Model>: PostgresIncludingQuery {
    let all: PostgresQueryIncludingAll<Root, Target>

    /// How the query loads its rows and their related row: LiteRecord's tree of one level.
    public var postgresRelationTree: PostgresRelationTree<Root, (Root, Target?)> {
        PostgresRelationTree(target: all.target, tree: all.load.backendOne.relationTree, tables: all.tables)
    }

    /// Keeps the roots for which the condition holds.
    ///
    /// - Parameter condition: `{ $0.year < 1950 }`.
    /// - Returns: The narrowed query.
    public func `where`(_ condition: (Columns<Root>) -> Condition) -> Self {
        Self(all: all.where(condition))
    }

    /// Sorts the roots (replacing earlier sort keys).
    ///
    /// - Parameter ordering: `{ $0.title.ascending }`.
    /// - Returns: The sorted query.
    public func order(_ ordering: (Columns<Root>) -> Ordering) -> Self {
        Self(all: all.order(ordering))
    }

    /// Returns at most `count` roots, after skipping `offset`.
    ///
    /// - Parameters:
    ///   - count: The maximum number of roots.
    ///   - offset: How many roots to skip first.
    /// - Returns: The limited query.
    public func limit(_ count: Int, offset: Int? = nil) -> Self {
        Self(all: all.limit(count, offset: offset))
    }

    /// Every matching root with its related row.
    ///
    /// - Returns: The roots in the root query's order, each with its related row or `nil`.
    /// - Throws: As ``PostgresQueryIncludingAll/fetchAll()-1ca3p``.
    /// - Complexity: Two `SELECT` statements, whatever the number of roots.
    public func fetchAll() throws -> [(Root, Target?)] {
        try postgresRelationTree.fetchAll()
    }
}

extension PostgresSession {
    /// Runs `body` in one `REPEATABLE READ` snapshot, so that the statements of an eager load
    /// see the same data, or right there inside the transaction already open.
    func inOneSnapshot<T>(_ body: () throws -> T) throws -> T {
        if transactionDepth > 0 { return try body() }
        return try runTransaction(begin: "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY") { _ in try body()
        }
    }
}
