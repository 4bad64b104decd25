/// A query of models, each fetched with all its related rows of another model, each of those
/// with its own related rows: `[(Author, [(Book, [Review])])]`. Made by
/// ``Query/including(all:_:)-(_,(Query<Target>)->Children)`` when the children closure
/// itself includes related rows.
///
/// It runs one plain `SELECT` per level of the tree, in one read transaction, whatever the
/// number of rows: the roots' query, then at each level one query of every related row, which
/// reads the keys of the level above from one bound JSON array through the foreign key's index.
/// Roots come in the root query's order (its `where`, `order` and `limit` apply to the roots
/// only); the rows of each level come in the order its children closure gives, else in the
/// order of the rows above and then of their table.
///
/// ## Topics
/// - ``fetchAll()-78imz``
/// - ``fetchAll()-5tgtl``
/// - ``IncludingQuery/where(_:)``
/// - ``IncludingQuery/order(_:)-((Columns<Self.Root>)->Ordering)``
/// - ``IncludingQuery/order(_:)-((Columns<Self.Root>)->Column<Value>)``
/// - ``IncludingQuery/limit(_:offset:)``
/// - ``changingRoots(_:)``
/// - ``relationTree``
public struct QueryIncludingAllTree<Root: Model, Children: IncludingQuery>: IncludingQuery {
    let root: Query<Root>
    let children: Children
    let load: Result<EagerLoad, any Error>

    /// How the query loads its rows and their related rows, level by level.
    public var relationTree: RelationTree<Root, (Root, [Children.Element])> {
        .many(root, load: load, children: children.relationTree)
    }

    /// The same query with the roots' query changed by `change`.
    ///
    /// - Parameter change: From the roots' query to the new one.
    /// - Returns: The changed query.
    public func changingRoots(_ change: (Query<Root>) -> Query<Root>) -> Self {
        Self(root: change(root), children: children, load: load)
    }

    /// Every matching root, each with its related rows, each of those with theirs.
    ///
    /// - Returns: The roots in the root query's order, each with its related rows (`[]` for none).
    /// - Throws: ``SchemaError`` when no foreign key relates two levels, or several do and
    ///   `via:` does not say which, or a children closure has a limit; ``DatabaseError``,
    ///   ``RowDecodingError``.
    /// - Complexity: One `SELECT` per level (in one read transaction), whatever the number of rows.
    public func fetchAll() throws -> [(Root, [Children.Element])] {
        try relationTree.fetchAll()
    }
}

/// A query of models, each fetched with the one related row of another model (or `nil`), that
/// row with its own related rows: `[(Track, (Album, Artist?)?)]`. Made by
/// ``Query/including(one:_:)-(_,(Query<Target>)->Child)`` when the closure itself includes
/// related rows.
///
/// It runs one `SELECT` per level, whatever the number of rows, as ``QueryIncludingAllTree``
/// does.
///
/// ## Topics
/// - ``fetchAll()-28rfa``
/// - ``fetchAll()-3jz92``
/// - ``IncludingQuery/where(_:)``
/// - ``IncludingQuery/order(_:)-((Columns<Self.Root>)->Ordering)``
/// - ``IncludingQuery/order(_:)-((Columns<Self.Root>)->Column<Value>)``
/// - ``IncludingQuery/limit(_:offset:)``
/// - ``changingRoots(_:)``
/// - ``relationTree``
public struct QueryIncludingOneTree<Root: Model, Child: IncludingQuery>: IncludingQuery {
    let root: Query<Root>
    let child: Child
    let load: Result<EagerLoad, any Error>

    /// How the query loads its rows and their related rows, level by level.
    public var relationTree: RelationTree<Root, (Root, Child.Element?)> {
        .one(root, load: load, child: child.relationTree)
    }

    /// The same query with the roots' query changed by `change`.
    ///
    /// - Parameter change: From the roots' query to the new one.
    /// - Returns: The changed query.
    public func changingRoots(_ change: (Query<Root>) -> Query<Root>) -> Self {
        Self(root: change(root), child: child, load: load)
    }

    /// Every matching root with its related row (or `nil`), that row with its own related rows.
    ///
    /// - Returns: The roots in the root query's order.
    /// - Throws: As ``QueryIncludingAllTree/fetchAll()-78imz``.
    /// - Complexity: One `SELECT` per level, whatever the number of rows.
    public func fetchAll() throws -> [(Root, Child.Element?)] {
        try relationTree.fetchAll()
    }
}

extension QueryIncludingAll: IncludingQuery {
    /// How the query loads its rows and their related rows.
    public var relationTree: RelationTree<Root, (Root, [Target])> {
        .many(root, load: load, children: .leaf(children))
    }
}

extension QueryIncludingOne: IncludingQuery {
    /// How the query loads its rows and their related rows.
    public var relationTree: RelationTree<Root, (Root, Target?)> {
        .one(all.root, load: all.load, child: .leaf(all.children))
    }
}
