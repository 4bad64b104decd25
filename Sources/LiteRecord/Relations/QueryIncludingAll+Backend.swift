// What another backend (LiteRecordPostgres) needs to run an eager load: the roots' SELECT and
// the related rows' SELECT, built by the same relation resolution and SQL code as SQLite's
// while `SQLDialect.current` names the backend. Package access: the public API does not grow.

/// An eager load's plan for another backend: the roots' query, the root columns whose values
/// select the related rows, and the related rows' query for the roots' keys.
package struct BackendEagerLoad: Sendable {
    let load: EagerLoad
    let conditions: [Condition]
    let orderClause: SQL
    /// The SELECT of the roots, in the root query's order and limit.
    package let rootSQL: SQL

    /// The columns of a root row whose values select its related rows.
    package var rootKeyColumns: [String] { load.rootColumns }

    /// The SELECT of every related row of the given keys, narrowed and sorted by the children
    /// query, and the columns of its rows that hold the key each row belongs to.
    ///
    /// Build it while ``SQLDialect/current`` names the backend.
    ///
    /// - Parameter keys: The distinct keys of the roots, a value per root key column, none NULL.
    /// - Returns: The SQL (one bound parameter for all the keys) and the key columns.
    /// - Throws: ``SchemaError`` for a key that cannot be bound exactly.
    package func targetSQL(keys: [[DatabaseValue]]) throws -> (sql: SQL, keyColumns: [String]) {
        let keys =
            try SQLDialect.current == .postgres
            ? KeyList.postgresKeys(keys)
            : KeyList.json(
                keys.map { $0.count == 1 ? .single($0[0]) : .composite($0) })
        return load.targetSQL(keys: keys, conditions: conditions, orderClause: orderClause)
    }
}

extension QueryIncludingAll {
    /// The plan of this eager load for another backend; build it while ``SQLDialect/current``
    /// names the backend.
    ///
    /// - Returns: The plan.
    /// - Throws: ``SchemaError`` when no foreign key relates the models or several do, or the
    ///   children query has a limit, offset, `distinct` or grouping; the first problem found
    ///   while building the queries.
    package func backendLoad() throws -> BackendEagerLoad {
        if let error = root.buildError ?? children.buildError { throw error }
        try checkChildrenQuery()
        return BackendEagerLoad(
            load: try load.get(), conditions: children.conditions, orderClause: children.orderClause(),
            rootSQL: try root.backendSelectSQL("*"))
    }
}

extension QueryIncludingOne {
    /// The eager load of all related rows this query keeps the first of (another backend runs it).
    package var backendAll: QueryIncludingAll<Root, Target> { all }
}
