// The README's "Hooks" section, line for line (see ReadmeCodeBlockTests).
import Foundation
import LiteRecord
import LiteRecordTestSupport
import Testing

private let traced = Locked<[String]>([])

/// The app's logger, in the README's hook example.
private func log(_ sql: String) {
    traced.withLock { $0.append(sql) }
}

@Suite struct HooksDocumentationTests {
    @Test func hooksReportStatementsChangesCommitsAndRollbacks() throws {
        let db = try Database(.inMemory)
        let events = Locked<[String]>([])
        db.trace { sql in log(sql) }                       // each statement as it runs, with ? placeholders
        let updates = db.onUpdate { change in              // every row inserted, updated or deleted
            // change.operation (.insert/.update/.delete), change.tableName, change.rowID
            events.withLock { $0.append("\(change.operation) \(change.tableName) \(change.rowID)") }
        }
        db.onCommit { /* a transaction committed */ }
        db.onRollback { /* a transaction rolled back */ }
        db.onCommit { events.withLock { $0.append("commit") } }
        try db.execute(sql: "CREATE TABLE hooked(x)")
        try db.execute(sql: "INSERT INTO hooked VALUES (\(1))")
        db.removeHook(updates)
        db.trace(nil)
        try db.execute(sql: "INSERT INTO hooked VALUES (2)")
        #expect(traced.withLock { $0 }.contains("INSERT INTO hooked VALUES (?)"))
        #expect(!traced.withLock { $0 }.contains("INSERT INTO hooked VALUES (2)"))
        #expect(events.withLock { $0 }.filter { $0.hasPrefix("insert") } == ["insert hooked 1"])
    }
}
