import LiteRecord

/// What runs a LiteRecord ``LiteRecord/Query`` built on PostgreSQL (`pg.query(Player.self)`): the
/// query is LiteRecord's own type, built in PostgreSQL's dialect (``dialect``, which the query
/// and its columns carry), and each operation that reads or writes rows comes here with it.
///
/// Every read first creates or checks the tables it reads: a model never saved reads as an
/// empty table, and in a `read` (which creates nothing) a missing table reads as empty, as on
/// SQLite.
struct PostgresQueryExecutor: QueryBackend {
    let target: PostgresQueryTarget

    var dialect: any SQLDialect { PostgresDialect() }

    var followingDatabase: (any ModelDatabase)? { target.database }

    /// The database or transaction to run on (see ``PostgresQueryTarget``).
    var context: any PostgresContext { get throws { try target.context() } }

    /// Runs `body` with a session and the query's table once the tables it reads are created or
    /// checked; `nil`, without running it, when one of them cannot exist (in a `read`).
    private func reading<M: Model, T>(
        _ query: Query<M>, _ body: (PostgresSession, BackendTable) throws -> T
    ) throws -> T? {
        try context.withReadingSession { session in
            guard let table = try session.readableTable(for: M.self),
                try session.readableTables(of: query.backendRelatedModels)
            else { return nil }
            return try body(session, table)
        }
    }

    func fetchAll<M: Model>(_ query: Query<M>) throws -> [M] {
        let sql = try query.backendSelectSQL("*")
        return try reading(query) { session, table in
            let decoder = table.rowDecoder(dateStorage: session.dateStorage)
            return try session.execute(sql, keepingResult: true).decodeAll(M.self, decoder: decoder)
        } ?? []
    }

    func fetchOne<M: Model>(_ query: Query<M>) throws -> M? {
        // The query's own limit and offset stay: `limit(0)` has no first row.
        try fetchAll(query.firstRowOnly).first
    }

    func forEach<M: Model>(_ query: Query<M>, _ body: (M) throws -> Void) throws {
        let sql = try query.backendSelectSQL("*")
        _ = try reading(query) { session, table in
            let decoder = table.rowDecoder(dateStorage: session.dateStorage)
            try session.forEachRow(sql) { row in try body(decoder.decode(M.self, from: row)) }
        }
    }

    func count<M: Model>(_ query: Query<M>) throws -> Int {
        let sql = try query.backendCountSQL()
        return try reading(query) { session, _ in
            guard case .integer(let count)? = try session.execute(sql).rows.first?.first else { return 0 }
            return Int(count)
        } ?? 0
    }

    func exists<M: Model>(_ query: Query<M>) throws -> Bool {
        try count(query.firstRowOnly) > 0
    }

    func aggregate<M: Model, Value, Result: Decodable>(
        _ query: Query<M>, _ function: String, of column: Column<Value>, as type: Result.Type
    ) throws -> Result? {
        let sql = try query.backendAggregateSQL(function, { _ in column }, resultType: Result.self)
        return try reading(query) { session, _ in
            guard let row = try session.execute(sql).lrRows.first else { return nil }
            return try RowDecoder(dateStorage: session.dateStorage).decode(Result?.self, from: row)
        } ?? nil
    }

    func updateAll<M: Model>(_ query: Query<M>, _ assignments: [ColumnAssignment]) throws -> Int {
        guard let sql = try query.backendUpdateSQL({ _ in assignments }, rowIdentity: "ctid") else {
            return 0
        }
        return try changing(query, sql)
    }

    func deleteAll<M: Model>(_ query: Query<M>) throws -> Int {
        try changing(query, try query.backendDeleteSQL(rowIdentity: "ctid"))
    }

    /// Runs a bulk change once the tables it touches exist.
    private func changing<M: Model>(_ query: Query<M>, _ sql: SQL) throws -> Int {
        try context.withSession { session in
            _ = try session.preparedTable(for: M.self)
            try session.prepareTables(of: query.backendRelatedModels)
            return try session.execute(sql).changes
        }
    }

    func forEach<M: Model, T: Decodable>(_ projection: Projection<M, T>, _ body: (T) throws -> Void) throws {
        let sql = try projection.backendSelectSQL()
        _ = try reading(projection.backendQuery) { session, _ in
            let decoder = RowDecoder(dateStorage: session.dateStorage)
            try session.forEachRow(sql) { row in try body(decoder.decode(T.self, from: row)) }
        }
    }

    func fetchAll<M: Model>(
        _ query: Query<M>, withSnippetsOf property: PartialKeyPath<M>, style: SnippetStyle
    ) throws -> [(M, String)] {
        let (sql, column) = try query.backendSnippetSQL(of: property, style: style)
        return try reading(query) { session, table in
            let decoder = table.rowDecoder(dateStorage: session.dateStorage)
            return try session.execute(sql).lrRows.map { row in
                let model = try decoder.decode(M.self, from: row)
                let marked = try row.value(String?.self, named: PostgresFullTextSearch.snippetColumn) ?? ""
                let fragment = try row.value(String?.self, named: PostgresFullTextSearch.fragmentColumn) ?? ""
                // The indexed value as text; another type counts as wholly shown.
                let document: String
                switch try row.value(named: column) {
                case .text(let text): document = text
                case .integer(let integer): document = String(integer)
                default: document = fragment
                }
                return (model, style.postgresSnippet(marked: marked, fragment: fragment, document: document))
            }
        } ?? []
    }

    func fetchAll<Root: Model, Element>(_ tree: RelationTree<Root, Element>) throws -> [Element] {
        try PostgresRelationTree(target: target, tree: tree).fetchAll()
    }

    func run<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        // A query built on a transaction runs inside that transaction's closure, on its thread.
        guard let database = target.database else { return try work() }
        return try await database.runCancellable { _ in try work() }
    }
}

extension Query {
    /// The PostgreSQL database or transaction the query was built on, when that is `database`
    /// (`pg.query`, or `tx.query` inside one of its transactions).
    ///
    /// - Parameters:
    ///   - operation: What is asked of the query, for the error.
    ///   - database: The database that runs it.
    /// - Throws: ``LiteRecord/DatabaseError`` with ``LiteRecord/ResultCode/misuse`` for a query
    ///   built on a SQLite database (its SQL is SQLite's) or on another PostgreSQL database (it
    ///   would not watch the one that runs it).
    func postgresExecutor(for operation: String, on database: PostgresDatabase) throws
        -> PostgresQueryExecutor
    {
        guard let executor = backend as? PostgresQueryExecutor else {
            throw DatabaseError(
                backendName: "PostgreSQL",
                resultCode: .misuse,
                message: "\(operation) takes a query built on this PostgreSQL database (pg.query), "
                    + "not one built on SQLite")
        }
        guard executor.target.owningDatabase === database else {
            throw DatabaseError(
                backendName: "PostgreSQL",
                resultCode: .misuse,
                message:
                    "\(operation) takes a query built on this PostgreSQL database (pg.query), but this one "
                    + "was built on another PostgreSQL database; a query runs on the database it was built on: "
                    + "call \(operation) on that database, or build the query on this one")
        }
        return executor
    }
}
