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

    init(table: String, columns: [String], primaryKey: [String]) {
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
        guard !primaryKey.isEmpty, keyPositions.count == primaryKey.count else {
            (find, exists, delete, update, upsert) = (nil, nil, nil, nil, nil)
            return
        }
        let keyCondition = primaryKey.map { "\(SQL.quoteIdentifier($0)) = ?" }.joined(separator: " AND ")
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

    static func insertSQL(table: String, columns: [String]) -> String {
        let names = columns.map(SQL.quoteIdentifier).joined(separator: ", ")
        let placeholders = Array(repeating: "?", count: columns.count).joined(separator: ", ")
        return "INSERT INTO \(SQL.quoteIdentifier(table)) (\(names)) VALUES (\(placeholders))"
    }
}
