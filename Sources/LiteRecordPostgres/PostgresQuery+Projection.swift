import LiteRecord

// Projections and grouping, as on SQLite (`Query+Projection.swift`): the same `Projection` code
// builds the SELECT, in PostgreSQL's dialect.

extension PostgresQuery {
    /// Decodes the matching rows into another type, selecting the columns named by its keys.
    ///
    /// The same as ``LiteRecord/Query/select(_:)`` on SQLite: the type's keys that name a
    /// column of the model's table are selected; a key that names none is left to the decoder,
    /// which reports it (``LiteRecord/RowDecodingError``) or leaves an optional `nil`.
    ///
    /// ```swift
    /// struct NameAndScore: Decodable { var name: String; var score: Int }
    /// let names = try pg.query(Player.self).order { $0.score.descending }.select(NameAndScore.self).fetchAll()
    /// ```
    ///
    /// - Parameter type: A `Decodable` type whose properties are some of the model's columns.
    /// - Returns: The projection; run it with `fetchAll()`, `fetchOne()` or `forEach(_:)`.
    public func select<T: Decodable>(_ type: T.Type) -> PostgresProjection<M, T> {
        PostgresProjection(
            rows: self, projection: SQLDialect.$current.withValue(.postgres) { query.select(T.self) })
    }

    /// Decodes chosen columns and aggregates into another type.
    ///
    /// The same as ``LiteRecord/Query/select(_:_:)`` on SQLite. Sums of integers are exact
    /// `bigint`s (an overflow fails, as Swift traps) and averages are `Double`s, as there.
    ///
    /// ```swift
    /// struct TeamTotal: Decodable { var team: Team?; var total: Int; var players: Int }
    /// let totals = try pg.query(Player.self)
    ///     .group(by: \.team)
    ///     .select(TeamTotal.self) { [$0.team.as("team"), $0.score.sum.as("total"), $0.rowCount.as("players")] }
    ///     .fetchAll()
    /// ```
    ///
    /// - Parameters:
    ///   - type: The result type; each selection's name is one of its coding keys.
    ///   - selection: `{ [$0.team.as("team"), $0.score.sum.as("total")] }`.
    /// - Returns: The projection.
    public func select<T: Decodable>(
        _ type: T.Type, _ selection: (Columns<M>) -> [SelectedColumn]
    ) -> PostgresProjection<M, T> {
        PostgresProjection(
            rows: self,
            projection: SQLDialect.$current.withValue(.postgres) { query.select(T.self, selection) })
    }

    /// Groups the rows by one or more columns, for aggregates in ``select(_:_:)``.
    ///
    /// The same as ``LiteRecord/Query/group(by:)`` on SQLite, with one difference: PostgreSQL
    /// selects from a group only its grouping columns and aggregates, and fails a query that
    /// selects (or sorts by) another column, where SQLite takes the value of any row of the
    /// group. `count()` counts the groups.
    ///
    /// - Parameter keyPaths: The grouping properties.
    /// - Returns: The grouped query.
    public func group(by keyPaths: PartialKeyPath<M>...) -> PostgresQuery {
        with { $0.group(byKeyPaths: keyPaths) }
    }

    /// Runs `body` with a session, once the tables the query reads are created or checked;
    /// `nil`, without running it, in a session that never creates tables (a `read`) when one of
    /// them does not exist: the read has no rows then, as on SQLite.
    func withReadableSession<T>(_ body: (PostgresSession, BackendTable) throws -> T) throws -> T? {
        try context.withSession { session in
            guard let table = try session.readableTable(for: M.self),
                try session.readableTables(of: relatedTypes)
            else { return nil }
            return try body(session, table)
        }
    }
}
