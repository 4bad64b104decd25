import Foundation
import LiteRecord

// Full-text search on PostgreSQL keeps its index in the model's own table: a stored generated
// `tsvector` column (PostgreSQL computes it on every insert and update, so raw SQL writes keep
// it right too) with a GIN index. The automatic migration adds it to a table that lacks it,
// rebuilds it when the schema indexes other properties, and drops it when the schema no longer
// declares a search, as SQLite's backend does with its FTS5 table. A comment on the column
// marks it as LiteRecord's: a column of that name without it is never touched.

extension PostgresSession {
    /// Brings the table's search column in line with the schema. Runs inside the migration's
    /// transaction, after the model's columns exist.
    ///
    /// - Parameters:
    ///   - table: The model's table.
    ///   - existingColumns: The table's columns before the migration (none for a new table).
    func prepareFullTextSearch(of table: BackendTable, existingColumns: [String]) throws {
        let name = PostgresSearchColumn.columnName
        // A model that has a column of that name itself owns it; it declares no search there.
        guard !table.columns.contains(where: { $0.name == name }) else {
            if table.fullTextSearch != nil {
                throw SchemaError(
                    "full-text search of \(table.name) keeps its index in a column named \(name), "
                        + "which the model already uses; rename that property's column")
            }
            return
        }
        let quotedTable = SQL.quoteIdentifier(table.name)
        let quotedColumn = SQL.quoteIdentifier(name)
        if existingColumns.contains(name) {
            let comment = try storedComment(ofColumn: name, table: table.name)
            guard let comment, comment.hasPrefix(PostgresSearchColumn.commentPrefix) else {
                guard table.fullTextSearch != nil else { return }
                throw SchemaError(
                    "cannot add the full-text search column of \(table.name): the table already has a "
                        + "column named \(name) that LiteRecord did not create; rename or drop it "
                        + "(LiteRecord never changes columns it did not create)")
            }
            if let search = table.fullTextSearch, comment == search.comment {
                try createIndex(search, table: table.name)
                return
            }
            // Search removed from the schema, or other properties indexed: the column goes
            // (its index with it), and is added again below when the schema still searches.
            try execute(SQL(verbatim: "ALTER TABLE \(quotedTable) DROP COLUMN \(quotedColumn)"))
        }
        guard let search = table.fullTextSearch else { return }
        do {
            // On a table with rows, this rewrites the table (computing every row's vector)
            // under an exclusive lock, once.
            try execute(SQL(verbatim: "ALTER TABLE \(quotedTable) ADD COLUMN \(search.definition)"))
            try createIndex(search, table: table.name)
            let comment = "'" + search.comment.replacingOccurrences(of: "'", with: "''") + "'"
            try execute(SQL(verbatim: "COMMENT ON COLUMN \(quotedTable).\(quotedColumn) IS \(comment)"))
        } catch let error as DatabaseError {
            throw SchemaError(
                "cannot create the full-text search column \(name) of \(table.name) (it needs a UTF-8 "
                    + "database and a server built with ICU): \(error.message)")
        }
    }

    /// Creates the GIN index on the search column unless the table has one (recognized by what
    /// it is, not by its name: a name PostgreSQL truncated must not make a second one), under a
    /// name that fits in 63 bytes and that no other relation has.
    private func createIndex(_ search: PostgresSearchColumn, table: String) throws {
        let existing = try execute(
            """
            SELECT 1 FROM pg_index AS i
            JOIN pg_class AS ic ON ic.oid = i.indexrelid
            JOIN pg_am AS am ON am.oid = ic.relam
            JOIN pg_attribute AS a ON a.attrelid = i.indrelid AND a.attnum = i.indkey[0]
            WHERE i.indrelid = format('%I.%I', current_schema(), CAST(\(table) AS text))::regclass
                AND i.indnkeyatts = 1 AND i.indpred IS NULL AND am.amname = 'gin' AND a.attname = \(search.name)
            """
        ).rows
        guard existing.isEmpty else { return }
        var name = PostgresIdentifier.fitting(search.indexName)
        if try relationExists(named: name) {
            name = PostgresIdentifier.fitting(name + "_" + StableHash.hex([table, search.name]))
        }
        try execute(
            SQL(
                verbatim:
                    "CREATE INDEX \(SQL.quoteIdentifier(name)) ON \(SQL.quoteIdentifier(table)) "
                    + "USING gin (\(SQL.quoteIdentifier(search.name)))"))
    }

    /// The comment on a column of a table in the current schema, or `nil`.
    private func storedComment(ofColumn column: String, table: String) throws -> String? {
        let rows = try execute(
            """
            SELECT col_description(a.attrelid, a.attnum) FROM pg_attribute AS a
            WHERE a.attrelid = format('%I.%I', current_schema(), CAST(\(table) AS text))::regclass
                AND a.attname = \(column) AND NOT a.attisdropped
            """
        ).rows
        guard case .text(let comment)? = rows.first?.first else { return nil }
        return comment
    }
}
