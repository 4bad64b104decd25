import Foundation

/// How the values of one key column of a relation compare: as a `where` condition on the
/// column compares them, whatever form another tool stored them in.
///
/// A key another tool wrote may not be spelled as LiteRecord writes it: a UUID in lower case
/// text or as 16 bytes, an integer as the REAL `5.0` in a column without a type. `where`
/// compares such values as values (see ``StoredComparison``); eager loading, relation filters
/// and junctions compare keys the same way, in SQL and when rows are grouped by key in Swift.
enum RelationKeyForm: Sendable, Equatable {
    /// Compared as SQLite compares them: an integer equals the REAL of the same value.
    case plain
    /// A UUID: text in either letter case, or 16 bytes.
    case uuid

    /// The form of a key column pair: a UUID when either side's property is a `UUID`.
    init(_ columns: TableSchema.Column?...) {
        let isUUID = columns.contains { column in
            column?.swiftTypeName == "UUID" || column?.swiftTypeName == "Optional<UUID>"
        }
        self = isUUID ? .uuid : .plain
    }

    /// The one value every spelling of a key maps to, so that keys hash alike when they are
    /// equal as values: an integral REAL as the INTEGER, a UUID as its canonical (upper case)
    /// text. Other values are themselves.
    func canonical(_ value: DatabaseValue) -> DatabaseValue {
        switch value {
        case .real(let real):
            // SQLite's `=` finds 5 for 5.0; so does the grouping.
            if let integer = Int64(exactly: real) { return .integer(integer) }
            return value
        case .text, .blob:
            guard self == .uuid, let uuid = try? UUID.fromDatabaseValue(value) else { return value }
            return .text(uuid.uuidString)
        default:
            return value
        }
    }

    /// SQL true when `column` holds the key `other` in any of its spellings; `other` is an
    /// expression (a column of another table, a member of the bound key list).
    ///
    /// For a UUID, `column IN (upper text, lower text, 16 bytes)` of `other`'s value, which an
    /// index on `column` serves; plain `=` otherwise.
    func equality(_ column: SQL, _ other: SQL) -> SQL {
        guard self == .uuid, SQLDialect.current != .postgres else { return "\(column) = \(other)" }
        let text: SQL = "\(SQL(StoredValueFunctions.uuidText))(\(other))"
        return "\(column) IN (\(text), lower(\(text)), \(SQL(StoredValueFunctions.uuid))(\(other)))"
    }
}

extension Relation {
    /// The form of each key column pair (see ``RelationKeyForm``).
    var keyForms: [RelationKeyForm] {
        rootColumns.indices.map { index in
            RelationKeyForm(
                root.columns.first { $0.name == rootColumns[index] },
                target.columns.first { $0.name == targetColumns[index] })
        }
    }

    /// SQL true when a row of the target (under `targetAlias`) and a row of the root (under
    /// `rootAlias`) are related, their keys compared as values.
    func keysEqual(target targetAlias: SQL, root rootAlias: SQL) -> SQL {
        var sql: SQL = ""
        for (index, form) in keyForms.enumerated() {
            if index > 0 { sql.append(" AND ") }
            sql.append(
                form.equality(
                    "\(targetAlias).\(SQL(SQL.quoteIdentifier(targetColumns[index])))",
                    "\(rootAlias).\(SQL(SQL.quoteIdentifier(rootColumns[index])))"))
        }
        return sql
    }
}
