// The seam between LiteRecord's query types and a database other than SQLite. A `Query` built
// on such a database (`pg.query(Player.self)`) carries its backend, and every operation that
// reads or writes rows hands the query to it; everything that only builds the query (`where`,
// `order`, `including`, `select`, ...) is LiteRecord's own, in the backend's dialect. So one
// `Query<M>` type, one `Projection`, one set of `including` types serve every backend.
// Package access: LiteRecordPostgres implements it; LiteRecord's public API does not grow.

/// A database other than SQLite that runs LiteRecord's queries.
///
/// Each requirement runs one operation of a query built on the backend, with SQL the query
/// builds in ``dialect`` (`Query+Backend.swift`), and answers as SQLite does: a model table
/// that does not exist yet reads as empty.
package protocol QueryBackend: Sendable {
    /// The SQL the backend speaks, which a query built on it carries and its closures are built in.
    var dialect: any SQLDialect { get }

    /// Every model the query matches, in its order.
    func fetchAll<M: Model>(_ query: Query<M>) throws -> [M]

    /// The first model the query matches (`limit(0)` has none), or `nil`.
    func fetchOne<M: Model>(_ query: Query<M>) throws -> M?

    /// Decodes the matching models one at a time, without holding them all.
    func forEach<M: Model>(_ query: Query<M>, _ body: (M) throws -> Void) throws

    /// The number of rows (or groups) the query returns.
    func count<M: Model>(_ query: Query<M>) throws -> Int

    /// Whether the query returns a row.
    func exists<M: Model>(_ query: Query<M>) throws -> Bool

    /// An aggregate (`sum`, `min`, `max`, `avg`) of a column over the rows the query returns,
    /// decoded as `type`; `nil` when no row has a value.
    func aggregate<M: Model, Value, Result: Decodable>(
        _ query: Query<M>, _ function: String, of column: Column<Value>, as type: Result.Type
    ) throws -> Result?

    /// Sets columns of every matching row; the number of rows changed.
    func updateAll<M: Model>(_ query: Query<M>, _ assignments: [ColumnAssignment]) throws -> Int

    /// Deletes every matching row; the number of rows deleted.
    func deleteAll<M: Model>(_ query: Query<M>) throws -> Int

    /// Decodes the projection's rows one at a time.
    func forEach<M: Model, T: Decodable>(_ projection: Projection<M, T>, _ body: (T) throws -> Void) throws

    /// Every model a `matching` query finds, with a snippet of one indexed property.
    func fetchAll<M: Model>(
        _ query: Query<M>, withSnippetsOf property: PartialKeyPath<M>, style: SnippetStyle
    ) throws -> [(M, String)]

    /// Runs an eager load, level by level, in one snapshot.
    func fetchAll<Root: Model, Element>(_ tree: RelationTree<Root, Element>) throws -> [Element]

    /// The database that follows the query's results (a ``LiveQuery``): the one it was built
    /// on, `nil` when it was built inside a transaction, which ends with its closure.
    var followingDatabase: (any ModelDatabase)? { get }

    /// Runs `work`, an operation of a query built on the backend, off the calling task, as the
    /// async forms do; cancelling the task cancels the statement.
    func run<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T
}

extension Query {
    /// The backend that runs the query, when it was built on a database other than SQLite.
    package var backend: (any QueryBackend)? { target.backend }

    /// The models whose tables the query's relation filters read besides its own, for a backend
    /// to create or check them before it runs.
    package var backendRelatedModels: [any Model.Type] { relatedTables.map(\.model) }

    /// The type of the SQL dialect of the database the query runs on, which its columns carry
    /// (see ``Columns``): a backend's own, SQLite's otherwise.
    package var dialectType: any SQLDialect.Type { target.dialectType }

    /// The SQL dialect of the database the query runs on, which builds its SQL.
    package var dialect: any SQLDialect { dialectType.init() }
}
