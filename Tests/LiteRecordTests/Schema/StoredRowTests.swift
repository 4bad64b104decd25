import Foundation
import LiteRecord
import Testing

/// A ticket whose table another tool made, with a trigger that sets its code.
struct StoredTicket: Model, Equatable {
    var id: Int64?
    var title: String
    var code: String
    static let schema = Schema<StoredTicket>(table: "tickets", primaryKey: \.id, unique: [\.title])
}

/// `insertAndFetch`, `updateAndFetch`, `upsertAndFetch` return the row as stored, what AFTER
/// triggers set included (SQLite's RETURNING would miss it). (PostgreSQL: `PostgresStoredRowParityTests`.)
@Suite struct StoredRowTests {
    static let triggerSQL = """
        CREATE TABLE tickets(id INTEGER PRIMARY KEY, title TEXT NOT NULL UNIQUE, code TEXT NOT NULL DEFAULT '');
        CREATE TRIGGER tickets_code AFTER INSERT ON tickets BEGIN
            UPDATE tickets SET code = 'T-' || NEW.id WHERE id = NEW.id;
        END;
        CREATE TRIGGER tickets_recode AFTER UPDATE OF title ON tickets BEGIN
            UPDATE tickets SET code = 'R-' || NEW.id WHERE id = NEW.id;
        END;
        """

    @Test(.enabled(if: SQLiteShell.path != nil, "the sqlite3 shell is not installed"))
    func theRowComesBackAsTriggersLeftIt() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("stored-\(UUID()).sqlite")
        try SQLiteShell.write(file.path, Self.triggerSQL)
        let db = try Database(path: file.path)
        let stored = try db.insertAndFetch(StoredTicket(title: "first", code: ""))
        let id = try #require(stored.id)
        #expect(stored == StoredTicket(id: id, title: "first", code: "T-\(id)"))
        var renamed = stored
        renamed.title = "renamed"
        let updated = try db.updateAndFetch(renamed)
        #expect(updated.code == "R-\(id)")
        let met = try db.upsertAndFetch(
            StoredTicket(title: "renamed", code: "mine"), onConflict: [\.title], update: [])
        #expect(met == updated)
        let inserted = try db.upsertAndFetch(StoredTicket(title: "second", code: ""), onConflict: [\.title])
        #expect(inserted.code == "T-\(inserted.id ?? -1)")
    }

    @Test func inATransactionAndAsync() async throws {
        let db = try Database(.inMemory)
        try await db.execute(sql: SQL(verbatim: Self.triggerSQL))
        let inside = try await db.write { tx in try tx.insertAndFetch(StoredTicket(title: "tx", code: "")) }
        #expect(inside.code == "T-\(inside.id ?? -1)")
        let awaited = try await db.insertAndFetch(StoredTicket(title: "async", code: ""))
        #expect(awaited.code == "T-\(awaited.id ?? -1)")
        let upserted = try await db.upsertAndFetch(awaited, onConflict: [], update: nil)
        #expect(upserted.id == awaited.id)
        let missing = StoredTicket(id: 999, title: "none", code: "")
        #expect(throws: PersistenceError.self) { try db.updateAndFetch(missing) }
    }
}
