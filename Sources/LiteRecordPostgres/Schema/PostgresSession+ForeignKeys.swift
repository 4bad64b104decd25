import Foundation
import LiteRecord

// Foreign keys of a table LiteRecord creates on PostgreSQL: as on SQLite, an index on each key's
// columns (unless an index, unique constraint or primary key already begins with them) and
// `REFERENCES parent (key) ON DELETE ...`, which PostgreSQL enforces (a dangling key is SQLSTATE
// 23503, `ResultCode.constraintForeignKey`). A table that already exists gets neither.

extension PostgresSession {
    /// Creates each parent's table, then the constraints (the keys' indexes are created with the
    /// table's own, see `PostgresSession+Indexes.swift`).
    ///
    /// PostgreSQL needs the referenced table (and its key) to exist when a constraint is
    /// declared, while SQLite does not: the constraints are added after the table is created
    /// and after each parent's table is prepared. A model referencing itself, or two models
    /// referencing each other, end the recursion because a table that exists is only grown,
    /// and growing prepares no parent.
    func createForeignKeys(of table: BackendTable) throws {
        let quotedTable = SQL.quoteIdentifier(table.name)
        for key in table.foreignKeys {
            let (parentTable, referenced) = try key.referenced()
            if parentTable != table.name { try prepareParent(key.parentType) }
            let columns = key.columns.map(SQL.quoteIdentifier).joined(separator: ", ")
            let parentColumns = referenced.map(SQL.quoteIdentifier).joined(separator: ", ")
            try execute(
                SQL(
                    verbatim: "ALTER TABLE \(quotedTable) ADD FOREIGN KEY (\(columns)) REFERENCES "
                        + "\(SQL.quoteIdentifier(parentTable)) (\(parentColumns)) ON DELETE \(key.onDeleteSQL)"
                ))
        }
    }

    private func prepareParent<Parent: Model>(_ type: Parent.Type) throws {
        _ = try preparedTable(for: Parent.self)
    }
}
