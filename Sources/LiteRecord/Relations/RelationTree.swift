/// A query whose rows come with related rows: what ``Query/including(all:_:)->QueryIncludingAll<M,Target>`` and its
/// siblings return, and what the children closure of a nested `including` returns.
///
/// ```swift
/// let tree = try db.query(Author.self)
///     .including(all: Book.self) { $0.order { $0.year }.including(all: Review.self) }
///     .fetchAll()   // [(Author, [(Book, [Review])])]
/// ```
///
/// LiteRecord's own query types conform; there is nothing to implement.
///
/// ## Topics
/// - ``Root``
/// - ``Element``
/// - ``relationTree``
/// - ``changingRoots(_:)``
/// - ``where(_:)``
/// - ``order(_:)-((Columns<Self.Root>)->Ordering)``
/// - ``order(_:)-((Columns<Self.Root>)->Column<Value>)``
/// - ``limit(_:offset:)``
/// - ``fetchAll(_:)-67huj``
/// - ``fetchAll(_:)-3chbj``
public protocol IncludingQuery: Sendable {
    /// The model of the query's own rows: `Author`.
    associatedtype Root: Model
    /// What each root is fetched as: `(Author, [Book])`.
    associatedtype Element: Sendable
    /// How the query loads its rows and their related rows, level by level.
    var relationTree: RelationTree<Root, Element> { get }

    /// The same query with the roots' query changed by `change`; each root still comes with all
    /// its related rows. ``where(_:)``, ``order(_:)-((Columns<Self.Root>)->Ordering)`` and
    /// ``limit(_:offset:)`` are made with it, and it takes any other operation of ``Query``
    /// that narrows or sorts the roots.
    ///
    /// - Parameter change: From the roots' query to the new one:
    ///   `{ $0.where(any: Book.self) { $0.year < 1950 } }`.
    /// - Returns: The changed query.
    func changingRoots(_ change: (Query<Root>) -> Query<Root>) -> Self
}

/// How a query with `including` loads its rows and their related rows: one plain `SELECT`
/// per level of the tree, whatever the number of rows. Built by LiteRecord; opaque.
public struct RelationTree<Root: Model, Element: Sendable>: Sendable {
    /// The rows of this level: the roots' query at the top, the children closure's query below.
    let query: Query<Root>
    /// The columns of this level's rows whose values select the rows of the level below.
    let keyColumns: [String]
    /// Throws the first problem of the levels below this one (a relation that cannot be
    /// found, a child query that cannot be built or has a limit).
    let check: @Sendable () throws -> Void
    /// Makes sure every table of the levels below exists, on a connection that can write.
    let prepareTables: @Sendable (Connection) throws -> Void
    /// The models whose tables the levels below read (targets, junctions, the tables their
    /// filters read), for another backend to create and observe.
    let relatedModels: [any Model.Type]
    /// Fetches the levels below for this level's rows (decoded, with their `keyColumns`
    /// values) and gives each row as an element, in the rows' order.
    let attach: @Sendable (_ rows: [Root], _ keys: RowKeys, _ source: RelationSource) throws -> [Element]
    /// The element as a node of models, for decoding into a `Decodable` of the caller's.
    let node: @Sendable (Element) -> RelationNode
}

extension RelationTree where Element == Root {
    /// The rows of a query with no `including`: the last level of a tree.
    static func leaf(_ query: Query<Root>) -> RelationTree<Root, Root> {
        RelationTree(
            query: query, keyColumns: [], check: {}, prepareTables: { _ in }, relatedModels: [],
            attach: { rows, _, _ in rows }, node: { RelationNode(root: $0, related: .none) })
    }
}

extension RelationTree {
    /// A level whose rows each come with all their related rows of the level below.
    static func many<Child: Model, ChildElement: Sendable>(
        _ query: Query<Root>, load: Result<EagerLoad, any Error>, children: RelationTree<Child, ChildElement>
    ) -> RelationTree<Root, (Root, [ChildElement])> {
        RelationTree<Root, (Root, [ChildElement])>(
            query: query, keyColumns: (try? load.get().rootColumns) ?? [],
            check: { try checkLevel(load: load, children: children) },
            prepareTables: { connection in
                try load.get().prepareTables(connection)
                try children.prepareTables(connection)
            },
            relatedModels: ((try? load.get())?.models ?? []) + children.query.relatedTables.map(\.model)
                + children.relatedModels,
            attach: { rows, keys, source in
                let load = try load.get()
                guard let (slots, groups) = try children.groups(of: keys, load: load, from: source) else {
                    return rows.map { ($0, []) }
                }
                var result: [(Root, [ChildElement])] = []
                result.reserveCapacity(rows.count)
                for index in rows.indices {
                    let slot = slots[index]
                    result.append((rows[index], slot < 0 ? [] : groups[slot]))
                }
                return result
            },
            node: { element in
                RelationNode(root: element.0, related: .many(Child.self, element.1.map(children.node)))
            })
    }

    /// A level whose rows each come with their one related row of the level below, or `nil`.
    static func one<Child: Model, ChildElement: Sendable>(
        _ query: Query<Root>, load: Result<EagerLoad, any Error>, child: RelationTree<Child, ChildElement>
    ) -> RelationTree<Root, (Root, ChildElement?)> {
        let many = RelationTree<Root, (Root, [ChildElement])>.many(query, load: load, children: child)
        return RelationTree<Root, (Root, ChildElement?)>(
            query: query, keyColumns: many.keyColumns, check: many.check, prepareTables: many.prepareTables,
            relatedModels: many.relatedModels,
            attach: { rows, keys, source in
                try many.attach(rows, keys, source).map { ($0.0, $0.1.first) }
            },
            node: { element in
                RelationNode(root: element.0, related: .one(Child.self, element.1.map(child.node)))
            })
    }

    /// The checks of a level: its relation, its children's query, and the levels below.
    private static func checkLevel<Child: Model, ChildElement>(
        load: Result<EagerLoad, any Error>, children: RelationTree<Child, ChildElement>
    ) throws {
        _ = try load.get()
        let query = children.query
        if let error = query.buildError { throw error }
        if let error = IncludedRowsCheck.searchError(query, root: Root.self) { throw error }
        if query.limitCount != nil || query.offsetCount != nil || query.isDistinct || !query.groupKeys.isEmpty
        {
            throw SchemaError(
                "the rows included with \(Root.self) can be narrowed with where and sorted with order; a limit, "
                    + "offset, distinct or grouping of \(Child.self) is not supported there (it would apply to "
                    + "all \(Root.self) rows together): filter the results in Swift, or query \(Child.self) "
                    + "on its own")
        }
        try children.check()
    }

    /// The elements of this level for the rows of the level above whose keys are `keys`,
    /// gathered by key slot: `nil` when no key relates to anything.
    func groups(of keys: RowKeys, load: EagerLoad, from source: RelationSource) throws -> (
        rootSlots: [Int], groups: [[Element]]
    )? {
        let connection: Connection
        switch source {
        case .connection(let sqlite): connection = sqlite
        case .backend(let backend): return try groups(of: keys, load: load, from: backend)
        }
        let slots = try KeySlots(keys, forms: load.keyForms)
        guard slots.count > 0 else { return nil }
        let (sql, slotColumns) = load.targetSQL(
            keys: slots.boundKeys, conditions: query.conditions, orderClause: query.orderClause(),
            dialect: query.dialect)
        let table = try TableSchemaCache.schema(for: Root.self)
        // The tables this level's relation filters read too, as a query of them alone does.
        let fetched = try connection.readingRelatedTables(load.tables) {
            try connection.readingRelatedModelTables(query.relatedTables) {
                [
                    try connection.fetchModelsWithSlots(
                        Root.self, table: table, sql: sql, slotColumns: slotColumns, keyColumns: keyColumns,
                        slots: slots)
                ]
            }
        }
        // A related table that does not exist yet (a reader) gives no rows at all.
        guard let fetched = fetched.first else { return nil }
        let elements = try attach(fetched.models, fetched.keys, .connection(connection))
        let rows = RowsBySlot<Element>()
        rows.append(contentsOf: elements, slots: fetched.slots)
        return (slots.rootSlots, rows.take(slotCount: slots.count))
    }

    /// Runs the tree from its top: the roots' query, then one query per level below, in one
    /// read snapshot.
    func fetchAll() throws -> [Element] {
        if let backend = query.backend { return try backend.fetchAll(self) }
        if let error = query.buildError { throw error }
        try check()
        return try query.fetchRootsWithKeys(keyColumns: keyColumns, prepareTables: prepareTables) {
            roots, keys, connection in
            try attach(roots, keys, .connection(connection))
        }
    }

    /// The same tree, its roots' query run on another context.
    func on(_ context: any DatabaseContext) -> Self {
        Self(
            query: query.on(context), keyColumns: keyColumns, check: check, prepareTables: prepareTables,
            relatedModels: relatedModels, attach: attach, node: node)
    }
}

/// A fetched row and the related rows that came with it, as models: what a `Decodable` of the
/// caller's is decoded from.
struct RelationNode: Sendable {
    indirect enum Related: Sendable {
        case none
        case many(any Model.Type, [RelationNode])
        case one(any Model.Type, RelationNode?)
    }

    let root: any Model
    let related: Related
}

extension Connection {
    /// Decodes the related rows an SQL query returns, with the slot of each (from its
    /// `slotColumns`) and the values of its `keyColumns`; rows in no slot are left out.
    func fetchModelsWithSlots<M: Model>(
        _ type: M.Type, table: TableSchema, sql: SQL, slotColumns: [String], keyColumns: [String],
        slots: KeySlots
    ) throws -> (models: [M], slots: [Int], keys: RowKeys) {
        try withStatement(sql) { statement in
            let slotPositions = try statement.positions(ofKeyColumns: slotColumns, table: table)
            let keyPositions = try statement.positions(ofKeyColumns: keyColumns, table: table)
            let session = RowDecodingSession(
                source: statement, decoder: table.rowDecoder(dateStorage: configuration.dateStorage),
                type: M.self)
            // A `RowsBySlot`, not an `[M]`: in this code, generic over the model type, each
            // append to an array looked its type metadata up again.
            let rows = RowsBySlot<M>()
            var keys = RowKeys()
            while try statement.step() {
                guard let slot = try slots.slot(ofRowIn: statement, columns: slotPositions) else { continue }
                rows.append(try session.decodeRow(M.self), slot: slot)
                if !keyPositions.isEmpty { try keys.append(from: statement, columns: keyPositions) }
            }
            let (models, rowSlots) = rows.takeInOrder()
            return (models, rowSlots, keys)
        }
    }
}
