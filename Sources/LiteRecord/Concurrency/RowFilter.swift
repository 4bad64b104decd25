/// How an observation of a query tells the changed rows that cannot alter its results from
/// those that can, so that a commit touching only the former costs no fetch.
///
/// SQLite's update hook names each changed row by table and rowid. A row can alter the results
/// of a query on one table only if it is among the rows the last fetch returned (changed,
/// deleted, or reordered), or if it matches the query's conditions now (it enters). Anything
/// else leaves the results as they were: a query that fetched one model by key is not fetched
/// again when another row of its table changes. Queries with an offset are left out (a row
/// leaving the skipped part shifts the window), and so are grouped and `DISTINCT` ones.
///
/// One change goes unreported: an `UPDATE` that changes a row's rowid (its `INTEGER PRIMARY
/// KEY`) reports only the new rowid, so a row can leave the results without its rowid being
/// named. After an update, the probe therefore also checks that every row of the results is
/// still there.
struct RowFilter: Sendable {
    /// The query's table.
    let table: String
    /// The rowids of the rows the query returns, read in the fetch's snapshot.
    let resultRowIDs: @Sendable (Connection) throws -> Set<Int64>
    /// Whether any of the rowids names a row that matches the query's conditions now.
    let anyMatches: @Sendable (Connection, [Int64]) throws -> Bool
    /// Whether a row with each of the rowids still exists.
    let allExist: @Sendable (Connection, Set<Int64>) throws -> Bool

    /// The most changed rows of the table that a probe checks; more cost a fetch instead.
    static let maximumProbedRows = 10_000

    /// The rowids as one JSON array, bound as one parameter whatever their count.
    fileprivate static func jsonArray(_ rowIDs: some Sequence<Int64>) -> String {
        "[" + rowIDs.map(String.init).joined(separator: ",") + "]"
    }
}

extension Query {
    /// The row filter of this query, or `nil` when it cannot have one (see ``RowFilter``).
    var rowFilter: RowFilter? {
        guard buildError == nil, groupKeys.isEmpty, offsetCount == nil, !isDistinct,
            let table = try? TableSchemaCache.schema(for: M.self),
            // A column that shadows the rowid would make `rowid` mean that column.
            !table.columns.contains(where: { ["rowid", "oid", "_rowid_"].contains($0.name.lowercased()) })
        else { return nil }
        let query = self
        let quotedTable = SQL(SQL.quoteIdentifier(table.tableName))
        return RowFilter(
            table: table.tableName,
            resultRowIDs: { connection in
                Set(try connection.fetchAll(Int64.self, sql: query.selectSQL("rowid", table: table)))
            },
            anyMatches: { connection, rowIDs in
                var sql: SQL = """
                    SELECT EXISTS (SELECT 1 FROM \(quotedTable) \
                    WHERE rowid IN (SELECT value FROM json_each(\(RowFilter.jsonArray(rowIDs))))
                    """
                for condition in query.conditions { sql.append(" AND \(condition.sql)") }
                sql.append(")")
                return try connection.fetchOne(Bool.self, sql: sql) ?? true
            },
            allExist: { connection, rowIDs in
                let list = RowFilter.jsonArray(rowIDs)
                let sql: SQL =
                    "SELECT count(*) FROM \(quotedTable) WHERE rowid IN (SELECT value FROM json_each(\(list)))"
                return try connection.fetchOne(Int.self, sql: sql) == rowIDs.count
            })
    }
}
