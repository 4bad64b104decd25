/// A column of a unique index of the content table, as `PRAGMA index_xinfo` gives it: two rows
/// conflict on the index when all its columns are equal under their collations (NULLs never are).
struct UniqueKeyColumn: Equatable, Sendable {
    let name: String
    let collation: String
}

/// The triggers that keep a full-text index in sync with its content table.
///
/// With `PRAGMA recursive_triggers = OFF` (SQLite's default), the rows that a `REPLACE`
/// conflict resolution deletes fire no delete trigger, so their words would stay in the index.
/// So before each insert or update, the rows that the new row could replace (same rowid, or
/// equal values in a unique index) are copied, with their indexed values, into the table
/// `<table>_fts_replaced`; after the write, those of them that are gone (the new row's rowid,
/// or no row with that rowid any more) are deleted from the index, and the copy is cleared.
/// A statement that replaced nothing (`INSERT OR IGNORE`, a failed `OR FAIL`) may leave a copy
/// behind: the next before-trigger clears it first, and an update's after-trigger reads the
/// copy only when its before-trigger wrote it. With recursive triggers on, the delete trigger
/// fires for replaced rows and removes them from the copy, so no row is deleted twice (which
/// would corrupt FTS5).
extension FullTextIndex {
    /// `CREATE TABLE` of the replaced-rows table, exactly as SQLite stores it.
    var createReplacedTableSQL: String {
        let name = SQL.quoteIdentifier(FullTextIndex.replacedTableName(table: table))
        let values = columns.indices.map { "v\($0)" }.joined(separator: ", ")
        return "CREATE TABLE \(name)(\(FullTextIndex.triggerMarker) k INTEGER PRIMARY KEY, \(values))"
    }

    /// The triggers, by name, in the order of ``triggerNames(table:)``.
    ///
    /// An update re-indexes the row only when its key or an indexed value changed, compared as
    /// the bytes the tokenizer reads (so `1` and `1.0`, or `'a'` and `'A'` under a `NOCASE`
    /// column, count as changed).
    ///
    /// - Parameter uniqueKeys: The content table's unique indexes (their columns), whose
    ///   conflicts a `REPLACE` resolves by deleting rows. Columns that are expressions are left
    ///   out (an index of expressions only is left out).
    func createTriggerSQL(uniqueKeys: [[UniqueKeyColumn]]) -> [String] {
        let table = SQL.quoteIdentifier(self.table)
        let replaced = SQL.quoteIdentifier(FullTextIndex.replacedTableName(table: self.table))
        let key = SQL.quoteIdentifier(rowIDColumn)
        let list = quotedColumns.joined(separator: ", ")
        let stashed = columns.indices.map { "v\($0)" }.joined(separator: ", ")
        let newValues = quotedColumns.map { "new.\($0)" }.joined(separator: ", ")
        let oldValues = quotedColumns.map { "old.\($0)" }.joined(separator: ", ")
        let insert = "INSERT INTO \(quotedName)(rowid, \(list)) VALUES (new.\(key), \(newValues));"
        let delete =
            "INSERT INTO \(quotedName)(\(quotedName), rowid, \(list)) VALUES ('delete', old.\(key), \(oldValues));"
        let changed =
            (["old.\(key) IS NOT new.\(key)"]
            + quotedColumns.map { "CAST(old.\($0) AS BLOB) IS NOT CAST(new.\($0) AS BLOB)" })
            .joined(separator: " OR ")

        // The rows the new row may replace: same rowid, or equal in every column of a unique index.
        let conflicts =
            ["\(key) = new.\(key)"]
            + uniqueKeys.map { columns in
                columns.map { column in
                    let name = SQL.quoteIdentifier(column.name)
                    return "\(name) = new.\(name) COLLATE \(SQL.quoteIdentifier(column.collation))"
                }
                .joined(separator: " AND ")
            }
        func stash(excludingOld: Bool) -> String {
            let selects = conflicts.map { condition in
                "SELECT \(key), \(list) FROM \(table) WHERE \(condition)"
                    + (excludingOld ? " AND \(key) IS NOT old.\(key)" : "")
            }
            return "DELETE FROM \(replaced); INSERT INTO \(replaced)(k, \(stashed)) "
                + selects.joined(separator: " UNION ") + ";"
        }
        // The stashed rows that the write deleted: the new row took the rowid, or it is gone.
        let unstash =
            "INSERT INTO \(quotedName)(\(quotedName), rowid, \(list)) SELECT 'delete', r.k, "
            + columns.indices.map { "r.v\($0)" }.joined(separator: ", ")
            + " FROM \(replaced) AS r WHERE (r.k = new.\(key) "
            + "OR NOT EXISTS (SELECT 1 FROM \(table) AS c WHERE c.\(key) = r.k))"
        // An update can replace rows only when its key or a unique index's value changes.
        let uniqueColumns = Set(uniqueKeys.joined().map(\.name))
        let mayConflict =
            (["old.\(key) IS NOT new.\(key)"]
            + uniqueColumns.sorted().map(SQL.quoteIdentifier).map {
                "CAST(old.\($0) AS BLOB) IS NOT CAST(new.\($0) AS BLOB)"
            })
            .joined(separator: " OR ")

        let names = FullTextIndex.triggerNames(table: self.table).map(SQL.quoteIdentifier)
        let marker = FullTextIndex.triggerMarker
        let afterInsert = "\(unstash); DELETE FROM \(replaced); \(insert)"
        let afterUpdate =
            "\(unstash) AND (\(mayConflict)); DELETE FROM \(replaced) WHERE \(mayConflict); "
            + "INSERT INTO \(quotedName)(\(quotedName), rowid, \(list)) SELECT 'delete', old.\(key), "
            + "\(oldValues) WHERE \(changed); "
            + "INSERT INTO \(quotedName)(rowid, \(list)) SELECT new.\(key), \(newValues) WHERE \(changed);"
        return [
            "CREATE TRIGGER \(names[0]) AFTER INSERT ON \(table) BEGIN \(marker) \(afterInsert) END",
            "CREATE TRIGGER \(names[1]) AFTER DELETE ON \(table) BEGIN \(marker) "
                + "DELETE FROM \(replaced) WHERE k = old.\(key); \(delete) END",
            "CREATE TRIGGER \(names[2]) AFTER UPDATE ON \(table) WHEN \(changed) OR \(mayConflict) "
                + "BEGIN \(marker) \(afterUpdate) END",
            "CREATE TRIGGER \(names[3]) BEFORE INSERT ON \(table) BEGIN \(marker) \(stash(excludingOld: false)) END",
            "CREATE TRIGGER \(names[4]) BEFORE UPDATE ON \(table) WHEN \(mayConflict) "
                + "BEGIN \(marker) \(stash(excludingOld: true)) END",
        ]
    }
}
