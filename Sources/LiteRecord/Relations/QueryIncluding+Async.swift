// Async forms and observation of queries with `including`, as a plain query has.

extension QueryIncludingAll {
    /// Every matching root with its related rows, fetched without blocking the caller's thread.
    ///
    /// - Returns: As ``fetchAll()``.
    /// - Throws: As ``fetchAll()``, or `CancellationError`.
    public func fetchAll() async throws -> [(Root, [Target])] {
        let (children, load) = (children, load)
        return try await root.runAsync(reading: true) { root in
            try QueryIncludingAll(root: root, children: children, load: load).fetchAll()
        }
    }

    /// The same query, run on another context.
    func on(_ context: any DatabaseContext) -> Self {
        Self(root: root.on(context), children: children, load: load)
    }
}

extension QueryIncludingOne {
    /// Every matching root with its related row, fetched without blocking the caller's thread.
    ///
    /// - Returns: As ``fetchAll()``.
    /// - Throws: As ``fetchAll()``, or `CancellationError`.
    public func fetchAll() async throws -> [(Root, Target?)] {
        try await all.fetchAll().map { ($0.0, $0.1.first) }
    }
}

extension Database {
    /// Observes the results of a query with `including`: fetched now, then again after each
    /// committed change to any table it reads (the roots', the related rows', a junction's).
    ///
    /// - Parameter query: A query built on this database; one built on another database makes
    ///   the iteration throw ``DatabaseError`` with ``ResultCode/misuse``.
    /// - Returns: The observation; nothing runs until it is iterated.
    public func observe<Root: Model, Target: Model>(
        _ query: QueryIncludingAll<Root, Target>
    ) -> DatabaseObservation<[(Root, [Target])]> {
        let built = Result { try query.root.checkBuilt(on: self, for: "observe") }
        return DatabaseObservation(
            database: self,
            prepare: {
                try built.get()
                try self.prepareIncludedTables(of: query)
            },
            fetch: { connection in try query.on(connection).fetchAll() })
    }

    /// Observes the results of a query with `including(one:)`, as ``observe(_:)-(QueryIncludingAll<Root,Target>)``.
    ///
    /// - Parameter query: A query built on this database; one built on another database makes
    ///   the iteration throw ``DatabaseError`` with ``ResultCode/misuse``.
    /// - Returns: The observation; nothing runs until it is iterated.
    public func observe<Root: Model, Target: Model>(
        _ query: QueryIncludingOne<Root, Target>
    ) -> DatabaseObservation<[(Root, Target?)]> {
        let built = Result { try query.all.root.checkBuilt(on: self, for: "observe") }
        return DatabaseObservation(
            database: self,
            prepare: {
                try built.get()
                try self.prepareIncludedTables(of: query.all)
            },
            fetch: { connection in try query.all.on(connection).fetchAll().map { ($0.0, $0.1.first) } })
    }

    /// Creates the tables an eager load reads before it is first observed, so that their
    /// first rows are seen as changes.
    private func prepareIncludedTables<Root: Model, Target: Model>(of query: QueryIncludingAll<Root, Target>)
        throws
    {
        try prepareTable(for: Root.self)
        guard !isReadOnly, case .success(let load) = query.load else { return }
        try withConnection { try load.prepareTables($0) }
    }
}
