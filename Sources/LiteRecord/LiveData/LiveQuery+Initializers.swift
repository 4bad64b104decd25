// The ways to make a live query, and to point one at another query (`load`). Each makes a
// `LiveSource`: the observation the database offers for the query (`observe`, the same as the
// `AsyncSequence`'s), and how two values compare, so that an equal fresh value changes nothing.

extension LiveQuery {
    /// Follows the models a query returns.
    ///
    /// ```swift
    /// let players = LiveQuery(db.query(Player.self).order { $0.name })
    /// ```
    ///
    /// - Parameter query: A query built on a database (`db.query`, on SQLite or PostgreSQL). One
    ///   built on a transaction's connection (`tx.query`) sets ``error`` to ``DatabaseError`` with
    ///   ``ResultCode/misuse``. Models that are not `Equatable` are compared by what they encode.
    public convenience init<M: Model>(_ query: Query<M>) where Value == [M] {
        self.init(source: LiveSource(query: query, isSame: LiveComparison.sameEncoding), initial: [])
    }

    /// Follows the models a query returns, comparing them with `==`.
    ///
    /// - Parameter query: A query built on a database (`db.query`).
    public convenience init<M: Model & Equatable>(_ query: Query<M>) where Value == [M] {
        self.init(source: LiveSource(query: query, isSame: ==), initial: [])
    }

    /// Follows the models a query with `including` returns, with their related rows at every level.
    ///
    /// ```swift
    /// let shelves = LiveQuery(db.query(Author.self).including(all: Book.self))   // [(Author, [Book])]
    /// ```
    ///
    /// - Parameter query: A query built on a database (`db.query`).
    public convenience init<Including: IncludingQuery>(_ query: Including)
    where Value == [Including.Element] {
        self.init(source: LiveSource(including: query), initial: [])
    }

    /// Follows the value any read returns: a count, an aggregate, a projection, several queries.
    ///
    /// ```swift
    /// let count = LiveQuery(db, initial: 0) { tx in try tx.query(Player.self).count() }
    /// ```
    ///
    /// - Parameters:
    ///   - database: The database to read, SQLite or PostgreSQL.
    ///   - initial: The value until the first fetch arrives (on PostgreSQL; on SQLite the first
    ///     fetch runs before the initializer returns, unless it fails).
    ///   - fetch: Reads the value on the transaction it receives; it must only read. It runs
    ///     again after each commit to a table it read.
    public convenience init<Database: ModelDatabase>(
        _ database: Database, initial: Value,
        _ fetch: @escaping @Sendable (Database.Transaction) throws -> Value
    ) where Value: Equatable {
        self.init(
            source: LiveSource(observation: .success(database.observe(fetch)), isSame: ==), initial: initial)
    }

    /// Follows another query from now on: a search field's text, a new sort order.
    ///
    /// The new query's results replace the current ones (at once on SQLite, as the initializer
    /// does), and nothing the old query fetches arrives after, however slow it was.
    ///
    /// - Parameter query: A query built on a database (`db.query`).
    public func load<M: Model>(_ query: Query<M>) where Value == [M] {
        replaceSource(LiveSource(query: query, isSame: LiveComparison.sameEncoding))
    }

    /// Follows another query from now on, comparing models with `==`.
    ///
    /// - Parameter query: A query built on a database (`db.query`).
    public func load<M: Model & Equatable>(_ query: Query<M>) where Value == [M] {
        replaceSource(LiveSource(query: query, isSame: ==))
    }

    /// Follows another query with `including` from now on.
    ///
    /// - Parameter query: A query built on a database (`db.query`).
    public func load<Including: IncludingQuery>(_ query: Including) where Value == [Including.Element] {
        replaceSource(LiveSource(including: query))
    }

    /// Follows another read from now on.
    ///
    /// - Parameters:
    ///   - database: The database to read.
    ///   - fetch: Reads the value; it must only read.
    public func load<Database: ModelDatabase>(
        _ database: Database, _ fetch: @escaping @Sendable (Database.Transaction) throws -> Value
    ) where Value: Equatable {
        replaceSource(LiveSource(observation: .success(database.observe(fetch)), isSame: ==))
    }
}

extension LiveSource {
    /// The observation of a query, on the database it was built on.
    init<M: Model>(query: Query<M>, isSame: @escaping @Sendable (Value, Value) -> Bool) where Value == [M] {
        self.init(observation: query.target.liveDatabase().map { $0.observe(query) }, isSame: isSame)
    }

    /// The observation of a query with `including`, on the database it was built on; values are
    /// compared by what their models encode, level by level.
    init<Including: IncludingQuery>(including query: Including) where Value == [Including.Element] {
        let node = query.relationTree.node
        self.init(
            observation: query.relationTree.backendQuery.target.liveDatabase().map { $0.observe(query) },
            isSame: {
                LiveComparison.sameEncoding(
                    $0.map { EncodedNode(node($0)) }, $1.map { EncodedNode(node($0)) })
            })
    }
}

extension QueryTarget {
    /// The database a live query of a query built here follows.
    func liveDatabase() -> Result<any ModelDatabase, DatabaseError> {
        switch self {
        case .database(let database):
            return .success(database)
        case .backend(let backend):
            if let database = backend.followingDatabase { return .success(database) }
        case .confined, .detached:
            break
        }
        return .failure(
            DatabaseError(
                resultCode: .misuse,
                message: "a live query follows a query built on a database (db.query); this one was built on "
                    + "a transaction's or read's connection (tx.query), which ends with its closure"))
    }
}
