import Foundation
import LiteRecord
import LiteRecordPostgres
import Testing

// One error story on both backends: a `DatabaseError`'s `resultCode` is the same family on both,
// and its description never names SQLite for an error of PostgreSQL's. A server error leads with
// its SQLSTATE; an error LiteRecord raises itself on PostgreSQL leads with the family and the
// backend (`misuse (PostgreSQL): ...`), where it used to read `SQLITE_MISUSE (21): ...`.

@Suite(.enabled(if: PostgresTestServer.isAvailable, PostgresTestServer.skipMessage))
struct PostgresErrorDescriptionTests {
    @Test func anArgumentCountMismatchIsMisuseDescribedAsPostgreSQLs() throws {
        let pg = try PostgresTestServer.freshDatabase()
        let error = #expect(throws: DatabaseError.self) {
            try pg.execute(sql: "SELECT ? + ?", arguments: [1])
        }
        #expect(error?.resultCode == .misuse)
        #expect(error?.sqlState == nil)
        #expect(error.map { "\($0)" }?.hasPrefix("misuse (PostgreSQL): ") == true)
        #expect(error.map { "\($0)" }?.contains("SQLITE") == false)
    }

    @Test func aQueryOfATransactionRunOutsideItIsMisuseDescribedAsPostgreSQLs() throws {
        let pg = try PostgresTestServer.freshDatabase()
        let leaked = try pg.transaction { tx in tx.query(ErrorNote.self) }
        // A thread of its own: `DispatchQueue.sync` may run the block on the calling thread.
        let box = ErrorBox()
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            do { _ = try leaked.fetchAll() } catch { box.error = error as? DatabaseError }
            done.signal()
        }
        thread.start()
        done.wait()
        let error = box.error
        #expect(error?.resultCode == .misuse)
        #expect(
            error.map { "\($0)" }?.hasPrefix("misuse (PostgreSQL): a query built on a transaction") == true)
    }

    @Test func aServerErrorStillLeadsWithItsSQLState() throws {
        let pg = try PostgresTestServer.freshDatabase()
        let error = #expect(throws: DatabaseError.self) { try pg.execute(sql: "SELECT * FROM no_such_table") }
        #expect(error?.sqlState == "42P01")
        #expect(error.map { "\($0)" }?.hasPrefix("SQLSTATE 42P01: ") == true)
    }

    @Test func sqliteErrorsKeepSQLitesCodeNames() throws {
        let db = try Database(.inMemory)
        let error = #expect(throws: DatabaseError.self) { try db.execute(sql: "SELECT * FROM no_such_table") }
        #expect(error.map { "\($0)" }?.hasPrefix("SQLITE_ERROR (1): no such table") == true)
    }
}

private struct ErrorNote: Model {
    var id: Int64?
    var body: String
    static let schema = Schema<ErrorNote>(table: "error_notes")
}

/// The error a thread caught, read after the thread signalled.
private final class ErrorBox: @unchecked Sendable {
    // @unchecked Sendable: written by one thread before it signals, read after the wait.
    var error: DatabaseError?
}
