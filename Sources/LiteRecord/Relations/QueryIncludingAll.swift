/// A query of models, each fetched with all its related rows of another model:
/// `[(Author, [Book])]`. Made by ``Query/including(all:_:)->QueryIncludingAll<M,Target>``.
///
/// It runs a constant number of statements, whatever the number of roots: the roots' query,
/// then one query of every related row, which reads the roots' keys from one bound JSON array
/// through the foreign key's index. Roots come in the root query's order (its `where`, `order`
/// and `limit` apply to the roots only); each root's related rows come in the order the
/// children closure gives, else in the order of the roots and then of the related table.
///
/// ## Topics
/// - ``fetchAll()-7hu86``
/// - ``IncludingQuery/where(_:)``
/// - ``IncludingQuery/order(_:)-((Columns<Self.Root>)->Ordering)``
/// - ``IncludingQuery/limit(_:offset:)``
/// - ``changingRoots(_:)``
public struct QueryIncludingAll<Root: Model, Target: Model>: Sendable {
    let root: Query<Root>
    let children: Query<Target>
    let load: Result<EagerLoad, any Error>

    /// The same query with the roots' query changed by `change`.
    ///
    /// - Parameter change: From the roots' query to the new one.
    /// - Returns: The changed query.
    public func changingRoots(_ change: (Query<Root>) -> Query<Root>) -> Self {
        Self(root: change(root), children: children, load: load)
    }

    /// Every matching root, each with its related rows.
    ///
    /// - Returns: The roots in the root query's order, each with its related rows (`[]` for none).
    /// - Throws: ``SchemaError`` when no foreign key relates the models, or several do and
    ///   `via:` does not say which; ``DatabaseError``, ``RowDecodingError``.
    /// - Complexity: Two `SELECT` statements (in one read transaction), whatever the number of roots.
    public func fetchAll() throws -> [(Root, [Target])] {
        if root.backend != nil { return try relationTree.fetchAll() }
        if let error = root.buildError ?? children.buildError { throw error }
        try checkChildrenQuery()
        let load = try load.get()
        return try root.fetchRootsWithKeys(keyColumns: load.rootColumns, prepareTables: load.prepareTables) {
            roots, keys, connection in
            try attach(to: roots, slots: KeySlots(keys, forms: load.keyForms), load: load, on: connection)
        }
    }

    /// The related rows of each root, fetched in one statement and gathered by their key's
    /// slot as they are decoded.
    private func attach(
        to roots: [Root], slots: KeySlots, load: EagerLoad, on connection: Connection
    ) throws -> [(Root, [Target])] {
        guard slots.count > 0 else { return roots.map { ($0, []) } }
        let (sql, keyColumns) = load.targetSQL(
            keys: slots.boundKeys, conditions: children.conditions, orderClause: children.orderClause(),
            dialect: children.dialect)
        let table = try TableSchemaCache.schema(for: Target.self)
        let groups: [[Target]] = try connection.readingRelatedTables(load.tables) {
            try connection.readingRelatedModelTables(children.relatedTables) {
                try connection.fetchModelsBySlot(
                    Target.self, table: table, sql: sql, keyColumns: keyColumns, slots: slots)
            }
        }
        // A related table that does not exist yet (a reader) gives no groups at all.
        guard !groups.isEmpty else { return roots.map { ($0, []) } }
        var result: [(Root, [Target])] = []
        result.reserveCapacity(roots.count)
        // Indexes rather than `enumerated()`, whose iterator is not specialized in this generic code.
        for index in roots.indices {
            let slot = slots.rootSlots[index]
            result.append((roots[index], slot < 0 ? [] : groups[slot]))
        }
        return result
    }

    /// The children closure narrows and sorts; a limit, offset, `distinct` or grouping would
    /// apply to all roots' rows together, which is not what it reads as.
    func checkChildrenQuery() throws {
        if let error = IncludedRowsCheck.searchError(children, root: Root.self) { throw error }
        guard
            children.limitCount != nil || children.offsetCount != nil || children.isDistinct
                || !children.groupKeys.isEmpty
        else { return }
        throw SchemaError(
            "the rows included with \(Root.self) can be narrowed with where and sorted with order; a limit, "
                + "offset, distinct or grouping of \(Target.self) is not supported there (it would apply to "
                + "all roots together): filter the results in Swift, or query \(Target.self) on its own")
    }
}

/// A query of models, each fetched with the one related row of another model, or `nil`:
/// `[(Book, Author?)]`. Made by ``Query/including(one:_:)->QueryIncludingOne<M,Target>``.
///
/// It runs two statements whatever the number of roots, as ``QueryIncludingAll`` does. A
/// root whose key is NULL, or matches no row (a table whose foreign key is not enforced),
/// comes with `nil`.
///
/// ## Topics
/// - ``fetchAll()-2vvsw``
/// - ``IncludingQuery/where(_:)``
/// - ``IncludingQuery/order(_:)-((Columns<Self.Root>)->Ordering)``
/// - ``IncludingQuery/limit(_:offset:)``
/// - ``changingRoots(_:)``
public struct QueryIncludingOne<Root: Model, Target: Model>: Sendable {
    let all: QueryIncludingAll<Root, Target>

    /// The same query with the roots' query changed by `change`.
    ///
    /// - Parameter change: From the roots' query to the new one.
    /// - Returns: The changed query.
    public func changingRoots(_ change: (Query<Root>) -> Query<Root>) -> Self {
        Self(all: all.changingRoots(change))
    }

    /// Every matching root with its related row.
    ///
    /// - Returns: The roots in the root query's order, each with its related row or `nil`.
    /// - Throws: As ``QueryIncludingAll/fetchAll()-7hu86``.
    /// - Complexity: Two `SELECT` statements, whatever the number of roots.
    public func fetchAll() throws -> [(Root, Target?)] {
        try all.fetchAll().map { ($0.0, $0.1.first) }
    }
}
