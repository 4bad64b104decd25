// Async forms and observation of nested `including` queries, and fetching
// any `including` query into a `Decodable` of the caller's.

extension QueryIncludingAllTree {
    /// Every matching root with its tree of related rows, fetched without blocking the
    /// caller's thread.
    ///
    /// - Returns: As ``fetchAll()-78imz``.
    /// - Throws: As ``fetchAll()-78imz``, or `CancellationError`.
    public func fetchAll() async throws -> [(Root, [Children.Element])] {
        try await relationTree.fetchAllAsync()
    }
}

extension QueryIncludingOneTree {
    /// Every matching root with its related row and that row's own, fetched without blocking
    /// the caller's thread.
    ///
    /// - Returns: As ``fetchAll()-28rfa``.
    /// - Throws: As ``fetchAll()-28rfa``, or `CancellationError`.
    public func fetchAll() async throws -> [(Root, Child.Element?)] {
        try await relationTree.fetchAllAsync()
    }
}

extension IncludingQuery {
    /// Every matching root with its related rows, each decoded into a `Decodable` of your own
    /// whose properties are the models: `struct Shelf: Decodable { var author: Author; var
    /// books: [Book] }`.
    ///
    /// Properties are matched by type, whatever their names: the root model (`Author`), the
    /// related rows (`[Book]` for `including(all:)`, `Author?` for `including(one:)`), or, for
    /// a nested tree, a `Decodable` of the same kind for each related row (`[BookWithReviews]`).
    ///
    /// - Parameter type: The type of each result: `Shelf.self`.
    /// - Returns: One value per root, in the root query's order.
    /// - Throws: ``SchemaError`` when a property asks for something the query does not fetch,
    ///   for a type that is both the root and the related model, or for a non-optional
    ///   related row that is missing; as `fetchAll()` otherwise.
    public func fetchAll<T: Decodable>(_ type: T.Type) throws -> [T] {
        let tree = relationTree
        return try tree.fetchAll().map { try RelationTreeDecoder.decode(T.self, from: tree.node($0)) }
    }

    /// Every matching root with its related rows, each decoded into a `Decodable` of your own,
    /// fetched without blocking the caller's thread.
    ///
    /// - Parameter type: The type of each result.
    /// - Returns: As ``fetchAll(_:)-67huj``.
    /// - Throws: As ``fetchAll(_:)-67huj``, or `CancellationError`.
    public func fetchAll<T: Decodable & Sendable>(_ type: T.Type) async throws -> [T] {
        let tree = relationTree
        return try await tree.query.runAsync(reading: true) { query in
            try tree.with(query).fetchAll().map {
                try RelationTreeDecoder.decode(T.self, from: tree.node($0))
            }
        }
    }
}

extension RelationTree {
    /// The same tree, its roots' query replaced by `query` (the same query, run elsewhere).
    func with(_ query: Query<Root>) -> Self {
        Self(
            query: query, keyColumns: keyColumns, check: check, prepareTables: prepareTables,
            relatedModels: relatedModels, attach: attach, node: node)
    }

    /// ``fetchAll()`` on the roots' database, off the caller's thread.
    func fetchAllAsync() async throws -> [Element] {
        let tree = self
        return try await query.runAsync(reading: true) { query in try tree.with(query).fetchAll() }
    }
}

extension Database {
    /// Observes the results of a query with nested `including`: fetched now, then again after
    /// each committed change to any table it reads, at any level.
    ///
    /// - Parameter query: A query built on this database; one built on another database makes
    ///   the iteration throw ``DatabaseError`` with ``ResultCode/misuse``.
    /// - Returns: The observation; nothing runs until it is iterated.
    public func observe<Root: Model, Children: IncludingQuery>(
        _ query: QueryIncludingAllTree<Root, Children>
    ) -> DatabaseObservation<[(Root, [Children.Element])]> {
        observeTree(query.relationTree)
    }

    /// Observes the results of a query with nested `including(one:)`, as
    /// ``observe(_:)-(QueryIncludingAllTree<Root,Children>)``.
    ///
    /// - Parameter query: A query built on this database; one built on another database makes
    ///   the iteration throw ``DatabaseError`` with ``ResultCode/misuse``.
    /// - Returns: The observation; nothing runs until it is iterated.
    public func observe<Root: Model, Child: IncludingQuery>(
        _ query: QueryIncludingOneTree<Root, Child>
    ) -> DatabaseObservation<[(Root, Child.Element?)]> {
        observeTree(query.relationTree)
    }

    /// Observes the results of any query with related rows, as the overloads for each kind do:
    /// what code written once for every backend (`some ModelDatabase`) calls.
    ///
    /// - Parameter query: A query built on this database; one built on another database makes
    ///   the iteration throw ``DatabaseError`` with ``ResultCode/misuse``.
    /// - Returns: The observation; nothing runs until it is iterated.
    @_disfavoredOverload
    public func observe<Including: IncludingQuery>(_ query: Including) -> DatabaseObservation<
        [Including.Element]
    > {
        observeTree(query.relationTree)
    }

    private func observeTree<Root: Model, Element>(_ tree: RelationTree<Root, Element>)
        -> DatabaseObservation<[Element]>
    {
        let built = Result { try tree.backendQuery.checkBuilt(on: self, for: "observe") }
        return DatabaseObservation(
            database: self,
            prepare: {
                try built.get()
                // Creates the tables of every level first, so that their first rows are seen as changes.
                try self.prepareTable(for: Root.self)
                guard !self.isReadOnly else { return }
                try self.withConnection { try tree.prepareTables($0) }
            },
            fetch: { connection in try tree.on(connection).fetchAll() })
    }
}
