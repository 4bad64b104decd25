/// The result a read of a model gives when the model's table does not exist yet: nothing
/// (no rows, no model, a count of 0, `false`, `nil`), as if the table were there and empty.
protocol EmptyTableReadResult {
    /// What the read returns for a table that does not exist.
    static var resultForMissingTable: Self { get }
}

extension Int: EmptyTableReadResult {
    static var resultForMissingTable: Int { 0 }
}

extension Bool: EmptyTableReadResult {
    static var resultForMissingTable: Bool { false }
}

extension Optional: EmptyTableReadResult {
    static var resultForMissingTable: Wrapped? { nil }
}

extension Array: EmptyTableReadResult {
    static var resultForMissingTable: [Element] { [] }
}

/// The result of a read of a table that does not exist: `[]`, 0, `false`, `nil`, or nothing.
///
/// - Throws: ``SchemaError`` for a result type with no empty value (no LiteRecord read has one).
func emptyTableResult<T>(_ type: T.Type) throws -> T {
    if let empty = (T.self as? any EmptyTableReadResult.Type)?.resultForMissingTable as? T { return empty }
    if let nothing = () as? T { return nothing }
    throw SchemaError("a read of a missing table has no empty \(T.self) to return")
}

extension Connection {
    /// Runs `body`, a read of a model's table, with the table's schema; when the table does not
    /// exist and this connection does not create it (a reader, the writer inside a read, a
    /// read-only database), returns the empty result instead of SQLite's "no such table".
    ///
    /// A model type that was never written reads as an empty table: `count` is 0, `fetchAll`
    /// is `[]`. Only LiteRecord's own model reads do this; raw SQL naming a missing table, and
    /// a missing column of a table that exists, still throw. The check costs nothing when the
    /// table is there: it runs only after SQLite reports the table missing. A fetch being
    /// observed records the missing table as read, so the observation fetches again once rows
    /// are written to it.
    func readingModelTable<M: Model, T>(_ type: M.Type, _ body: (TableSchema) throws -> T) throws -> T {
        guard isReadOnly || isQueryOnly else { return try body(table(for: M.self)) }
        let id = ObjectIdentifier(M.self)
        let schema: TableSchema
        if let prepared = preparedModels[id] {
            schema = prepared
        } else {
            schema = try TableSchemaCache.schema(for: M.self)
            // A connection that never creates tables keeps the schema (not a promise that the
            // table exists); the writer, inside a read, must still create or grow it on its next
            // write.
            if role == .reader || isReadOnly { preparedModels[id] = schema }
        }
        do {
            return try body(schema)
        } catch let error as DatabaseError where error.namesMissingTable(schema.tableName) {
            guard try !tableExists(schema.tableName) else { throw error }
            authorizer?.recordRead(of: schema.tableName)
            return try emptyTableResult(T.self)
        }
    }
}

extension DatabaseError {
    /// Whether this is SQLite's "no such table" for `table` (unqualified or in `main`).
    fileprivate func namesMissingTable(_ table: String) -> Bool {
        guard resultCode.primary == .error, message.hasPrefix("no such table: ") else { return false }
        let named = message.dropFirst("no such table: ".count).lowercased()
        return named == table.lowercased() || named == "main." + table.lowercased()
    }
}
