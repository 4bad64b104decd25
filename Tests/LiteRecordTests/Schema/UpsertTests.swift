import Foundation
import LiteRecord
import Testing

/// A user keyed by a generated id, identified by a unique email.
struct UpsertUser: Model, Equatable {
    var id: Int64?
    var email: String
    var name: String
    var bio: String
    static let schema = Schema<UpsertUser>(table: "upsert_users", primaryKey: \.id, unique: [\.email])
}

/// A device keyed by a UUID the caller chose.
struct UpsertDevice: Model, Equatable {
    var id: UUID
    var label: String
    static let schema = Schema<UpsertDevice>(table: "upsert_devices", primaryKey: \.id)
}

/// `upsert(_:onConflict:update:)` and `insertOrIgnore(_:onConflict:)` on SQLite. (PostgreSQL:
/// `UpsertParityChecks`.)
@Suite struct UpsertTests {
    static func databases() throws -> [Database] {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("upsert-\(UUID()).sqlite")
        return [try Database(.inMemory), try Database(path: file.path)]
    }

    @Test func anUpsertKeyedOnAUniqueColumnInsertsThenUpdatesOnlyTheNamedColumns() throws {
        for db in try Self.databases() {
            var ada = UpsertUser(email: "ada@example.com", name: "Ada", bio: "first")
            try db.upsert(&ada, onConflict: [\.email], update: [\.name])
            let id = try #require(ada.id)
            var again = UpsertUser(email: "ada@example.com", name: "Ada L.", bio: "ignored")
            try db.upsert(&again, onConflict: [\.email], update: [\.name])
            #expect(again.id == id)
            let stored = try db.query(UpsertUser.self).fetchAll()
            #expect(stored == [UpsertUser(id: id, email: "ada@example.com", name: "Ada L.", bio: "first")])
            // `update: nil`: every column but the key and the conflict columns.
            var third = UpsertUser(email: "ada@example.com", name: "Ada King", bio: "all")
            try db.upsert(&third, onConflict: [\.email])
            #expect(
                try db.find(UpsertUser.self, id: id)
                    == UpsertUser(id: id, email: "ada@example.com", name: "Ada King", bio: "all"))
        }
    }

    @Test func insertOrIgnoreTellsWhetherItInsertedAndGivesTheStoredKey() throws {
        for db in try Self.databases() {
            var first = UpsertUser(email: "bo@example.com", name: "Bo", bio: "")
            #expect(try db.insertOrIgnore(&first, onConflict: [\.email]))
            var second = UpsertUser(email: "bo@example.com", name: "Other", bio: "x")
            #expect(try db.insertOrIgnore(&second, onConflict: [\.email]) == false)
            #expect(second.id == first.id)
            #expect(try db.query(UpsertUser.self).fetchAll().map(\.name) == ["Bo"])
        }
    }

    @Test func theDefaultConflictIsThePrimaryKey() throws {
        let db = try Database(.inMemory)
        var cy = UpsertUser(email: "cy@example.com", name: "Cy", bio: "")
        try db.insert(&cy)
        cy.name = "Cyrus"
        try db.upsert(&cy)
        #expect(try db.query(UpsertUser.self).fetchAll() == [cy])
        var device = UpsertDevice(id: UUID(), label: "phone")
        try db.upsert(&device)
        device.label = "tablet"
        try db.upsert(&device)
        #expect(try db.query(UpsertDevice.self).fetchAll() == [device])
    }

    @Test func aConflictTargetWithoutAUniqueConstraintFailsBeforeWriting() throws {
        let db = try Database(.inMemory)
        var ann = UpsertUser(email: "ann@example.com", name: "Ann", bio: "")
        let error = #expect(throws: SchemaError.self) { try db.upsert(&ann, onConflict: [\.name]) }
        #expect(error?.message.contains("no unique constraint") == true)
        #expect(error?.message.contains("name") == true)
        #expect(try db.count(UpsertUser.self) == 0)
        #expect(throws: SchemaError.self) { try db.upsert(&ann, onConflict: [\.email], update: [\.id]) }
        #expect(try db.count(UpsertUser.self) == 0)
    }

    /// Concurrent upserts of one email: one row, no duplicate-key error.
    @Test func concurrentUpsertsOfOneEmailNeverFail() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent(
            "upsert-race-\(UUID()).sqlite")
        let db = try Database(path: file.path)
        let errors = Locked<[String]>([])
        DispatchQueue.concurrentPerform(iterations: 16) { index in
            do {
                var user = UpsertUser(email: "race@example.com", name: "n\(index)", bio: "")
                try db.upsert(&user, onConflict: [\.email], update: [\.name])
                guard user.id != nil else { throw SchemaError("no key") }
            } catch {
                errors.withLock { $0.append("\(error)") }
            }
        }
        #expect(errors.withLock { $0 } == [])
        #expect(try db.count(UpsertUser.self) == 1)
    }

    /// Rows another tool wrote: the upsert meets them, and a UUID key in lower case is updated
    /// in place rather than duplicated.
    @Test(.enabled(if: SQLiteShell.path != nil, "the sqlite3 shell is not installed"))
    func rowsTheShellWroteAreMet() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent(
            "upsert-shell-\(UUID()).sqlite")
        let db = try Database(path: file.path)
        try db.execute(sql: "SELECT 1")
        var seed = UpsertUser(email: "seed@example.com", name: "seed", bio: "")
        try db.insert(&seed)
        var device = UpsertDevice(id: UUID(), label: "seed")
        try db.insert(&device)
        try SQLiteShell.write(
            file.path,
            """
            INSERT INTO upsert_users(email, name, bio) VALUES ('shell@example.com', 'Shell', 'kept');
            UPDATE upsert_devices SET id = lower(id);
            """)
        var user = UpsertUser(email: "shell@example.com", name: "Renamed", bio: "lost")
        try db.upsert(&user, onConflict: [\.email], update: [\.name])
        #expect(
            try db.query(UpsertUser.self).where { $0.email == "shell@example.com" }.fetchAll().map(\.bio) == [
                "kept"
            ])
        #expect(user.id != nil)
        device.label = "upserted"
        try db.upsert(&device)
        #expect(try db.count(UpsertDevice.self) == 1)
        #expect(try db.find(UpsertDevice.self, id: device.id)?.label == "upserted")
        var ignored = device
        ignored.label = "ignored"
        #expect(try db.insertOrIgnore(&ignored, onConflict: []) == false)
        #expect(try db.find(UpsertDevice.self, id: device.id)?.label == "upserted")
    }

    @MainActor @Test func theAsyncFormsFromTheMainActor() async throws {
        let db = try Database(.inMemory)
        var dee = UpsertUser(email: "dee@example.com", name: "Dee", bio: "")
        try await db.upsert(&dee, onConflict: [\.email], update: [\.name])
        var again = UpsertUser(email: "dee@example.com", name: "Dee 2", bio: "")
        let inserted = try await db.insertOrIgnore(&again, onConflict: [\.email])
        #expect(!inserted)
        #expect(again.id == dee.id)
    }
}
