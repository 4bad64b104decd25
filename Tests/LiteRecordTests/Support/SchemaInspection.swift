import LiteRecord
import Testing

/// The `CREATE TABLE` statement SQLite keeps for a table.
func createSQL(_ db: Database, _ table: String) throws -> String {
    try #require(try db.fetchOne(String.self, sql: "SELECT sql FROM sqlite_master WHERE name = \(table)"))
}

/// The columns of an index, in index order.
func indexColumns(_ db: Database, _ index: String) throws -> [String] {
    try db.fetchAll(String.self, sql: "SELECT name FROM pragma_index_info(\(index)) ORDER BY seqno")
}

/// Runs `body`, expecting a `SchemaError`, and returns it (recording an issue otherwise).
func schemaError(_ body: () throws -> Void) -> SchemaError? {
    do {
        try body()
        Issue.record("expected a SchemaError, nothing was thrown")
    } catch let error as SchemaError {
        return error
    } catch {
        Issue.record("expected a SchemaError, got \(type(of: error)): \(error)")
    }
    return nil
}
