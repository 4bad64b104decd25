import Foundation

/// How the values of one key column of a relation compare: as a `where` condition on the
/// column compares them, whatever form another tool stored them in.
///
/// A key another tool wrote may not be spelled as LiteRecord writes it: a UUID in lower case
/// text or as 16 bytes, an integer as the REAL `5.0` in a column without a type, a date as
/// ISO-8601 text or a unix number, a decimal as `1.50` or the REAL `1.5`. `where`
/// compares such values as values (see ``StoredComparison``); eager loading, relation filters
/// and junctions compare keys the same way, in SQL and when rows are grouped by key in Swift.
package enum RelationKeyForm: Sendable, Equatable {
    /// Compared as SQLite compares them: an integer equals the REAL of the same value.
    case plain
    /// A UUID: text in either letter case, or 16 bytes.
    case uuid
    /// A `Date`: compared as the instant the decoder reads, numbers read under the storage.
    case date(DateStorage)
    /// A `Decimal`: compared by value, exactly (`1.50` is `1.5`, and the REAL `1.5`).
    case decimal

    /// The form of a key column pair, from either side's Swift property type: a UUID, a date or
    /// a decimal when either property is one; `storage` reads a date stored as a number.
    init(_ columns: [TableSchema.Column?], storage: DateStorage) {
        func isType(_ name: String) -> Bool {
            columns.contains { $0?.swiftTypeName == name || $0?.swiftTypeName == "Optional<\(name)>" }
        }
        if isType("UUID") {
            self = .uuid
        } else if isType("Date") {
            self = .date(storage)
        } else if isType("Decimal") {
            self = .decimal
        } else {
            self = .plain
        }
    }

    /// The one value every spelling of a key maps to, so that keys hash alike when they are
    /// equal as values: an integral REAL as the INTEGER, a UUID as its canonical (upper case)
    /// text. Other values are themselves.
    package func canonical(_ value: DatabaseValue) -> DatabaseValue {
        switch self {
        case .date(let storage):
            // The instant `literecord_instant` gives in SQL, so the bound keys match it there.
            guard value != .null, let date = try? storage.date(from: value) else { return value }
            return .real(date.timeIntervalSinceReferenceDate)
        case .decimal:
            // One text per value: `Decimal`'s own description drops trailing zeros.
            guard value != .null, let decimal = try? Decimal.fromDatabaseValue(value) else { return value }
            return .text(decimal.description)
        case .plain, .uuid:
            break
        }
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
    /// index on `column` serves; dates as instants and decimals by value on both sides (as
    /// `where` compares two such columns); plain `=` otherwise. In a dialect whose columns
    /// hold one form, plain `=` but for a UUID, matched in either letter case.
    func equality(_ column: SQL, _ other: SQL, in dialect: any SQLDialect) -> SQL {
        if dialect.comparesStoredFormsPlainly {
            // Its columns hold text only, but a UUID another tool wrote may be in lower case.
            guard self == .uuid else { return "\(column) = \(other)" }
            return "\(column) IN (upper(\(other)), lower(\(other)))"
        }
        switch self {
        case .plain:
            return "\(column) = \(other)"
        case .uuid:
            let text: SQL = "\(SQL(StoredValueFunctions.uuidText))(\(other))"
            return "\(column) IN (\(text), lower(\(text)), \(SQL(StoredValueFunctions.uuid))(\(other)))"
        case .date, .decimal:
            return "\(comparable(column)) = \(comparable(other))"
        }
    }

    /// The expression whose value, under its collation, compares the key as a value: the
    /// column's instant for a date, its decimal text under the `literecord_decimal` collation
    /// for a decimal; the column itself otherwise. Bound keys in canonical form compare
    /// equal to it (see ``canonical(_:)``).
    func comparable(_ column: SQL) -> SQL {
        switch self {
        case .plain, .uuid:
            return column
        case .date(let storage):
            return "\(SQL(StoredValueFunctions.instant))(\(column), \(storage.functionCode))"
        case .decimal:
            let decimal = SQL(StoredValueFunctions.decimal)
            return "\(decimal)(\(column)) COLLATE \(decimal)"
        }
    }

    /// The expression that is equal for every spelling of one key under plain `=` (so an
    /// automatic index serves it): a UUID's 16 bytes, a decimal's canonical text, otherwise
    /// ``comparable(_:)``.
    func keyValue(_ column: SQL) -> SQL {
        switch self {
        case .uuid: "\(SQL(StoredValueFunctions.uuid))(\(column))"
        case .decimal: "\(SQL(StoredValueFunctions.decimalKey))(\(column))"
        case .plain, .date: comparable(column)
        }
    }

    /// Whether keys of this form are compared as they are stored only after conversion, so
    /// that an INTEGER key is not yet its canonical form (a unix date, a decimal).
    package var convertsIntegers: Bool {
        switch self {
        case .date, .decimal: true
        case .plain, .uuid: false
        }
    }
}

extension Relation {
    /// The form of each key column pair (see ``RelationKeyForm``).
    var keyForms: [RelationKeyForm] {
        rootColumns.indices.map { index in
            // A date column's own storage reads its numbers, else the database's, as the
            // decoder reads them.
            RelationKeyForm(
                [
                    root.columns.first { $0.name == rootColumns[index] },
                    target.columns.first { $0.name == targetColumns[index] },
                ],
                storage: root.columnDateStorage[rootColumns[index]]
                    ?? target.columnDateStorage[targetColumns[index]] ?? dateStorage)
        }
    }

    /// SQL true when a row of the target (under `targetAlias`) and a row of the root (under
    /// `rootAlias`) are related, their keys compared as values in `dialect`.
    func keysEqual(target targetAlias: SQL, root rootAlias: SQL, in dialect: any SQLDialect) -> SQL {
        var sql: SQL = ""
        for (index, form) in keyForms.enumerated() {
            if index > 0 { sql.append(" AND ") }
            sql.append(
                form.equality(
                    "\(targetAlias).\(SQL(SQL.quoteIdentifier(targetColumns[index])))",
                    "\(rootAlias).\(SQL(SQL.quoteIdentifier(rootColumns[index])))", in: dialect))
        }
        return sql
    }

    /// Whether a key compares through a function of the stored value (a date, a decimal), which
    /// no index on the key column serves, in `dialect`.
    func comparesThroughFunction(in dialect: any SQLDialect) -> Bool {
        !dialect.comparesStoredFormsPlainly && keyForms.contains(where: \.convertsIntegers)
    }

    /// SQL true when the root row (under `rootAlias`) has a related row in the target table
    /// (under `targetAlias`) for which `condition` holds, keys compared as values.
    ///
    /// A correlated `EXISTS` is looked up in the key's index; a date or decimal key compares
    /// through a function no index serves, so the related keys are gathered once
    /// (`key IN (SELECT ...)`), not scanned again for every root row.
    func exists(
        target targetAlias: SQL, root rootAlias: SQL, targetTable: SQL, where condition: SQL,
        in dialect: any SQLDialect
    ) -> SQL {
        guard comparesThroughFunction(in: dialect) else {
            return "EXISTS (SELECT 1 FROM \(targetTable) AS \(targetAlias) WHERE "
                + "\(keysEqual(target: targetAlias, root: rootAlias, in: dialect)) AND \(condition))"
        }
        var rootKeys: SQL = ""
        var targetKeys: SQL = ""
        for (index, form) in keyForms.enumerated() {
            if index > 0 {
                rootKeys.append(", ")
                targetKeys.append(", ")
            }
            rootKeys.append(form.keyValue("\(rootAlias).\(SQL(SQL.quoteIdentifier(rootColumns[index])))"))
            targetKeys.append(
                form.keyValue("\(targetAlias).\(SQL(SQL.quoteIdentifier(targetColumns[index])))"))
        }
        return
            "(\(rootKeys)) IN (SELECT \(targetKeys) FROM \(targetTable) AS \(targetAlias) WHERE \(condition))"
    }
}
