/// A table that a relation filter (`where(Author.self) {...}`, `where(any: Book.self) {...}`)
/// reads besides the query's own, so that a related model never saved yet reads as an empty
/// table, as the query's own model does, rather than as SQLite's "no such table".
struct RelatedModelTable: Sendable {
    /// Creates or grows the table on a connection that writes.
    let prepare: @Sendable (Connection) throws -> Void
    /// The related model's schema.
    let schema: @Sendable () throws -> TableSchema
    /// The related model, for another backend to create its table.
    let model: any Model.Type

    init<Related: Model>(_ type: Related.Type) {
        model = Related.self
        prepare = { _ = try $0.table(for: Related.self) }
        schema = { try TableSchemaCache.schema(for: Related.self) }
    }
}

extension Connection {
    /// Runs `body`, a read whose SQL also reads the related models' tables. A connection that
    /// creates tables creates them first; one that does not (a reader, a read-only database)
    /// answers as for an empty related table when one is missing: a relation filter on a table
    /// with no rows matches nothing, so the whole read is empty.
    func readingRelatedModelTables<T>(_ related: [RelatedModelTable], _ body: () throws -> T) throws -> T {
        guard !related.isEmpty else { return try body() }
        guard isReadOnly || isQueryOnly else {
            for table in related { try table.prepare(self) }
            return try body()
        }
        do {
            return try body()
        } catch let error as DatabaseError
            where error.resultCode.primary == .error && error.message.hasPrefix("no such table: ")
        {
            let missing = try related.map { try $0.schema() }.filter { try !tableExists($0.tableName) }
            guard !missing.isEmpty else { throw error }
            for table in missing { authorizer?.recordRead(of: table.tableName) }
            return try emptyTableResult(T.self)
        }
    }
}
