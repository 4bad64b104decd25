import Foundation
import LiteRecord

// Automatic tables and additive migration on PostgreSQL: the first use of a model type creates
// its table, or adds the columns and indexes it lacks (read from information_schema), once per
// database, as SQLite's backend does.

extension PostgresSession {
    /// The model's table, created or completed on first use.
    func preparedTable<M: Model>(for type: M.Type) throws -> BackendTable {
        let table = try database.backendTable(for: M.self)
        let id = ObjectIdentifier(M.self)
        let isPrepared = database.preparedTables.withLock { $0.contains(id) }
        guard !isPrepared, !pendingTables.contains(id), !isReadOnly else {
            return table
        }
        try PostgresIdentifier.validate(table)
        if transactionDepth > 0 {
            try creatingTable { try prepare(table) }
            pendingTables.insert(id)
        } else {
            try runTransaction(begin: "BEGIN") { _ in try prepare(table) }
            database.preparedTables.withLock { _ = $0.insert(id) }
        }
        return table
    }

    /// The model's table for a read: as ``preparedTable(for:)``, but `nil` when this session
    /// never creates tables (a `read`) and the table does not exist, so that the read returns
    /// nothing, as SQLite's reads of a model never written do. Creates nothing.
    ///
    /// - Throws: ``LiteRecord/SchemaError`` for a model that cannot be mapped, or whose table
    ///   exists only under a case-folded spelling.
    func readableTable<M: Model>(for type: M.Type) throws -> BackendTable? {
        // A session that may create tables asks no lock here: `preparedTable` asks.
        guard isReadOnly, !database.preparedTables.withLock({ $0.contains(ObjectIdentifier(M.self)) }) else {
            return try preparedTable(for: M.self)
        }
        let table = try database.backendTable(for: M.self)
        try PostgresIdentifier.validate(table)
        // The catalog lookup is LiteRecord's, not the reader's: an observer must not take
        // pg_class for a table the fetch reads (it cannot hold a trigger), but must learn that
        // the model's table is missing, to create it and so see its first rows.
        let log = connection.statementLog
        connection.statementLog = nil
        defer { connection.statementLog = log }
        guard try !storedColumns(of: table).isEmpty else {
            if log != nil { connection.missingModelTables.append(M.self) }
            return nil
        }
        return table
    }

    /// A column of the model's table as the catalog describes it.
    private struct StoredColumn {
        let name: String
        let isNullable: Bool
        /// Whether a default, an identity or a generation fills it when an insert leaves it out.
        let isFilled: Bool
    }

    /// The columns of the model's table in the current schema; none when it does not exist.
    ///
    /// Read from `pg_class` by name (its index), the exact name and the spelling PostgreSQL
    /// folds an unquoted name to (ASCII lowercase) together: one short catalog query.
    ///
    /// - Throws: ``LiteRecord/SchemaError`` when the table does not exist under its exact name
    ///   but does under the folded one (`CREATE TABLE HandMade` without quotes makes
    ///   `handmade`): creating the exact name would make a second, empty table beside the user's.
    private func storedColumns(of table: BackendTable) throws -> [StoredColumn] {
        let folded = String(
            decoding: table.name.utf8.map { (65...90).contains($0) ? $0 + 32 : $0 }, as: UTF8.self)
        let rows = try execute(
            """
            SELECT c.relname::text, a.attname::text, NOT a.attnotnull,
                a.atthasdef OR a.attidentity <> '' OR a.attgenerated <> ''
            FROM pg_class AS c
            JOIN pg_attribute AS a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
            WHERE c.relname IN (\(table.name), \(folded)) AND c.relkind IN ('r', 'p', 'v', 'm', 'f')
                AND c.relnamespace = (SELECT oid FROM pg_namespace WHERE nspname = current_schema())
            ORDER BY c.relname, a.attnum
            """
        ).rows
        var exact: [StoredColumn] = []
        var folds = false
        for row in rows {
            guard row.count == 4, case .text(let tableName) = row[0], case .text(let name) = row[1] else {
                continue
            }
            guard tableName == table.name else {
                folds = true
                continue
            }
            exact.append(
                StoredColumn(name: name, isNullable: row[2] == .integer(1), isFilled: row[3] == .integer(1)))
        }
        if exact.isEmpty, folds {
            throw SchemaError(
                "\(table.typeName)'s table is \"\(table.name)\", which does not exist, but \"\(folded)\" does "
                    + "(PostgreSQL folds unquoted names to lowercase: CREATE TABLE \(table.name) without quotes "
                    + "makes \"\(folded)\"). LiteRecord does not create a second table beside it: name the "
                    + "table \"\(folded)\" in the model's Schema, or rename the table")
        }
        return exact
    }

    /// Creates the table, or adds what it lacks. Runs inside a transaction, which
    /// ``lockSchemaChanges()`` serializes with other processes doing the same. Every check
    /// runs before the first change, so that a refused schema writes nothing.
    private func prepare(_ table: BackendTable) throws {
        try lockSchemaChanges()
        let stored = try storedColumns(of: table)
        let existing = stored.map(\.name)
        let quotedTable = SQL.quoteIdentifier(table.name)
        let isNew = existing.isEmpty
        if isNew {
            var parts = table.columns.map { columnDefinition($0, table: table) }
            if !table.primaryKey.isEmpty {
                parts.append(
                    "PRIMARY KEY (\(table.primaryKey.map(SQL.quoteIdentifier).joined(separator: ", ")))")
            }
            try execute(SQL(verbatim: "CREATE TABLE \(quotedTable) (\(parts.joined(separator: ", ")))"))
        } else {
            let added = table.columns.filter { !existing.contains($0.name) }
            // As on SQLite: a new column that rows could not fill is refused, whether or not the
            // table holds rows today, so that a schema accepted on an empty table is not refused
            // on a full one later.
            if let column = added.first(where: { !$0.isOptional && $0.defaultValue == nil }) {
                throw SchemaError.newColumnNeedsValue(
                    column.name, table: table.name, property: "\(table.typeName).\(column.property)")
            }
            for column in added {
                try execute(
                    SQL(
                        verbatim:
                            "ALTER TABLE \(quotedTable) ADD COLUMN \(columnDefinition(column, table: table))")
                )
            }
            try relaxNotNull(of: table, stored: stored)
        }
        // A key declared on a table that already exists changes nothing in it, as on SQLite.
        try createIndexes(
            of: table, extra: isNew ? table.foreignKeys.filter(\.needsIndex).map(\.columns) : [])
        if isNew { try createForeignKeys(of: table) }
        try prepareFullTextSearch(of: table, existingColumns: existing)
    }

    /// Drops `NOT NULL` from the columns the model no longer fills, as SQLite's migration does:
    /// the column of a property made optional, and the column of a removed property that has no
    /// default. Neither the primary key nor a generated or identity column is touched.
    private func relaxNotNull(of table: BackendTable, stored: [StoredColumn]) throws {
        var modelColumns: [String: BackendTable.Column] = [:]
        for column in table.columns { modelColumns[column.name] = column }
        for column in stored where !column.isNullable && !table.primaryKey.contains(column.name) {
            if let modelColumn = modelColumns[column.name] {
                guard modelColumn.isOptional, column.name != table.automaticKeyColumn else { continue }
            } else if column.isFilled {
                continue
            }
            try execute(
                SQL(
                    verbatim:
                        "ALTER TABLE \(SQL.quoteIdentifier(table.name)) ALTER COLUMN "
                        + "\(SQL.quoteIdentifier(column.name)) DROP NOT NULL"))
        }
    }

    private func columnDefinition(_ column: BackendTable.Column, table: BackendTable) -> String {
        var text = SQL.quoteIdentifier(column.name) + " "
        text += PostgresDialect().columnType(
            column.declaredType, isJSON: column.isJSON, isBoolean: column.isBoolean)
        if column.name == table.automaticKeyColumn {
            return text + " GENERATED BY DEFAULT AS IDENTITY"
        }
        if !column.isOptional { text += " NOT NULL" }
        if let value = column.defaultValue, let literal = PostgresSession.literal(value, column: column) {
            text += " DEFAULT " + literal
        }
        return text
    }

    /// A schema default as an SQL literal: DDL takes no parameters. Defaults come from the
    /// model's `Schema`, never from rows; text is quoted with doubled quotes
    /// (standard_conforming_strings is on for every connection).
    static func literal(_ value: DatabaseValue, column: BackendTable.Column) -> String? {
        switch value {
        case .null: return "NULL"
        case .integer(let integer):
            if column.isBoolean { return integer != 0 ? "TRUE" : "FALSE" }
            return String(integer)
        case .real(let real): return "'\(PostgresParameters.text(of: real))'::double precision"
        case .text(let text):
            guard !text.utf8.contains(0) else { return nil }
            return "'" + text.replacingOccurrences(of: "'", with: "''") + "'"
        case .blob(let data): return "'\\x" + data.map { String(format: "%02x", $0) }.joined() + "'::bytea"
        }
    }
}

extension PostgresSession {
    /// Takes, until the transaction ends, the advisory lock that serializes LiteRecord's schema
    /// changes in the current schema: creating and completing tables, and running migrations.
    ///
    /// One lock for all of them, not one per table: a transaction that first uses a parent and
    /// then its child locks in the opposite order to one that first uses the child (whose table
    /// creates its parent's), and with a lock per table the two deadlocked. Keyed by the schema,
    /// so that databases on other schemas (tenants, tests) do not wait for each other.
    func lockSchemaChanges() throws {
        try execute(
            """
            SELECT pg_advisory_xact_lock(
                hashtext('literecord schema changes'), hashtext(coalesce(current_schema(), '')))
            """)
    }
}

extension PostgresSession {
    /// Creates (or completes) the tables of models a query reads besides its own.
    func prepareTables(of types: [any Model.Type]) throws {
        for type in types { try prepareTable(type) }
    }

    private func prepareTable<T: Model>(_ type: T.Type) throws {
        _ = try preparedTable(for: T.self)
    }

    /// As ``prepareTables(of:)``, for a read: `false` when this session never creates tables (a
    /// `read`) and one of the tables does not exist, so that the read returns nothing, as
    /// SQLite's does (no row can relate to a table that does not exist). Creates nothing.
    func readableTables(of types: [any Model.Type]) throws -> Bool {
        for type in types where try !readableTable(type) { return false }
        return true
    }

    private func readableTable<T: Model>(_ type: T.Type) throws -> Bool {
        try readableTable(for: T.self) != nil
    }
}

extension PostgresDatabase {
    /// A model's ``LiteRecord/BackendTable``, made once per type: it depends only on the type's
    /// schema, and making it again was a tenth of a `find`'s client-side instructions
    /// (callgrind: its foreign keys are worked out each time).
    ///
    /// - Throws: ``LiteRecord/SchemaError`` for a model that cannot be mapped (not remembered).
    func backendTable<M: Model>(for type: M.Type) throws -> BackendTable {
        let id = ObjectIdentifier(M.self)
        if let known = backendTables.withLock({ $0[id] }) { return known }
        let table = try BackendTable(for: M.self)
        backendTables.withLock { $0[id] = table }
        return table
    }
}
