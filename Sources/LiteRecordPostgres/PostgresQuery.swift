import Foundation
import LiteRecord

/// A query on a model's table in PostgreSQL, built with the same closures as a SQLite
/// ``LiteRecord/Query`` (the same code builds its SQL, in PostgreSQL's dialect) and run when
/// asked for results.
///
/// ```swift
/// let top = try pg.query(Player.self)
///     .where { $0.score > 100 && $0.team == .red }
///     .order { $0.score.descending }
///     .limit(10)
///     .fetchAll()
/// ```
///
/// Supported on PostgreSQL: comparisons (`==`, `!=`, `<`, ..., null-safe as in Swift), `in`,
/// `&&`, `||`, `!`, members of JSON columns (`$0.stats.wins`), string predicates (`hasPrefix`,
/// `contains`, the `caseInsensitive` forms, by bytes and ASCII case folding as on SQLite),
/// `lowercased()`/`uppercased()` (Unicode, through ICU), JSON collections (`tags.contains`,
/// `count`, `scores["key"]`, `contains(where:)`), arithmetic, ordering, limit, offset, distinct,
/// raw SQL conditions, `updateAll`/`deleteAll`, aggregates, `select`/`group(by:)` projections,
/// `forEach`, `page(after:limit:)`, filters across relations (`where(Author.self) { ... }`,
/// `where(any: Book.self) { ... }`), eager loading (`including(all:)`, `including(one:)`, nested)
/// and full-text search (`matching(_:)`, snippets). Not yet: the character `count` of a string
/// (PostgreSQL cannot count grapheme clusters; it throws).
public struct PostgresQuery<M: Model>: Sendable {
    let target: PostgresQueryTarget
    /// The database or transaction to run on (see ``PostgresQueryTarget``).
    var context: any PostgresContext { get throws { try target.context() } }
    var query: Query<M>
    /// The models whose tables a condition reads besides this model's (a filter across a
    /// relation), created before the query runs as this model's table is.
    var relatedTypes: [any Model.Type] = []

    init(context: any PostgresContext) {
        self.target = PostgresQueryTarget(context)
        let database = (context as? PostgresDatabase) ?? (context as? PostgresTransaction)?.session.database
        let dateStorage = database?.configuration.dateStorage ?? .text
        self.query = Query(backendWithDateStorage: dateStorage)
    }

    func with(_ change: (Query<M>) -> Query<M>) -> PostgresQuery {
        var copy = self
        copy.query = SQLDialect.$current.withValue(.postgres) { change(query) }
        return copy
    }

    /// Keeps the rows for which the condition holds (several `where` calls must all hold).
    ///
    /// - Parameter condition: Builds the condition from the columns: `{ $0.score > 100 }`.
    /// - Returns: The narrowed query.
    public func `where`(_ condition: (Columns<M>) -> Condition) -> PostgresQuery {
        with { $0.where(condition) }
    }

    /// Keeps the rows for which an SQL condition holds; values interpolated are bound.
    ///
    /// - Parameter sql: A boolean SQL expression: `"score > \(minimum)"`.
    /// - Returns: The narrowed query.
    public func `where`(sql: SQL) -> PostgresQuery {
        with { $0.where(sql: sql) }
    }

    /// Sorts by one key, or several in an array (replacing earlier sort keys).
    ///
    /// PostgreSQL sorts NULL after every value in ascending order (SQLite before); say
    /// `ascending(nulls:)` to choose.
    ///
    /// - Parameter ordering: `{ $0.score.descending }`.
    /// - Returns: The sorted query.
    public func order(_ ordering: (Columns<M>) -> Ordering) -> PostgresQuery {
        with { $0.order(ordering) }
    }

    /// Returns at most `count` rows, after skipping `offset`.
    ///
    /// - Parameters:
    ///   - count: The maximum number of rows.
    ///   - offset: How many rows to skip first.
    /// - Returns: The limited query.
    public func limit(_ count: Int, offset: Int? = nil) -> PostgresQuery {
        with { $0.limit(count, offset: offset) }
    }

    /// Skips `count` rows.
    ///
    /// - Parameter count: How many rows to skip.
    /// - Returns: The query.
    public func offset(_ count: Int) -> PostgresQuery {
        with { $0.offset(count) }
    }

    /// Removes duplicate rows from the results.
    ///
    /// - Returns: The query.
    public func distinct() -> PostgresQuery {
        with { $0.distinct() }
    }

    /// The SELECT this query runs, with its arguments, for debugging and tests.
    public var sqlDescription: String {
        do {
            return try selectSQL("*").description
        } catch {
            return "invalid query: \(error)"
        }
    }

    func selectSQL(_ selection: SQL) throws -> SQL {
        try SQLDialect.$current.withValue(.postgres) { try query.backendSelectSQL(selection) }
    }

    /// Fetches every matching row as a model.
    ///
    /// - Returns: The models, in the query's order.
    /// - Throws: ``LiteRecord/DatabaseError``, ``LiteRecord/RowDecodingError``, or the problem
    ///   found while building the query.
    public func fetchAll() throws -> [M] {
        let sql = try selectSQL("*")
        return try context.withSession { session in
            guard let table = try session.readableTable(for: M.self),
                try session.readableTables(of: relatedTypes)
            else { return [] }
            let decoder = table.rowDecoder(dateStorage: session.dateStorage)
            return try session.execute(sql).lrRows.map { try decoder.decode(M.self, from: $0) }
        }
    }

    /// Fetches the first matching row, or `nil`.
    ///
    /// - Returns: The first model, or `nil`.
    /// - Throws: As ``fetchAll()-7qelv``.
    public func fetchOne() throws -> M? {
        // The query's own limit and offset stay: `limit(0)` has no first row.
        try with { $0.firstRowOnly }.fetchAll().first
    }

    /// The first matching model, or `nil`; the same as ``fetchOne()-1s3kc``.
    ///
    /// - Returns: The first model, or `nil`.
    /// - Throws: As ``fetchAll()-7qelv``.
    public func first() throws -> M? {
        try fetchOne()
    }

    /// Counts the matching rows (after `limit` and `offset`, when given); for a grouped query,
    /// the number of groups, as many as `select(_:_:)` returns.
    ///
    /// - Returns: The number of rows.
    /// - Throws: ``LiteRecord/DatabaseError``.
    public func count() throws -> Int {
        let sql = try SQLDialect.$current.withValue(.postgres) { try query.backendCountSQL() }
        return try context.withSession { session in
            guard try session.readableTable(for: M.self) != nil, try session.readableTables(of: relatedTypes)
            else { return 0 }
            guard case .integer(let count)? = try session.execute(sql).rows.first?.first else { return 0 }
            return Int(count)
        }
    }

    /// Whether any row matches.
    ///
    /// - Returns: Whether a row matches.
    /// - Throws: ``LiteRecord/DatabaseError``.
    public func exists() throws -> Bool {
        try with { $0.firstRowOnly }.count() > 0
    }
}
