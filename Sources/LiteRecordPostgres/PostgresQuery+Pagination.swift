import LiteRecord

extension PostgresQuery {
    /// One page of the results, after the last model of the previous page: keyset pagination,
    /// which reads no skipped rows and stays right while rows are inserted or deleted.
    ///
    /// The same as ``LiteRecord/Query/page(after:limit:)`` on SQLite: pages follow the query's
    /// sort keys (with PostgreSQL's NULL placement: last when ascending, unless said), then the
    /// primary key. Call it last (after `order`); `limit` and `offset` set before are replaced.
    ///
    /// ```swift
    /// var page = try pg.query(Post.self).order { $0.date.descending }.page(after: nil, limit: 50).fetchAll()
    /// ```
    ///
    /// - Parameters:
    ///   - cursor: The last model of the previous page, or `nil` for the first page.
    ///   - limit: The page size (not negative).
    /// - Returns: The query for the page.
    public func page(after cursor: M?, limit: Int) -> PostgresQuery {
        with { $0.page(after: cursor, limit: limit) }
    }
}
