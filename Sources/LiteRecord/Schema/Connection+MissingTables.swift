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
    /// The table of a model type, for a read; `nil` when the table does not exist and this
    /// connection does not create it (a reader, the writer inside a read, a read-only
    /// database).
    ///
    /// A model type that was never written reads as an empty table: `count` is 0, `fetchAll`
    /// is `[]`, not "no such table". Only LiteRecord's own model reads do this; raw SQL naming
    /// a missing table, and a missing column of a table that exists, still throw. A fetch being
    /// observed records the missing table as read, so the observation fetches again once rows
    /// are written to it.
    func tableForReading<M: Model>(_ type: M.Type) throws -> TableSchema? {
        guard isReadOnly || isQueryOnly else { return try table(for: M.self) }
        let id = ObjectIdentifier(M.self)
        if let schema = preparedModels[id] { return schema }
        let schema = try TableSchemaCache.schema(for: M.self)
        guard try tableExists(schema.tableName) else {
            authorizer?.recordRead(of: schema.tableName)
            return nil
        }
        // Only a connection that never creates tables remembers the check; the writer, inside a
        // read, must still create or grow the table on its next write.
        if role == .reader || isReadOnly { preparedModels[id] = schema }
        return schema
    }
}
