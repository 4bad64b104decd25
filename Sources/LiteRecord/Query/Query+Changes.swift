/// One `SET column = value` of a bulk update.
public struct ColumnAssignment: Sendable {
    let sql: SQL
    let error: (any Error)?
}

extension Column where Value: Encodable {
    /// Sets the column to a value in ``Query/updateAll(_:)``.
    ///
    /// - Parameter value: The new value.
    /// - Returns: The assignment.
    public func set(to value: Value) -> ColumnAssignment {
        let (stored, conversionError) = storedValue(value)
        return assignment("\(stored)", error: conversionError)
    }
}

extension Column {
    /// Sets the column to an expression over columns in ``Query/updateAll(_:)``:
    /// `$0.score.set(to: $0.score + 1)`.
    ///
    /// - Parameter expression: The new value, computed per row.
    /// - Returns: The assignment.
    public func set(to expression: Column<Value>) -> ColumnAssignment {
        assignment(expression.sql, error: expression.error)
    }

    private func assignment(_ value: SQL, error valueError: (any Error)?) -> ColumnAssignment {
        guard let columnName else {
            return ColumnAssignment(
                sql: "", error: error ?? SchemaError("only a model's own columns can be set, not \(sql.text)")
            )
        }
        return ColumnAssignment(
            sql: "\(SQL(SQL.quoteIdentifier(columnName))) = \(value)", error: error ?? valueError)
    }
}

extension Query {
    /// Sets columns of every matching row, in one statement.
    ///
    /// ```swift
    /// try db.query(Player.self).where { $0.team == .red }.updateAll { [$0.score.set(to: $0.score + 1)] }
    /// ```
    ///
    /// - Parameter assignments: The columns to set and their new values or expressions.
    /// - Returns: The number of rows changed.
    /// - Throws: ``SchemaError`` for something that is not a column, ``DatabaseError`` for a
    ///   constraint violation (nothing is changed then).
    @discardableResult
    public func updateAll(_ assignments: (Columns<M>) -> [ColumnAssignment]) throws -> Int {
        let sets = assignments(columns)
        if let error = sets.lazy.compactMap(\.error).first { throw error }
        guard let first = sets.first else { return 0 }
        let setClause = sets.dropFirst().reduce(first.sql) { "\($0), \($1.sql)" }
        return try run { connection, table in
            var sql: SQL = "UPDATE \(SQL(SQL.quoteIdentifier(table.tableName))) SET \(setClause)"
            sql.append(try rowSelection(table))
            try connection.execute(sql)
            return connection.changes
        }
    }

    /// Deletes every matching row, in one statement.
    ///
    /// - Returns: The number of rows deleted.
    /// - Throws: ``SchemaError``, ``DatabaseError``.
    @discardableResult
    public func deleteAll() throws -> Int {
        try run { connection, table in
            var sql: SQL = "DELETE FROM \(SQL(SQL.quoteIdentifier(table.tableName)))"
            sql.append(try rowSelection(table))
            try connection.execute(sql)
            return connection.changes
        }
    }

    /// The WHERE of a bulk change; with a limit or an order, the rows are chosen by rowid.
    private func rowSelection(_ table: TableSchema) throws -> SQL {
        guard limitCount != nil || offsetCount != nil else { return whereClause() }
        return " WHERE rowid IN (\(selectSQL("rowid", table: table)))"
    }
}
