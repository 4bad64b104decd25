// What another backend (LiteRecordPostgres) needs from a query: a query with no SQLite context,
// and its SQL, built by the same code as SQLite's while `SQLDialect.current` names the backend.
// Package access: LiteRecord's public API does not grow.

extension Query {
    /// The query's SELECT of `selection` (`*`, `count(*)`), in the current dialect.
    ///
    /// - Parameter selection: The selected columns or aggregate, as SQL.
    /// - Returns: The SQL and its arguments.
    /// - Throws: The first problem found while building the query (a key path that is not a
    ///   column, a value that cannot be stored).
    package func backendSelectSQL(_ selection: SQL) throws -> SQL {
        if let buildError { throw buildError }
        if fullTextMatch != nil {
            throw DatabaseError(
                resultCode: .misuse,
                message: "full-text search (matching) is not available on this backend yet")
        }
        let table = try TableSchemaCache.schema(for: M.self)
        return selectSQL(selection, table: table)
    }
}

extension Query {
    /// The query's offset, if any (a backend's `fetchOne` keeps it when limiting to one row).
    package var backendOffset: Int? { offsetCount }
}
