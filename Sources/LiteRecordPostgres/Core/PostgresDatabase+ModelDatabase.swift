import LiteRecord

// PostgreSQL adopts the protocols SQLite's `Database` and `Connection` adopt, so that a data
// layer written once against `some ModelDatabase` or `some ModelContext` runs on both.

extension PostgresDatabase: ModelDatabase {
    /// A transaction's closure receives a ``PostgresTransaction``.
    public typealias Transaction = PostgresTransaction
}

extension PostgresTransaction: ModelContext {
    /// A savepoint's closure receives the same transaction.
    public typealias Transaction = PostgresTransaction

    /// Inserts models in a savepoint of this transaction: all of them, or none when one fails
    /// (the rest of the transaction goes on).
    ///
    /// A batch of 64 models or more is sent in one `COPY`, its generated keys taken first from
    /// the key's sequence: the keys, stored values, errors and triggers are those of one
    /// `INSERT` per model.
    ///
    /// - Parameter models: The models.
    /// - Returns: The models as inserted, with their generated keys set.
    /// - Throws: As ``PostgresContext/insert(_:)-8ikok``; the savepoint is rolled back.
    @discardableResult
    public func insert<M: Model, S: Sequence<M>>(contentsOf models: S) throws -> [M] {
        let models = Array(models)
        return try savepoint(nil) { tx in
            try tx.withSession { session in
                try session.insertRows(models, table: try session.preparedTable(for: M.self))
            }
        }
    }
}
