/// A query on a model's table, built step by step and run when asked for results.
///
/// Each method returns a new query; nothing runs until a fetch, count or change.
///
/// ```swift
/// let top = try db.query(Player.self)
///     .where { $0.score > 100 && $0.team == .red }
///     .order { $0.score.descending }
///     .limit(10)
///     .fetchAll()
/// ```
///
/// The generated SQL is stable and visible: `query.sqlDescription`.
///
/// A query is a `Sendable` value: build it anywhere (on the main actor too) and await its async
/// forms, or hand it to another task. A query built on a transaction's connection
/// (`tx.query(P.self)`) runs only inside that transaction's closure, on its thread.
///
/// ## Topics
/// - ``where(_:)``
/// - ``where(sql:)``
/// - ``order(_:)-((Columns<M>)->Ordering)``
/// - ``limit(_:offset:)``
/// - ``fetchAll()-2xr4o``
/// - ``fetchOne()-95mgs``
/// - ``count()-lzd9``
/// - ``exists()-2v19w``
/// - ``updateAll(_:)-706nu``
/// - ``deleteAll()-47jvt``
public struct Query<M: Model>: Sendable {
    /// The database or connection the query was built on.
    private(set) var target: QueryTarget
    let dateStorage: DateStorage
    var conditions: [Condition] = []
    var orderings: [Ordering] = []
    var limitCount: Int?
    var offsetCount: Int?
    package var isDistinct = false
    var groupKeys: [PropertyReference] = []
    /// The full-text search of `matching(_:)` (Search/), if any.
    var fullTextMatch: FullTextMatch?
    /// The tables of the models relation filters read (Relations/).
    var relatedTables: [RelatedModelTable] = []
    /// Whether the query was built on another database and handed to SQLite
    /// (`db.observe(pg.query(...))`): its SQL is the other database's, so it does not run.
    var wasBuiltForAnotherBackend = false

    init(context: any DatabaseContext, dateStorage: DateStorage) {
        self.target = QueryTarget(context)
        self.dateStorage = dateStorage
    }

    /// A query of every row of the model's table on another database, which runs its
    /// operations (`QueryBackend`) with the SQL the query builds in its dialect
    /// (`Query+Backend.swift`).
    ///
    /// - Parameters:
    ///   - backend: The database that runs the query.
    ///   - dateStorage: How the backend stores dates.
    package init(backend: any QueryBackend, dateStorage: DateStorage) {
        self.target = .backend(backend)
        self.dateStorage = dateStorage
    }

    /// A query that runs nowhere, for its SQL alone (`Query+Backend.swift`), built in `dialect`.
    ///
    /// - Parameters:
    ///   - dateStorage: How dates are stored.
    ///   - dialect: The SQL dialect the query and its closures are built in.
    package init(backendWithDateStorage dateStorage: DateStorage, dialect: any SQLDialect) {
        self.target = .detached(type(of: dialect))
        self.dateStorage = dateStorage
    }

    /// A query of every row of this model's table, run where `other` runs (the rows an
    /// `including` attaches to another query's results).
    init<Other: Model>(sameTargetAs other: Query<Other>) {
        self.target = other.target
        self.dateStorage = other.dateStorage
    }

    /// Where the query runs.
    ///
    /// - Throws: ``DatabaseError`` (`.misuse`) for a query built on a transaction's connection
    ///   and run on another thread.
    var context: any DatabaseContext {
        get throws { try target.context() }
    }

    /// The same query, run on another context.
    func on(_ context: any DatabaseContext) -> Query {
        var copy = self
        if target.backend != nil { copy.wasBuiltForAnotherBackend = true }
        copy.target = QueryTarget(context)
        return copy
    }

    /// The columns the query's closures receive, in the query's dialect: a condition or an
    /// ordering is built in the SQL of the database that runs it, whichever task builds it.
    var columns: Columns<M> {
        Columns(
            table: Result { try TableSchemaCache.schema(for: M.self) }, dateStorage: dateStorage,
            dialectType: dialectType)
    }

    /// Keeps the rows for which the condition holds (several `where` calls must all hold).
    ///
    /// - Parameter condition: Builds the condition from the columns: `{ $0.score > 100 }`.
    /// - Returns: The narrowed query.
    public func `where`(_ condition: (Columns<M>) -> Condition) -> Query {
        var copy = self
        copy.conditions.append(condition(columns))
        return copy
    }

    /// Keeps the rows for which an SQL condition holds; values interpolated are bound.
    ///
    /// - Parameter sql: A boolean SQL expression: `"score > \(minimum)"`.
    /// - Returns: The narrowed query.
    public func `where`(sql: SQL) -> Query {
        var copy = self
        copy.conditions.append(Condition(sql: sql))
        return copy
    }

    /// Sorts by one key, or several in an array (replacing earlier sort keys).
    ///
    /// - Parameter ordering: `{ $0.score.descending }` or
    ///   `{ [$0.team.ascending(nulls: .last), $0.score.descending] }`.
    /// - Returns: The sorted query.
    public func order(_ ordering: (Columns<M>) -> Ordering) -> Query {
        var copy = self
        copy.orderings = [ordering(columns)]
        return copy
    }

    /// Returns at most `count` rows, after skipping `offset`.
    ///
    /// - Parameters:
    ///   - count: The maximum number of rows.
    ///   - offset: How many rows to skip first.
    /// - Returns: The limited query.
    public func limit(_ count: Int, offset: Int? = nil) -> Query {
        var copy = self
        copy.limitCount = count
        copy.offsetCount = offset ?? offsetCount
        return copy
    }

    /// Skips `count` rows.
    ///
    /// - Parameter count: How many rows to skip.
    /// - Returns: The query.
    public func offset(_ count: Int) -> Query {
        var copy = self
        copy.offsetCount = count
        return copy
    }

    /// Removes duplicate rows from the results.
    ///
    /// - Returns: The query.
    public func distinct() -> Query {
        var copy = self
        copy.isDistinct = true
        return copy
    }

    // MARK: - SQL

    /// The first problem found while building the query (a key path that is not a column, a
    /// value that cannot be stored), thrown when it runs.
    var buildError: (any Error)? {
        if wasBuiltForAnotherBackend {
            return DatabaseError(
                resultCode: .misuse,
                message: "this query was built on another database and its SQL is that database's; "
                    + "a SQLite database runs only queries built on it (db.query)")
        }
        if let error = conditions.lazy.compactMap(\.error).first ?? orderings.lazy.compactMap(\.error).first {
            return error
        }
        if let boundsError { return boundsError }
        if let fullTextMatchError { return fullTextMatchError }
        guard !groupKeys.isEmpty else { return nil }
        do {
            _ = try groupClause(TableSchemaCache.schema(for: M.self))
            return nil
        } catch {
            return error
        }
    }

    func whereClause() -> SQL {
        // A dialect may search in the WHERE (a condition on the table's own search column).
        let search = fullTextMatch == nil ? nil : dialect.fullTextCondition(of: self)
        guard let first = search ?? conditions.first?.sql else { return "" }
        let rest = search == nil ? conditions.dropFirst() : conditions[...]
        let combined = rest.reduce(first) { "\($0) AND \($1.sql)" }
        return " WHERE \(combined)"
    }

    package func orderClause() -> SQL {
        let terms = orderings.flatMap(\.terms)
        guard let first = terms.first else { return "" }
        let combined = terms.dropFirst().reduce(first) { "\($0), \($1)" }
        return " ORDER BY \(combined)"
    }

    func limitClause() -> SQL {
        if let limitCount {
            if let offsetCount { return " LIMIT \(limitCount) OFFSET \(offsetCount)" }
            return " LIMIT \(limitCount)"
        }
        if let offsetCount {
            return " LIMIT \(SQL(dialect.unboundedLimit)) OFFSET \(offsetCount)"
        }
        return ""
    }

    /// `SELECT <selection> FROM table WHERE ... ORDER BY ... LIMIT ...`
    func selectSQL(_ selection: SQL, table: TableSchema, ordered: Bool = true, limited: Bool = true) -> SQL {
        if isDistinct, ordered, !orderings.isEmpty, selection.text == "*",
            dialect.ordersDistinctRowsOutside
        {
            // A dialect that orders DISTINCT rows only by selected values: sort and limit the
            // distinct rows outside, by the same terms over the same column names.
            var rows = self
            rows.orderings = []
            var sql: SQL = "SELECT * FROM ("
            sql.append(rows.selectSQL(selection, table: table, ordered: false, limited: false))
            sql.append(") AS \(SQL(SQL.quoteIdentifier(table.tableName)))\(orderClause())")
            if limited { sql.append(limitClause()) }
            return sql
        }
        let distinct: SQL = isDistinct ? "DISTINCT " : ""
        var sql: SQL =
            "SELECT \(distinct)\(fullTextSelection(selection, table: table)) FROM \(fullTextSource(table))"
        sql.append(whereClause())
        sql.append((try? groupClause(table)) ?? "")
        if ordered {
            sql.append(orderings.isEmpty ? fullTextRankOrder(table, selection: selection) : orderClause())
        }
        if limited { sql.append(limitClause()) }
        return sql
    }

    /// The SELECT this query runs, with its arguments, for debugging and tests.
    public var sqlDescription: String {
        do {
            if backend != nil { return try backendSelectSQL("*").description }
            if let buildError { throw buildError }
            let table = try TableSchemaCache.schema(for: M.self)
            return selectSQL("*", table: table).description
        } catch {
            return "invalid query: \(error)"
        }
    }
}

extension Query: CustomStringConvertible {
    public var description: String { sqlDescription }
}

extension DatabaseContext {
    /// Starts a query on a model's table.
    ///
    /// - Parameter type: The model type.
    /// - Returns: A query matching every row; narrow it with `where`, sort it with `order`.
    public func query<M: Model>(_ type: M.Type) -> Query<M> {
        Query(context: self, dateStorage: configuration.dateStorage)
    }
}
