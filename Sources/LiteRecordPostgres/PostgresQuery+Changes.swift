import LiteRecord

extension PostgresQuery {
    /// Sets columns of every matching row, in one statement.
    ///
    /// ```swift
    /// try pg.query(Player.self).where { $0.team == .red }.updateAll { [$0.score.set(to: $0.score + 1)] }
    /// ```
    ///
    /// The same as ``LiteRecord/Query/updateAll(_:)-706nu`` on SQLite; with a limit or an offset
    /// the rows are chosen by their `ctid` among the rows the query selects, in its order.
    ///
    /// - Parameter assignments: The columns to set and their new values or expressions.
    /// - Returns: The number of rows changed.
    /// - Throws: ``LiteRecord/SchemaError`` for something that is not a column,
    ///   ``LiteRecord/DatabaseError`` for a constraint violation or an arithmetic overflow
    ///   (nothing is changed then).
    @discardableResult
    public func updateAll(_ assignments: (Columns<M>) -> [ColumnAssignment]) throws -> Int {
        let built = try SQLDialect.$current.withValue(.postgres) {
            try query.backendUpdateSQL(assignments, rowIdentity: "ctid")
        }
        guard let sql = built else { return 0 }
        return try context.withSession { session in
            _ = try session.preparedTable(for: M.self)
            try session.prepareTables(of: relatedTypes)
            return try session.execute(sql).changes
        }
    }

    /// Deletes every matching row, in one statement.
    ///
    /// - Returns: The number of rows deleted.
    /// - Throws: ``LiteRecord/SchemaError``, ``LiteRecord/DatabaseError`` (a foreign key that
    ///   restricts the delete: nothing is deleted then).
    @discardableResult
    public func deleteAll() throws -> Int {
        let sql = try SQLDialect.$current.withValue(.postgres) {
            try query.backendDeleteSQL(rowIdentity: "ctid")
        }
        return try context.withSession { session in
            _ = try session.preparedTable(for: M.self)
            try session.prepareTables(of: relatedTypes)
            return try session.execute(sql).changes
        }
    }
}
