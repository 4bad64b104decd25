import Foundation
import LiteRecord

/// What `literecord schema` reports, and what `generate` works from: the tables and views of a
/// database as SQLite describes them (`sqlite_master` and the `pragma_*` table functions).
///
/// Only ``read(from:countingRows:)`` makes these values (their memberwise initializers are
/// internal), so whatever works from a description, tests included, works from a real table.
package struct DatabaseDescription: Sendable, Equatable {
    package var tables: [TableDescription]
    package var views: [TableDescription]
}

/// One table or view.
package struct TableDescription: Sendable, Equatable {
    package var name: String
    package var isView: Bool
    package var columns: [ColumnDescription]
    /// Primary key columns in key order; empty when the table has none declared.
    package var primaryKey: [String]
    package var indexes: [IndexDescription]
    package var foreignKeys: [ForeignKeyDescription]
    package var rowCount: Int
    /// Declared `STRICT`: every value must have the column's type (SQLite 3.37 and later).
    package var isStrict: Bool
    /// Declared `WITHOUT ROWID`: rows are stored in primary key order, with no rowid.
    package var isWithoutRowID: Bool
    /// Whether the single primary key column is an alias of the rowid, so SQLite assigns it when
    /// a row is inserted without it.
    ///
    /// Only a rowid table's one-column key declared exactly `INTEGER` is; two look alike and are
    /// not: a `WITHOUT ROWID` table has no rowid (a missing key fails `NOT NULL`), and a column
    /// declared `INTEGER PRIMARY KEY DESC` is an ordinary column (an SQLite quirk kept for
    /// compatibility) that stores NULL. SQLite backs a key that is no alias with an index of
    /// origin `pk`, which tells the second case from the first.
    package var hasRowIDPrimaryKey: Bool {
        guard !isWithoutRowID, primaryKey.count == 1,
            let column = columns.first(where: { $0.name == primaryKey[0] })
        else {
            return false
        }
        return column.declaredType.uppercased() == "INTEGER" && !indexes.contains { $0.origin == "pk" }
    }
}

/// One column.
package struct ColumnDescription: Sendable, Equatable {
    package var name: String
    /// The declared type as written (`NVARCHAR(40)`), empty when none.
    package var declaredType: String
    package var isNotNull: Bool
    /// The default's SQL text, as written.
    package var defaultSQL: String?
    /// Position in the primary key (1-based), 0 when not part of it.
    package var primaryKeyPosition: Int
    /// Generated (`GENERATED ALWAYS AS`) or hidden columns of a virtual table.
    package var isHidden: Bool
    /// How a generated column is computed, `nil` for a stored value.
    package var generated: GeneratedColumnKind?
    /// A generated column's expression as written in `CREATE TABLE` (`w * h`), when found.
    package var generatedExpression: String?
}

/// A generated column (`GENERATED ALWAYS AS (...)`): computed when read, or when written and
/// stored in the row.
package enum GeneratedColumnKind: String, Sendable, Equatable {
    case virtual
    case stored
}

/// One index, with how it came to be.
package struct IndexDescription: Sendable, Equatable {
    package var name: String
    package var isUnique: Bool
    /// `c` (CREATE INDEX), `u` (UNIQUE constraint) or `pk` (PRIMARY KEY).
    package var origin: String
    package var isPartial: Bool
    /// Column names in index order; `nil` for an expression.
    package var columns: [String?]
}

/// One foreign key.
package struct ForeignKeyDescription: Sendable, Equatable {
    package var columns: [String]
    package var parentTable: String
    /// Parent columns; empty means the parent's primary key.
    package var parentColumns: [String]
    package var onDelete: String
    package var onUpdate: String
}

extension DatabaseDescription {
    /// Reads every table (`sqlite_*` internal tables excepted) and view of `db`'s main schema.
    ///
    /// - Parameters:
    ///   - db: The database, opened read-only by the tool.
    ///   - countingRows: Whether to count each table's rows (a full scan of each).
    /// - Throws: ``DatabaseError`` from SQLite.
    package static func read(from db: Database, countingRows: Bool = true) throws -> DatabaseDescription {
        try db.read { connection in
            let entries = try connection.fetchAll(
                Row.self,
                sql: """
                    SELECT type, name FROM sqlite_master
                    WHERE type IN ('table', 'view') AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\'
                    ORDER BY name
                    """)
            var tables: [TableDescription] = []
            var views: [TableDescription] = []
            for entry in entries {
                let name = try entry.value(String.self, at: 1)
                let isView = try entry.value(String.self, at: 0) == "view"
                let table = try describe(name, isView: isView, countingRows: countingRows, on: connection)
                if isView { views.append(table) } else { tables.append(table) }
            }
            return DatabaseDescription(tables: tables, views: views)
        }
    }

    private static func describe(
        _ name: String, isView: Bool, countingRows: Bool, on connection: Connection
    ) throws -> TableDescription {
        let columnRows = try connection.fetchAll(
            Row.self,
            sql: "SELECT name, type, \"notnull\", dflt_value, pk, hidden FROM pragma_table_xinfo(\(name))")
        var columns = try columnRows.map { row in
            // `hidden`: 1 for a virtual table's hidden column, 2 generated VIRTUAL, 3 generated STORED.
            let hidden = try row.value(Int.self, at: 5)
            return ColumnDescription(
                name: try row.value(String.self, at: 0),
                declaredType: try row.value(String?.self, at: 1) ?? "",
                isNotNull: try row.value(Int.self, at: 2) != 0,
                defaultSQL: try row.value(String?.self, at: 3),
                primaryKeyPosition: try row.value(Int.self, at: 4),
                isHidden: hidden != 0, generated: hidden == 2 ? .virtual : hidden == 3 ? .stored : nil)
        }
        if columns.contains(where: { $0.generated != nil }),
            let sql = try connection.fetchOne(
                String.self, sql: "SELECT sql FROM sqlite_master WHERE type = 'table' AND name = \(name)")
        {
            let expressions = CreateTableText(sql)?.generatedColumnExpressions() ?? [:]
            for index in columns.indices where columns[index].generated != nil {
                columns[index].generatedExpression = expressions[columns[index].name.lowercased()]
            }
        }
        // `pragma_table_list` (SQLite 3.37) says whether a table is STRICT and WITHOUT ROWID.
        let options =
            isView
            ? nil
            : try connection.fetchOne(
                Row.self,
                sql: "SELECT \"strict\", wr FROM pragma_table_list WHERE schema = 'main' AND name = \(name)")
        let primaryKey = columns.filter { $0.primaryKeyPosition > 0 }
            .sorted { $0.primaryKeyPosition < $1.primaryKeyPosition }.map(\.name)
        let rowCount =
            countingRows
            ? try connection.fetchOne(
                Int.self, sql: SQL("SELECT count(*) FROM \(SQL.quoteIdentifier(name))" as String))
                ?? 0 : 0
        return TableDescription(
            name: name, isView: isView, columns: columns, primaryKey: primaryKey,
            indexes: isView ? [] : try indexes(of: name, on: connection),
            foreignKeys: isView ? [] : try foreignKeys(of: name, on: connection), rowCount: rowCount,
            isStrict: try options.map { try $0.value(Int.self, at: 0) != 0 } ?? false,
            isWithoutRowID: try options.map { try $0.value(Int.self, at: 1) != 0 } ?? false)
    }

    private static func indexes(of table: String, on connection: Connection) throws -> [IndexDescription] {
        let list = try connection.fetchAll(
            Row.self,
            sql: "SELECT name, \"unique\", origin, partial FROM pragma_index_list(\(table)) ORDER BY name")
        return try list.map { row in
            let name = try row.value(String.self, at: 0)
            let columns = try connection.fetchAll(
                Row.self, sql: "SELECT name FROM pragma_index_info(\(name)) ORDER BY seqno"
            ).map { try $0.value(String?.self, at: 0) }
            return IndexDescription(
                name: name, isUnique: try row.value(Int.self, at: 1) != 0,
                origin: try row.value(String.self, at: 2),
                isPartial: try row.value(Int.self, at: 3) != 0, columns: columns)
        }
    }

    private static func foreignKeys(of table: String, on connection: Connection) throws
        -> [ForeignKeyDescription]
    {
        let rows = try connection.fetchAll(
            Row.self,
            sql: """
                SELECT id, "from", "table", "to", on_delete, on_update
                FROM pragma_foreign_key_list(\(table)) ORDER BY id, seq
                """)
        var keys: [Int: ForeignKeyDescription] = [:]
        var order: [Int] = []
        for row in rows {
            let id = try row.value(Int.self, at: 0)
            if keys[id] == nil {
                order.append(id)
                keys[id] = ForeignKeyDescription(
                    columns: [], parentTable: try row.value(String.self, at: 2), parentColumns: [],
                    onDelete: try row.value(String.self, at: 4), onUpdate: try row.value(String.self, at: 5))
            }
            keys[id]?.columns.append(try row.value(String.self, at: 1))
            if let parentColumn = try row.value(String?.self, at: 3) {
                keys[id]?.parentColumns.append(parentColumn)
            }
        }
        return order.compactMap { keys[$0] }
    }
}
