extension Query {
    /// The first step of every `including` fetch: runs this query (the roots) with the values
    /// of `keyColumns`, which select the related rows, and hands both to `attach`, which fetches
    /// those rows; all in one read snapshot, so that every level sees the same database.
    ///
    /// - Parameters:
    ///   - keyColumns: The roots' columns whose values select the related rows.
    ///   - prepareTables: Creates the missing tables of the levels below; called only on a
    ///     connection that can write.
    ///   - attach: Fetches the related rows for the roots and gives each root's element, in the
    ///     roots' order.
    /// - Returns: The elements; none when the roots' table does not exist yet (a reader).
    func fetchRootsWithKeys<Element>(
        keyColumns: [String], prepareTables: (Connection) throws -> Void,
        attach: (_ roots: [M], _ keys: RowKeys, _ connection: Connection) throws -> [Element]
    ) throws -> [Element] {
        try context.withReader(preparing: M.self) { connection in
            if !connection.isReadOnly && !connection.isQueryOnly { try prepareTables(connection) }
            return try connection.inOneSnapshot {
                let roots: (models: [M], keys: RowKeys)? = try connection.readingRelatedModelTables(
                    relatedTables
                ) {
                    // Optional, so that a missing table reads as nil: no roots.
                    try connection.readingModelTable(M.self) { table -> (models: [M], keys: RowKeys)? in
                        try connection.fetchModelsWithKeys(
                            M.self, table: table, sql: selectSQL("*", table: table), keyColumns: keyColumns)
                    }
                }
                guard let roots else { return [] }
                return try attach(roots.models, roots.keys, connection)
            }
        }
    }
}
