import LiteRecord

/// A PostgreSQL query whose rows are decoded into another `Decodable` type than the model: some
/// columns, or aggregates of groups. Made by ``PostgresQuery/select(_:)`` and
/// ``PostgresQuery/select(_:_:)``; the same as a SQLite ``LiteRecord/Projection``.
///
/// ```swift
/// struct TeamTotal: Decodable { var team: Team?; var total: Int; var players: Int }
/// let totals = try pg.query(Player.self)
///     .group(by: \.team)
///     .select(TeamTotal.self) { [$0.team.as("team"), $0.score.sum.as("total"), $0.rowCount.as("players")] }
///     .fetchAll()
/// ```
public struct PostgresProjection<M: Model, T: Decodable>: Sendable {
    /// The query whose rows are projected: where it runs, and the tables it reads.
    let rows: PostgresQuery<M>
    /// The selection and the query's clauses, built by the same code as SQLite's.
    let projection: Projection<M, T>

    func selectSQL(firstRowOnly: Bool = false) throws -> SQL {
        try SQLDialect.$current.withValue(.postgres) {
            try projection.backendSelectSQL(firstRowOnly: firstRowOnly)
        }
    }

    /// Every result row, decoded.
    ///
    /// - Returns: The rows, in the query's order.
    /// - Throws: ``LiteRecord/SchemaError`` (a selection that names no column, a grouping key
    ///   that is not a stored property), ``LiteRecord/DatabaseError``,
    ///   ``LiteRecord/RowDecodingError`` (a key of `T` that no selected column holds).
    public func fetchAll() throws -> [T] {
        try fetch(selectSQL())
    }

    /// The first result row, or `nil`.
    ///
    /// - Returns: The row.
    /// - Throws: As ``fetchAll()-817ya``.
    public func fetchOne() throws -> T? {
        try fetch(selectSQL(firstRowOnly: true)).first
    }

    private func fetch(_ sql: SQL) throws -> [T] {
        try rows.withReadableSession { session, _ in
            let decoder = RowDecoder(dateStorage: session.dateStorage)
            return try session.execute(sql).lrRows.map { try decoder.decode(T.self, from: $0) }
        } ?? []
    }

    /// Decodes the result rows one at a time, without holding them all in memory.
    ///
    /// As ``PostgresQuery/forEach(_:)``: the rows are read through a server-side cursor, and
    /// throwing from `body` stops the iteration.
    ///
    /// - Parameter body: Called with each row.
    /// - Throws: As ``fetchAll()-817ya``, or what `body` throws.
    public func forEach(_ body: (T) throws -> Void) throws {
        let sql = try selectSQL()
        _ = try rows.withReadableSession { session, _ in
            let decoder = RowDecoder(dateStorage: session.dateStorage)
            try session.forEachRow(sql) { row in try body(decoder.decode(T.self, from: row)) }
        }
    }

    /// The SELECT this projection runs, with its arguments, for debugging and tests.
    public var sqlDescription: String {
        do {
            return try selectSQL().description
        } catch {
            return "invalid query: \(error)"
        }
    }
}
