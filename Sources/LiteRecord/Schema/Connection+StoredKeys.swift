import Foundation

// Keys another tool stored in another form: a `Date` as ISO-8601 text or a unix number, a
// `Decimal` as "1.50" or the REAL 1.5. `where` and the relation paths compare them as values
// (see RelationKeyForm); the operations by primary key (find, exists, update, delete, save) and
// the foreign keys LiteRecord writes do the same here.
//
// The key as LiteRecord writes it is looked up first, through the key's index; only when that
// finds no row is the key looked up by value, which no index serves (the table is scanned once).
// So the common path costs nothing more, and a miss costs one scan.

extension TableSchema {
    /// How each primary key column compares as a value, a date column read under its own
    /// storage or else `dateStorage` (as the decoder reads it).
    func keyForms(dateStorage: DateStorage) -> [RelationKeyForm] {
        primaryKey.map { name in
            RelationKeyForm(
                [columns.first { $0.name == name }], storage: columnDateStorage[name] ?? dateStorage)
        }
    }

    /// The form of one column's values (see ``keyForms(dateStorage:)``).
    func valueForm(of column: String, dateStorage: DateStorage) -> RelationKeyForm {
        RelationKeyForm(
            [columns.first { $0.name == column }], storage: columnDateStorage[column] ?? dateStorage)
    }

    /// Whether a primary key column holds dates or decimals, whose other forms the key's own
    /// statements (plain `=`) do not find.
    var hasValueFormKey: Bool {
        // The storage does not decide whether a column is a date: any one will do.
        keyForms(dateStorage: .text).contains(where: \.convertsIntegers)
    }
}

extension Connection {
    /// The primary key as the table stores it, when a row holds `key` as a value in another
    /// form; `nil` when no row does, or when no key column is a date or a decimal (a UUID's
    /// spellings are already bound by the key's statements).
    ///
    /// - Parameters:
    ///   - key: The key values in key order, as LiteRecord encodes them.
    ///   - table: The model's table.
    /// - Throws: ``DatabaseError``.
    func storedKey(matching key: [DatabaseValue], table: TableSchema) throws -> [DatabaseValue]? {
        guard table.hasValueFormKey, key.count == table.primaryKey.count else { return nil }
        let forms = table.keyForms(dateStorage: configuration.dateStorage)
        let columns = table.primaryKey.map { SQL(SQL.quoteIdentifier($0)) }
        guard let condition = valueCondition(columns: columns, forms: forms, values: key) else { return nil }
        var sql: SQL = "SELECT "
        for (index, column) in columns.enumerated() {
            if index > 0 { sql.append(", ") }
            sql.append(column)
        }
        sql.append(" FROM \(SQL(SQL.quoteIdentifier(table.tableName))) WHERE \(condition) LIMIT 1")
        return try withStatement(sql) { statement -> [DatabaseValue]? in
            guard try statement.step() else { return nil }
            return try columns.indices.map { try statement.value(at: $0) }
        }
    }

    /// A value `column` of `table` stores that equals `value` as a value of `form`: the parent's
    /// own form of a foreign key; `nil` when no row holds it in any form.
    func storedValue(
        matching value: DatabaseValue, form: RelationKeyForm, table: String, column: String
    ) throws -> DatabaseValue? {
        let quoted = SQL(SQL.quoteIdentifier(column))
        guard let condition = valueCondition(columns: [quoted], forms: [form], values: [value]) else {
            return nil
        }
        let sql: SQL = "SELECT \(quoted) FROM \(SQL(SQL.quoteIdentifier(table))) WHERE \(condition) LIMIT 1"
        return try withStatement(sql) { statement -> DatabaseValue? in
            // Not a ternary: `nil` there would be DatabaseValue's own nil literal, `.null`.
            guard try statement.step() else { return nil }
            let stored = try statement.value(at: 0)
            return stored == .null ? nil : stored
        }
    }

    /// SQL true when each column holds its value as a value of its form: a UUID in any
    /// spelling, a date as the same instant, a decimal as the same number; `nil` when a value is
    /// NULL or not of its form (nothing can match it then).
    private func valueCondition(columns: [SQL], forms: [RelationKeyForm], values: [DatabaseValue]) -> SQL? {
        var condition: SQL = ""
        for (index, form) in forms.enumerated() {
            let value = values[index]
            guard value != .null else { return nil }
            if index > 0 { condition.append(" AND ") }
            let column = columns[index]
            switch form {
            case .uuid:
                guard let uuid = try? UUID.fromDatabaseValue(value) else { return nil }
                condition.append("\(column) IN \(list: UUIDSpellings.all(uuid))")
            case .date(let storage):
                guard let date = try? storage.date(from: value) else { return nil }
                // The instant `canonical(_:)` gives, which `keyValue` computes in SQL.
                condition.append("\(form.keyValue(column)) = \(date.timeIntervalSinceReferenceDate)")
            case .decimal:
                guard let decimal = try? Decimal.fromDatabaseValue(value) else { return nil }
                condition.append("\(form.keyValue(column)) = \(decimal.description)")
            case .plain:
                condition.append("\(column) = \(value)")
            }
        }
        return condition
    }
}

extension Connection {
    /// Runs a write by primary key (`run` gets the row and returns whether it changed one); when
    /// it changed none, finds the key in the form the table stores it and runs the write once
    /// more with that key.
    ///
    /// - Returns: Whether a row was changed.
    func writingByStoredKey(_ row: EncodedRow, table: TableSchema, _ run: (EncodedRow) throws -> Bool) throws
        -> Bool
    {
        if try run(row) { return true }
        let key = try keyValues(of: row, table: table)
        guard let stored = try storedKey(matching: key, table: table), stored != key else { return false }
        var restored = row
        for (name, value) in zip(table.primaryKey, stored) {
            if let index = restored.columns.firstIndex(of: name) { restored.values[index] = value }
        }
        return try run(restored)
    }
}
