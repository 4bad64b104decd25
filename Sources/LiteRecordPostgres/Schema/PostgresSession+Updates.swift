import LiteRecord

// The text of a model's `UPDATE`, built once per model type and set of columns, as `find`'s and
// `insert`'s are: quoting the names and assembling the text again at every call was, with the
// key condition built the same way, two fifths of an `update`'s client-side instructions
// (callgrind, a read-modify-write transaction on PostgreSQL). The values are still bound at
// every call; only the text, which depends on the table and the columns alone, is kept.

/// What an `UPDATE`'s text depends on besides its columns (``PostgresDatabase/updateTexts``).
struct PostgresUpdateShape: Hashable {
    let model: ObjectIdentifier
    /// Whether the columns were chosen (`update(_:columns:)`) rather than all but the key.
    let partial: Bool
}

/// A model's `UPDATE ... SET ... WHERE <key>` text, with what it was built for.
struct PostgresUpdateText: Sendable {
    /// The encoded row's columns it was built for.
    let rowColumns: [String]
    /// The columns the caller chose; `nil` for all but the key.
    let names: [String]?
    /// `UPDATE "table" SET "a" = ?, "b" = ? WHERE "id" = ?`.
    let text: String
    /// Where each `SET` value is in the encoded row's values, in `SET` order.
    let setIndices: [Int]

    /// The statement's arguments for an encoded row and its key (as the table stores it).
    func arguments(_ row: EncodedRow, key: [DatabaseValue], table: BackendTable) -> [DatabaseValue] {
        var values = setIndices.map { row.values[$0] }
        table.appendKeyConditionValues(key, to: &values)
        return values
    }
}

extension PostgresDatabase {
    /// The `UPDATE` text for an encoded row of `M`, setting `names` (all but the key when
    /// `nil`); `nil` when there is nothing to set (every column is part of the key).
    ///
    /// - Throws: ``LiteRecord/PersistenceError`` when a chosen column was not encoded.
    func updateText<M: Model>(
        of type: M.Type, table: BackendTable, row: EncodedRow, names: [String]?
    ) throws -> PostgresUpdateText? {
        let shape = PostgresUpdateShape(model: ObjectIdentifier(M.self), partial: names != nil)
        // The row's columns are the schema's own array whenever the model encodes them all in
        // order: comparing them is then one identity check.
        if let cached = updateTexts.withLock({ $0[shape] }), cached.rowColumns == row.columns,
            cached.names == names
        {
            return cached
        }
        let setIndices: [Int]
        if let names {
            setIndices = try names.map { column in
                guard let index = row.columns.firstIndex(of: column) else {
                    throw PersistenceError("\(M.self) did not encode column \(column)", table: table.name)
                }
                return index
            }
        } else {
            setIndices = row.columns.indices.filter { !table.primaryKey.contains(row.columns[$0]) }
        }
        guard !setIndices.isEmpty else { return nil }
        let assignments = setIndices.map { SQL.quoteIdentifier(row.columns[$0]) + " = ?" }
        let text =
            "UPDATE \(SQL.quoteIdentifier(table.name)) SET \(assignments.joined(separator: ", "))"
            + " WHERE \(table.keyConditionText)"
        let update = PostgresUpdateText(
            rowColumns: row.columns, names: names, text: text, setIndices: setIndices)
        updateTexts.withLock { $0[shape] = update }
        return update
    }
}

extension BackendTable {
    /// The text of ``keyCondition(_:)``, the same for every key: `"a" = ? AND "b" = ?`, a
    /// UUID column `"id" IN (?,?)`.
    var keyConditionText: String {
        let holdsUUIDs = keyHoldsUUIDs
        return primaryKey.enumerated().map { index, column in
            let isUUID = index < holdsUUIDs.count && holdsUUIDs[index]
            return SQL.quoteIdentifier(column) + (isUUID ? " IN (?,?)" : " = ?")
        }.joined(separator: " AND ")
    }

    /// Appends the values ``keyConditionText``'s parameters take for a key, in order: those
    /// ``keyCondition(_:)`` binds.
    func appendKeyConditionValues(_ key: [DatabaseValue], to values: inout [DatabaseValue]) {
        let holdsUUIDs = keyHoldsUUIDs
        for (index, value) in key.prefix(primaryKey.count).enumerated() {
            if index < holdsUUIDs.count, holdsUUIDs[index] {
                values.append(contentsOf: UUIDSpellings.text(of: value))
            } else {
                values.append(value)
            }
        }
    }
}
