import Foundation

/// A foreign key as the table's own definition declares it (`PRAGMA foreign_key_list`): it
/// may come from LiteRecord's schema or from the tool that created the table.
struct DeclaredForeignKey {
    let parentTable: String
    /// Child column → referenced column.
    let columns: [(child: String, parent: String)]
}

extension Connection {
    /// Runs an insert or an update of a row; when SQLite refuses it for a foreign key, writes
    /// each UUID, date or decimal key in the form the referenced row already stores it and
    /// tries once more.
    ///
    /// SQLite's foreign key compares stored values, so the key LiteRecord writes (a UUID as
    /// upper case text, a date as its text, a decimal as its shortest digits) does not satisfy a
    /// parent another tool stored as lower case text or 16 bytes, as ISO-8601 text or a unix
    /// number, or as "1.50", although `find` and `where` see the same value. Learning the form
    /// costs nothing on the common path: only a refused write looks the parent up.
    ///
    /// - Throws: The ``DatabaseError`` of the write, its message saying which key has no parent
    ///   in any form, when the retry does not help.
    /// - Parameters:
    ///   - row: The encoded row, in the column order `insert` expects.
    ///   - table: The model's table.
    ///   - insert: Writes a row (the model's or the respelled one).
    func writeKeepingForeignKeys(
        _ row: EncodedRow, table: TableSchema, write insert: (EncodedRow) throws -> Void
    ) throws {
        do {
            try insert(row)
        } catch let error as DatabaseError where error.resultCode == .constraintForeignKey {
            let keys = try declaredForeignKeys(of: table.tableName)
            var respelled = row
            var missing: [String] = []
            for key in keys {
                for (child, parent) in key.columns {
                    guard let index = row.columns.firstIndex(of: child) else { continue }
                    let value = row.values[index]
                    let form = table.valueForm(of: child, dateStorage: configuration.dateStorage)
                    guard value != .null, form != .plain else { continue }
                    if let stored = try storedValue(
                        matching: value, form: form, table: key.parentTable, column: parent)
                    {
                        respelled.values[index] = stored
                    } else {
                        missing.append(
                            "\(child) = \(Self.describe(value, form: form)) "
                                + "(no \(key.parentTable).\(parent) in any \(form == .uuid ? "spelling" : "form"))"
                        )
                    }
                }
            }
            if respelled != row {
                do {
                    return try insert(respelled)
                } catch let retry as DatabaseError where retry.resultCode == .constraintForeignKey {
                    throw explained(retry, missing: missing)
                }
            }
            throw explained(error, missing: missing)
        }
    }

    /// A key as the error message shows it: a UUID as LiteRecord writes it.
    private static func describe(_ value: DatabaseValue, form: RelationKeyForm) -> String {
        if form == .uuid, let uuid = try? UUID.fromDatabaseValue(value) { return uuid.uuidString }
        return value.description
    }

    /// The error with the keys found to have no parent, when there are some.
    private func explained(_ error: DatabaseError, missing: [String]) -> DatabaseError {
        guard !missing.isEmpty else { return error }
        return DatabaseError(
            resultCode: error.resultCode,
            message: error.message + ": no referenced row for " + missing.joined(separator: ", "),
            sql: error.sql, arguments: error.arguments, sqlState: error.sqlState)
    }

    /// The foreign keys a table's definition declares, the referenced columns resolved (a
    /// foreign key naming no column references the parent's primary key).
    func declaredForeignKeys(of table: String) throws -> [DeclaredForeignKey] {
        let sql: SQL =
            "SELECT id, \"table\", \"from\", \"to\" FROM pragma_foreign_key_list(\(table)) ORDER BY id, seq"
        var rows: [(id: Int64, parent: String, from: String, to: String?)] = []
        try withStatement(sql) { statement in
            while try statement.step() {
                guard case .integer(let id) = try statement.value(at: 0),
                    case .text(let parent) = try statement.value(at: 1),
                    case .text(let from) = try statement.value(at: 2)
                else { continue }
                let to: String?
                if case .text(let name) = try statement.value(at: 3) { to = name } else { to = nil }
                rows.append((id, parent, from, to))
            }
        }
        var keys: [DeclaredForeignKey] = []
        var index = 0
        while index < rows.count {
            let group = rows[index...].prefix { $0.id == rows[index].id }
            index += group.count
            let parent = group.first?.parent ?? ""
            var referenced = group.compactMap(\.to)
            if referenced.count != group.count { referenced = try primaryKeyColumns(of: parent) }
            guard referenced.count == group.count else { continue }
            keys.append(
                DeclaredForeignKey(
                    parentTable: parent, columns: Array(zip(group.map(\.from), referenced))))
        }
        return keys
    }

    /// The primary key columns of a table, in key order.
    private func primaryKeyColumns(of table: String) throws -> [String] {
        let sql: SQL = "SELECT name FROM pragma_table_info(\(table)) WHERE pk > 0 ORDER BY pk"
        var names: [String] = []
        try withStatement(sql) { statement in
            while try statement.step() {
                if case .text(let name) = try statement.value(at: 0) { names.append(name) }
            }
        }
        return names
    }
}
