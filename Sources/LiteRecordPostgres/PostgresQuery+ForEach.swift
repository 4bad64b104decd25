import LiteRecord

extension PostgresQuery {
    /// Decodes the matching models one at a time, without holding them all in memory.
    ///
    /// The same as ``LiteRecord/Query/forEach(_:)`` on SQLite: throwing from `body` stops the
    /// iteration, and the error is thrown from here. The rows are read through a server-side
    /// cursor, a batch at a time: on a ``PostgresDatabase`` inside a read-only transaction of
    /// their own (one snapshot), holding one of the pool's connections until the iteration
    /// ends (so work in `body` that goes through the database needs another one: with
    /// ``PostgresConfiguration/maximumConnections`` 1 it would wait forever); in a
    /// transaction, inside it, where `body` may use the transaction too.
    ///
    /// ```swift
    /// try pg.query(Player.self).order { $0.score.descending }.forEach { player in
    ///     try report.write(player)
    /// }
    /// ```
    ///
    /// - Parameter body: Called with each model, in the query's order.
    /// - Throws: As ``fetchAll()-7qelv``, or what `body` throws.
    public func forEach(_ body: (M) throws -> Void) throws {
        let sql = try selectSQL("*")
        try context.withSession { session in
            guard let table = try session.readableTable(for: M.self),
                try session.readableTables(of: relatedTypes)
            else { return }
            let decoder = table.rowDecoder(dateStorage: session.dateStorage)
            try session.forEachRow(sql) { row in try body(decoder.decode(M.self, from: row)) }
        }
    }
}
