/// The SQL of every model operation, built once per model type with quoted identifiers and a
/// `?` for every value.
struct ModelStatements: Sendable {
    let columns: [String]
    let insert: String
    let selectAll: String
    let count: String
    /// `nil` when the model has no primary key.
    let find: String?
    let exists: String?
    let delete: String?
    let update: String?
    let upsert: String?
    /// Positions in ``columns`` of the values an UPDATE binds: the non-key columns, then the key.
    let updateOrder: [Int]
    /// Positions in ``columns`` of the key columns.
    let keyPositions: [Int]
    /// For each key column, in key order, whether it holds UUIDs: its condition is
    /// `IN (?, ?, ?)`, bound with every spelling of the UUID (see ``keyArguments(_:)``).
    let uuidKeyColumns: [Bool]

    init(table: String, columns: [String], primaryKey: [String], uuidColumns: Set<String> = []) {
        let quotedTable = SQL.quoteIdentifier(table)
        let quoted = columns.map(SQL.quoteIdentifier)
        self.columns = columns
        insert = ModelStatements.insertSQL(table: table, columns: columns)
        selectAll = "SELECT * FROM \(quotedTable)"
        count = "SELECT count(*) FROM \(quotedTable)"
        let keyPositions = primaryKey.compactMap { columns.firstIndex(of: $0) }
        let valuePositions = columns.indices.filter { !keyPositions.contains($0) }
        self.keyPositions = keyPositions
        updateOrder = valuePositions + keyPositions
        uuidKeyColumns = primaryKey.map { uuidColumns.contains($0) }
        guard !primaryKey.isEmpty, keyPositions.count == primaryKey.count else {
            (find, exists, delete, update, upsert) = (nil, nil, nil, nil, nil)
            return
        }
        let keyCondition = primaryKey.map {
            // A UUID another tool stored in lower case or as 16 bytes is the same key.
            SQL.quoteIdentifier($0) + (uuidColumns.contains($0) ? " IN (?, ?, ?)" : " = ?")
        }.joined(separator: " AND ")
        find = "SELECT * FROM \(quotedTable) WHERE \(keyCondition)"
        exists = "SELECT 1 FROM \(quotedTable) WHERE \(keyCondition)"
        delete = "DELETE FROM \(quotedTable) WHERE \(keyCondition)"
        let assignments = valuePositions.map { "\(quoted[$0]) = ?" }.joined(separator: ", ")
        update =
            valuePositions.isEmpty ? nil : "UPDATE \(quotedTable) SET \(assignments) WHERE \(keyCondition)"
        let conflictTarget = primaryKey.map(SQL.quoteIdentifier).joined(separator: ", ")
        let excluded = valuePositions.map { "\(quoted[$0]) = excluded.\(quoted[$0])" }.joined(separator: ", ")
        upsert =
            ModelStatements.insertSQL(table: table, columns: columns) + " ON CONFLICT(\(conflictTarget)) DO "
            + (valuePositions.isEmpty ? "NOTHING" : "UPDATE SET \(excluded)")
    }

    /// Whether a key column holds UUIDs, so that `save` cannot rely on `ON CONFLICT`.
    var hasUUIDKey: Bool { uuidKeyColumns.contains(true) }

    /// Key values (in key order) as the key condition binds them: a UUID key's value as its
    /// three spellings.
    func keyArguments(_ key: [DatabaseValue]) -> [DatabaseValue] {
        guard hasUUIDKey else { return key }
        var arguments: [DatabaseValue] = []
        for (index, value) in key.enumerated() {
            if index < uuidKeyColumns.count, uuidKeyColumns[index] {
                arguments += UUIDSpellings.all(of: value)
            } else {
                arguments.append(value)
            }
        }
        return arguments
    }

    /// The arguments of ``update`` for a row's values in ``columns`` order.
    func updateArguments(_ values: [DatabaseValue]) -> [DatabaseValue] {
        guard hasUUIDKey else { return updateOrder.map { values[$0] } }
        let valueCount = updateOrder.count - keyPositions.count
        let key = keyArguments(keyPositions.map { values[$0] })
        return updateOrder.prefix(valueCount).map { values[$0] } + key
    }

    static func insertSQL(table: String, columns: [String]) -> String {
        let names = columns.map(SQL.quoteIdentifier).joined(separator: ", ")
        let placeholders = Array(repeating: "?", count: columns.count).joined(separator: ", ")
        return "INSERT INTO \(SQL.quoteIdentifier(table)) (\(names)) VALUES (\(placeholders))"
    }
}
