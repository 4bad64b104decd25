import Foundation
import LiteRecord

/// A query of models on PostgreSQL, each fetched with all its related rows of another model,
/// each of those with its own related rows: `[(Author, [(Book, [Review])])]`. Made by
/// ``PostgresQuery/including(all:_:)-(_,(Query<Target>)->Children)`` when the children closure
/// itself includes related rows.
///
/// It runs one `SELECT` per level of the tree, in one snapshot, whatever the number of rows:
/// the roots' query, then at each level one query of every related row, which receives the
/// keys of the level above as one bound array and finds them through the foreign key's index.
/// The levels are LiteRecord's own (the same relations, SQL and grouping as on SQLite). Roots
/// come in the root query's order (its `where`, `order` and `limit` apply to the roots only);
/// the rows of each level come in the order its children closure gives.
///
/// ## Topics
/// - ``fetchAll()-39jda``
/// - ``fetchAll()-5ueic``
/// - ``where(_:)``
/// - ``order(_:)-((Columns<Root>)->Ordering)``
/// - ``order(_:)-((Columns<Root>)->Column<Value>)``
/// - ``limit(_:offset:)``
/// - ``postgresRelationTree``
public struct PostgresQueryIncludingAllTree<Root: Model, Children: IncludingQuery>: PostgresIncludingQuery {
    let target: PostgresQueryTarget
    let load: QueryIncludingAllTree<Root, Children>
    /// The models whose tables the roots' conditions read besides the root's.
    let tables: [any Model.Type]

    func with(_ change: (QueryIncludingAllTree<Root, Children>) -> QueryIncludingAllTree<Root, Children>)
        -> Self
    {
        Self(target: target, load: SQLDialect.$current.withValue(.postgres) { change(load) }, tables: tables)
    }

    /// How the query loads its rows and their related rows, level by level.
    public var postgresRelationTree: PostgresRelationTree<Root, (Root, [Children.Element])> {
        PostgresRelationTree(target: target, tree: load.relationTree, tables: tables)
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

    /// Every matching root, each with its related rows, each of those with theirs.
    ///
    /// - Returns: The roots in the root query's order, each with its related rows (`[]` for none).
    /// - Throws: ``LiteRecord/SchemaError`` when no foreign key relates two levels, or several do
    ///   and `via:` does not say which, or a children closure has a limit;
    ///   ``LiteRecord/DatabaseError``, ``LiteRecord/RowDecodingError``.
    /// - Complexity: One `SELECT` per level (in one snapshot), whatever the number of rows.
    public func fetchAll() throws -> [(Root, [Children.Element])] {
        try postgresRelationTree.fetchAll()
    }
}

/// A query of models on PostgreSQL, each fetched with the one related row of another model (or
/// `nil`), that row with its own related rows: `[(Track, (Album, Artist?)?)]`. Made by
/// ``PostgresQuery/including(one:_:)-(_,(Query<Target>)->Child)`` when the closure itself
/// includes related rows.
///
/// It runs one `SELECT` per level, whatever the number of rows, as
/// ``PostgresQueryIncludingAllTree`` does.
///
/// ## Topics
/// - ``fetchAll()-92uf8``
/// - ``fetchAll()-6jln7``
/// - ``where(_:)``
/// - ``order(_:)-((Columns<Root>)->Ordering)``
/// - ``order(_:)-((Columns<Root>)->Column<Value>)``
/// - ``limit(_:offset:)``
/// - ``postgresRelationTree``
public struct PostgresQueryIncludingOneTree<Root: Model, Child: IncludingQuery>: PostgresIncludingQuery {
    let target: PostgresQueryTarget
    let load: QueryIncludingOneTree<Root, Child>
    /// The models whose tables the roots' conditions read besides the root's.
    let tables: [any Model.Type]

    func with(_ change: (QueryIncludingOneTree<Root, Child>) -> QueryIncludingOneTree<Root, Child>) -> Self {
        Self(target: target, load: SQLDialect.$current.withValue(.postgres) { change(load) }, tables: tables)
    }

    /// How the query loads its rows and their related rows, level by level.
    public var postgresRelationTree: PostgresRelationTree<Root, (Root, Child.Element?)> {
        PostgresRelationTree(target: target, tree: load.relationTree, tables: tables)
    }

    /// Keeps the roots for which the condition holds.
    ///
    /// - Parameter condition: `{ $0.name.hasPrefix("A") }`.
    /// - Returns: The narrowed query.
    public func `where`(_ condition: (Columns<Root>) -> Condition) -> Self {
        with { $0.where(condition) }
    }

    /// Sorts the roots (replacing earlier sort keys).
    ///
    /// - Parameter ordering: `{ $0.title.ascending }`.
    /// - Returns: The sorted query.
    public func order(_ ordering: (Columns<Root>) -> Ordering) -> Self {
        with { $0.order(ordering) }
    }

    /// Returns at most `count` roots, after skipping `offset`.
    ///
    /// - Parameters:
    ///   - count: The maximum number of roots.
    ///   - offset: How many roots to skip first.
    /// - Returns: The limited query.
    public func limit(_ count: Int, offset: Int? = nil) -> Self {
        with { $0.limit(count, offset: offset) }
    }

    /// Every matching root with its related row (or `nil`), that row with its own related rows.
    ///
    /// - Returns: The roots in the root query's order.
    /// - Throws: As ``PostgresQueryIncludingAllTree/fetchAll()-39jda``.
    /// - Complexity: One `SELECT` per level, whatever the number of rows.
    public func fetchAll() throws -> [(Root, Child.Element?)] {
        try postgresRelationTree.fetchAll()
    }
}
