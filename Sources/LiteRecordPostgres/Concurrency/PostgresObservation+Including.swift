import Foundation
import LiteRecord

// Observing a query with `including`, at any depth: every table the tree reads (the roots',
// the related models' at every level, junctions, the tables their filters read) carries the
// notifying trigger before the first value is delivered.

extension PostgresDatabase {
    /// Observes the results of a query with `including` (to any depth), as an `AsyncSequence`
    /// of fresh arrays: fetched now, then again after each committed change to any table the
    /// query reads, at any level.
    ///
    /// ```swift
    /// let shelves = pg.query(Author.self).including(all: Book.self) { $0.including(all: Review.self) }
    /// for try await authors in pg.observe(shelves) { show(authors) }
    /// ```
    ///
    /// Every model's table is created first when it does not exist yet, and gets LiteRecord's
    /// notifying trigger (see the PostgreSQL article) before the first value is delivered, so
    /// a change to a level that no row reaches yet (a first book of an author) is seen too. New
    /// results are delivered only when the rows of some level differ from the last ones
    /// delivered.
    ///
    /// - Parameter query: A query built on this database; one built on another database (SQLite or
    ///   PostgreSQL) makes the iteration throw ``LiteRecord/DatabaseError`` with
    ///   ``LiteRecord/ResultCode/misuse``.
    /// - Returns: The observation; nothing runs until it is iterated.
    public func observe<Including: IncludingQuery>(_ query: Including)
        -> DatabaseObservation<[Including.Element]>
    {
        let relationTree = query.relationTree
        let tree = Result {
            PostgresRelationTree(
                target: try relationTree.backendQuery.postgresExecutor(for: "observe", on: self).target,
                tree: relationTree)
        }
        return DatabaseObservation { sink in
            PostgresValueObserver<FetchedTree<Including.Element>>(
                database: self,
                prepare: {
                    try self.withSession { session in
                        try tree.get().models.map { try session.readingAllRows(of: $0) }
                    }
                },
                fetch: { tx in try tree.get().fetch(on: tx, recordingRows: true) },
                sink: sink.map(\.elements).skippingRepeats { $0.rows == $1.rows })
        }
    }
}

extension PostgresSession {
    /// A statement reading the whole table of a model, created first when missing: its plan
    /// names the table to listen to.
    fileprivate func readingAllRows(of type: any Model.Type) throws -> SQL {
        try readingAllRows(ofTable: type)
    }

    private func readingAllRows<T: Model>(ofTable type: T.Type) throws -> SQL {
        let table = try preparedTable(for: T.self)
        return SQL(verbatim: "SELECT * FROM " + SQL.quoteIdentifier(table.name))
    }
}
