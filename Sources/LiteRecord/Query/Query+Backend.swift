// What another backend (LiteRecordPostgres) needs from a query: a query with no SQLite context,
// and its SQL, built by the same code as SQLite's in the dialect the query carries (its
// backend's, `QueryBackend.dialect`).
// Package access: LiteRecord's public API does not grow.

extension Query {
    /// The query's SELECT of `selection` (`*`, `count(*)`), in the query's dialect.
    ///
    /// - Parameter selection: The selected columns or aggregate, as SQL.
    /// - Returns: The SQL and its arguments.
    /// - Throws: The first problem found while building the query (a key path that is not a
    ///   column, a value that cannot be stored).
    package func backendSelectSQL(_ selection: SQL) throws -> SQL {
        let table = try backendTable()
        return selectSQL(selection, table: table)
    }
}

extension Query {
    /// The query's count of the rows it returns (after `limit` and `offset`), or of its groups
    /// when grouped, in the query's dialect.
    ///
    /// A group's rows are selected by its grouping columns: another database may select nothing
    /// else from a group (SQLite takes any row's values, which does not change the count).
    ///
    /// - Returns: The SQL, which returns one row holding the count.
    /// - Throws: As ``backendSelectSQL(_:)``.
    package func backendCountSQL() throws -> SQL {
        let table = try backendTable()
        let selection =
            groupKeys.isEmpty
            ? "*"
            : try groupColumnNames(table).map(SQL.quoteIdentifier)
                .joined(separator: ", ")
        return "SELECT count(*) FROM (\(selectSQL(SQL(selection), table: table))) AS counted"
    }
}

extension Projection {
    /// The query whose rows the projection selects from.
    package var backendQuery: Query<M> { query }

    /// The projection's SELECT in the query's dialect: the columns it selects, from the rows of
    /// its query.
    ///
    /// - Parameter firstRowOnly: Whether to return the first row only, as `fetchOne()` does
    ///   (`limit(0)` stays `limit(0)`).
    /// - Returns: The SQL and its arguments.
    /// - Throws: As ``Query/backendSelectSQL(_:)``, or ``SchemaError`` for a selection that is
    ///   empty or names no column.
    package func backendSelectSQL(firstRowOnly: Bool = false) throws -> SQL {
        let rows = firstRowOnly ? query.firstRowOnly : query
        if let buildError = rows.buildError { throw buildError }
        let table = try TableSchemaCache.schema(for: M.self)
        return try rows.backendSelectSQL(selectionSQL(table))
    }
}

extension Query {
    /// The query's `UPDATE` setting `assignments` on the matching rows, in the query's dialect,
    /// or `nil` when there is nothing to set.
    ///
    /// With a limit or an offset the rows are chosen by `rowIdentity` (the column that names a
    /// row in the backend) among the rows the query selects, in its order.
    ///
    /// - Parameters:
    ///   - assignments: The columns to set, as ``updateAll(_:)-706nu`` takes them.
    ///   - rowIdentity: The expression naming one row of the table.
    /// - Returns: The SQL and its arguments.
    /// - Throws: As ``backendSelectSQL(_:)``, or ``SchemaError`` for something that is not a
    ///   column.
    package func backendUpdateSQL(
        _ assignments: (Columns<M>) -> [ColumnAssignment], rowIdentity: String
    ) throws -> SQL? {
        let sets = assignments(columns)
        if let error = sets.lazy.compactMap(\.error).first { throw error }
        guard let first = sets.first else { return nil }
        let table = try backendTable()
        let setClause = sets.dropFirst().reduce(first.sql) { "\($0), \($1.sql)" }
        var sql: SQL = "UPDATE \(SQL(SQL.quoteIdentifier(table.tableName))) SET \(setClause)"
        sql.append(backendRowSelection(table, rowIdentity: rowIdentity))
        return sql
    }

    /// The query's `DELETE` of the matching rows, in the query's dialect (rows chosen as
    /// ``backendUpdateSQL(_:rowIdentity:)`` chooses them).
    ///
    /// - Parameter rowIdentity: The expression naming one row of the table.
    /// - Returns: The SQL and its arguments.
    /// - Throws: As ``backendSelectSQL(_:)``.
    package func backendDeleteSQL(rowIdentity: String) throws -> SQL {
        let table = try backendTable()
        var sql: SQL = "DELETE FROM \(SQL(SQL.quoteIdentifier(table.tableName)))"
        sql.append(backendRowSelection(table, rowIdentity: rowIdentity))
        return sql
    }

    func backendTable() throws -> TableSchema {
        if let buildError { throw buildError }
        if let fts5 = fullTextMatch?.terms.lazy.compactMap(\.fts5Query).first {
            // FTS5's query language is another database's own (`OR`, `swi*`, `NEAR`, `column:`),
            // and a translation would be wrong on some text: refuse it.
            let database = dialect.name
            throw SchemaError(
                "matching(fts5Query:) takes SQLite's FTS5 query syntax, which \(database) does not read "
                    + "(\(fts5)); use matching(_:), or where(sql:) with \(database)'s own search syntax")
        }
        return try TableSchemaCache.schema(for: M.self)
    }

    private func backendRowSelection(_ table: TableSchema, rowIdentity: String) -> SQL {
        guard limitCount != nil || offsetCount != nil else { return whereClause() }
        // DISTINCT is moot for a row's identity, and a dialect may then want the ORDER BY terms
        // among the selected columns.
        var rows = self
        rows.isDistinct = false
        let identity = SQL(rowIdentity)
        return " WHERE \(identity) IN (\(rows.selectSQL(identity, table: table)))"
    }
}

extension Query {
    /// The query's aggregate of one column (`sum`, `min`, `max`, `avg`) over the rows it
    /// returns, in the query's dialect.
    ///
    /// The dialect reads the result as the column's Swift type decodes it
    /// (``SQLDialect/aggregateResult(_:function:resultType:)``).
    ///
    /// - Parameters:
    ///   - function: `sum`, `min`, `max` or `avg`.
    ///   - column: The column, as ``sum(_:)`` takes it.
    ///   - resultType: The Swift type of the result (`Double` for `avg`).
    /// - Returns: The SQL, which returns one row of one value (NULL when no row matches).
    /// - Throws: As ``backendSelectSQL(_:)``; ``SchemaError`` for a grouped query.
    package func backendAggregateSQL<Value>(
        _ function: String, _ column: (Columns<M>) -> Column<Value>, resultType: Any.Type
    ) throws -> SQL {
        let selected = column(columns)
        if let error = selected.error { throw error }
        guard groupKeys.isEmpty else {
            throw SchemaError("\(function)() of a grouped query has one value per group")
        }
        let table = try backendTable()
        let aggregate = dialect.aggregateResult(
            function == "min" || function == "max"
                ? selected.extremumSQL(function) : "\(SQL(function))(\(selected.sql))",
            function: function, resultType: resultType)
        return limitCount == nil && offsetCount == nil && !isDistinct
            ? selectSQL(aggregate, table: table, ordered: false, limited: false)
            : "SELECT \(aggregate) FROM (\(selectSQL("*", table: table))) AS literecord_rows"
    }
}

extension Query {
    /// The query selecting, beside each model's columns, a snippet of an indexed property (as
    /// the dialect's ``SQLDialect/fullTextSelection(_:of:table:)`` selects it), in the query's
    /// dialect.
    ///
    /// - Parameters:
    ///   - property: An indexed property.
    ///   - style: How words are marked and the text shortened.
    /// - Returns: The SELECT, and the column of the property.
    /// - Throws: As ``backendSelectSQL(_:)``; ``SchemaError`` when the query has no `matching` or
    ///   the property is not indexed.
    package func backendSnippetSQL(of property: PartialKeyPath<M>, style: SnippetStyle) throws -> (
        sql: SQL, column: String
    ) {
        let table = try backendTable()
        let query = try selectingSnippet(of: property, style: style, table: table)
        let column = table.fullTextIndex?.columns[query.fullTextMatch?.snippet?.column ?? 0] ?? ""
        return (query.selectSQL("*", table: table), column)
    }
}

extension Query {
    /// The columns the query's closures receive, for a backend that builds a column or an
    /// assignment on the calling task before the query runs on another thread (its async forms).
    package var backendColumns: Columns<M> { columns }
}
