extension Connection {
    /// `save` for a table whose key holds UUIDs, dates or decimals: updates the row whose key is
    /// the model's key in any form (a UUID in upper or lower case text or as 16 bytes, a date as
    /// the same instant, a decimal as the same number), and inserts only when none is.
    ///
    /// `INSERT ... ON CONFLICT` would see `e621...` and `E621...` as different keys and insert
    /// a duplicate row.
    func updateOrInsert<M: Model>(_ model: M, table: TableSchema) throws {
        let encoded = try encodeModel(model, table: table)
        if let sql = table.statements.update {
            let updated = try writingByStoredKey(encoded.row, table: table) { row in
                try writeKeepingForeignKeys(row, table: table) { row in
                    let values = table.statements.updateArguments(try valuesInTableOrder(row, table: table))
                    try execute(SQL(sql, arguments: StatementArguments(positional: values)))
                }
                return changes > 0
            }
            if updated { return }
        } else if try rowExists(table: table, key: keyValues(of: encoded.row, table: table)) {
            return
        }
        try runInsert(encoded, of: M.self, table: table, sql: table.statements.insert, kind: .insert)
    }

    /// An encoded row's values in the order of the table's columns.
    ///
    /// - Throws: ``PersistenceError`` when the model did not encode one of them.
    func valuesInTableOrder(_ row: EncodedRow, table: TableSchema) throws -> [DatabaseValue] {
        if row.columns == table.statements.columns { return row.values }
        return try table.statements.columns.map { column in
            guard let value = row[column] else {
                throw PersistenceError(
                    "\(table.typeName) did not encode column \(column)", table: table.tableName)
            }
            return value
        }
    }
}
