/// One `SET column = value` of a bulk update.
public struct ColumnAssignment: Sendable {
    let sql: SQL
    let error: (any Error)?
}

extension Column where Value: Encodable {
    /// Sets the column to a value in ``Query/updateAll(_:)-706nu``.
    ///
    /// - Parameter value: The new value.
    /// - Returns: The assignment.
    public func set(to value: Value) -> ColumnAssignment {
        let (stored, conversionError) = storedValue(value)
        return assignment("\(stored)", error: conversionError)
    }
}

extension Column {
    /// Sets the column to an expression over columns in ``Query/updateAll(_:)-706nu``:
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
        if let backend { return try backend.updateAll(self, sets) }
        let setClause = sets.dropFirst().reduce(first.sql) { "\($0), \($1.sql)" }
        return try run { connection, table in
            var sql: SQL = "UPDATE \(SQL(SQL.quoteIdentifier(table.tableName))) SET \(setClause)"
            sql.append(try rowSelection(table, on: connection))
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
        if let backend { return try backend.deleteAll(self) }
        return try run { connection, table in
            var sql: SQL = "DELETE FROM \(SQL(SQL.quoteIdentifier(table.tableName)))"
            sql.append(try rowSelection(table, on: connection))
            try connection.execute(sql)
            return connection.changes
        }
    }

    /// The WHERE of a bulk change; with a limit or an offset, the rows are chosen by their row
    /// identity: SQLite's rowid under a name no column shadows (a model may well have a `rowid`
    /// property), or the primary key of a `WITHOUT ROWID` table.
    private func rowSelection(_ table: TableSchema, on connection: Connection) throws -> SQL {
        if let selection = fullTextRowSelection(table) { return selection }
        guard limitCount != nil || offsetCount != nil else { return whereClause() }
        let identity = try connection.rowIdentity(of: table.tableName)
        return " WHERE \(SQL(identity.compared)) IN (\(selectSQL(SQL(identity.selected), table: table)))"
    }
}

extension Connection {
    /// What identifies a row of `table` in SQL: `rowid`, `oid` or `_rowid_`, whichever no
    /// column of the table is named (a column by one of these names hides SQLite's rowid under
    /// it); for a `WITHOUT ROWID` table, its primary key columns as a row value.
    ///
    /// - Throws: ``SchemaError`` when the table has a column by each of the three names and no
    ///   primary key to use instead.
    func rowIdentity(of table: String) throws -> (compared: String, selected: String) {
        let columns = try fetchAll(
            Row.self, sql: "SELECT name, pk FROM pragma_table_xinfo(\(table)) ORDER BY pk")
        var names = Set<String>()
        var keyColumns: [String] = []
        for column in columns {
            let name: String = try column.value(named: "name")
            names.insert(name.lowercased())
            if try column.value(Int.self, named: "pk") > 0 { keyColumns.append(name) }
        }
        let withoutRowID =
            try fetchOne(
                Int.self, sql: "SELECT wr FROM pragma_table_list WHERE schema = 'main' AND name = \(table)")
            == 1
        if !withoutRowID, let alias = ["rowid", "oid", "_rowid_"].first(where: { !names.contains($0) }) {
            return (alias, alias)
        }
        guard !keyColumns.isEmpty else {
            throw SchemaError(
                "cannot choose rows of \(table) by a limit or offset: its columns rowid, oid and _rowid_ hide "
                    + "SQLite's rowid and it has no primary key; select the rows by a where clause instead")
        }
        let quoted = keyColumns.map(SQL.quoteIdentifier).joined(separator: ", ")
        return (keyColumns.count == 1 ? quoted : "(\(quoted))", quoted)
    }
}
