import LiteRecord

extension PostgresContext {
    /// Fetches every row of a table (or view) into a `Decodable` type that is not a model: a
    /// read-only view of some of its columns.
    ///
    /// The type's coding keys name the columns to select (`SELECT "id", "total" FROM "orders"`);
    /// the table's other columns are not read. The table is neither created nor changed. The
    /// name is found as the `SELECT` finds it: on the connection's `search_path`.
    ///
    /// ```swift
    /// struct Summary: Decodable { var id: Int64; var total: Double; var note: String? }
    /// let summaries = try pg.fetchAll(Summary.self, fromTable: "orders")
    /// ```
    ///
    /// - Parameters:
    ///   - type: The type of each element; its properties are read from the columns of the
    ///     same names (its `CodingKeys` strings, ignoring ASCII case, as on SQLite).
    ///   - table: The table or view name; it is quoted, so any name works (and case counts).
    /// - Returns: The rows, in the order the server returns them (for another order, or a
    ///   filter, write the SQL: ``fetchAll(_:sql:)->[T]``).
    /// - Throws: ``LiteRecord/SchemaError`` naming the property and the table's columns when a
    ///   non-optional property has no column (an optional one reads `nil`), or when the type has
    ///   no keys; ``LiteRecord/DatabaseError`` (`no such table`) for a table that does not exist;
    ///   ``LiteRecord/RowDecodingError`` when a value does not fit.
    public func fetchAll<T: Decodable>(_ type: T.Type, fromTable table: String) throws -> [T] {
        try withReadingSession { session in
            // `to_regclass` resolves the quoted name as the SELECT will, and is NULL (no rows)
            // when there is no such relation.
            let columns = try session.execute(
                """
                SELECT attname::text FROM pg_attribute
                WHERE attrelid = to_regclass(quote_ident(\(table))) AND attnum > 0 AND NOT attisdropped
                ORDER BY attnum
                """
            ).lrRows.map { try $0.value(String.self, at: 0) }
            if columns.isEmpty, let folded = try session.foldedTableName(for: table) {
                throw DatabaseError(
                    backendName: "PostgreSQL",
                    resultCode: .error,
                    message: "no such table: \(table) (PostgreSQL folds unquoted names to lower case: "
                        + "the table is \(SQL.quoteIdentifier(folded)))")
            }
            let sql = try DecodableTableSelection.selectSQL(for: T.self, fromTable: table, columns: columns)
            let decoder = try session.decoder(for: T.self)
            return try session.execute(sql, keepingResult: true).decodeAll(T.self, decoder: decoder)
        }
    }
}

extension PostgresSession {
    /// The lower-case name of an existing relation, when `name` is not lower case: the name a
    /// table created without quotes (`CREATE TABLE Orders`) really has.
    fileprivate func foldedTableName(for name: String) throws -> String? {
        // PostgreSQL folds ASCII letters only.
        let folded = String(decoding: name.utf8.map { (65...90).contains($0) ? $0 + 32 : $0 }, as: UTF8.self)
        guard folded != name else { return nil }
        let found = try execute("SELECT to_regclass(quote_ident(\(folded))) IS NOT NULL").lrRows
        return try found.first?.value(Bool.self, at: 0) == true ? folded : nil
    }
}
