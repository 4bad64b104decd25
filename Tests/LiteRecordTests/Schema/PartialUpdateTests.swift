import Foundation
import LiteRecord
import Testing

private struct PartialStats: Codable, Equatable, Sendable {
    var wins: Int
}

private struct PartialItem: Model, Equatable {
    var id: Int64?
    var name: String
    var score: Int
    var note: String?
    var stats: PartialStats
    static let schema = Schema<PartialItem>(table: "partial_items").column(\.note, named: "remark")
}

private struct PartialPair: Model, Equatable {
    var left: String
    var right: Int
    var value: Int
    static let schema = Schema<PartialPair>(table: "partial_pairs", primaryKey: [\.left, \.right])
}

private struct PartialDevice: Model, Equatable {
    var id: UUID
    var label: String
    var seen: Int
    static let schema = Schema<PartialDevice>(table: "partial_devices")
}

/// `update(_:columns:)` writes the named columns of one row and leaves the others as they are.
@Suite struct PartialUpdateTests {
    private func seeded() throws -> (Database, PartialItem) {
        let db = try Database(.inMemory)
        var item = PartialItem(id: nil, name: "a", score: 1, note: "n", stats: PartialStats(wins: 1))
        try db.insert(&item)
        return (db, item)
    }

    @Test func writesOnlyTheNamedColumns() throws {
        let (db, item) = try seeded()
        // Another writer changes the name meanwhile: a partial update must not undo it.
        try db.execute(sql: "UPDATE partial_items SET name = 'changed elsewhere'")
        var edited = item
        edited.score = 42
        edited.name = "stale"
        edited.note = nil
        try db.update(edited, columns: [\.score, \.note])
        let stored = try #require(try db.find(PartialItem.self, id: item.id ?? 0))
        #expect(stored.score == 42)
        #expect(stored.note == nil)
        #expect(stored.name == "changed elsewhere")
        #expect(stored.stats == item.stats)
    }

    /// A UUID key binds all of its spellings: another tool stored this key in lower case.
    @Test func uuidKeyStoredByAnotherToolIsFound() throws {
        let db = try Database(.inMemory)
        let id = UUID()
        var device = PartialDevice(id: id, label: "phone", seen: 1)
        try db.insert(&device)
        try db.execute(sql: "UPDATE partial_devices SET id = lower(id)")
        device.seen = 7
        device.label = "stale"
        try db.update(device, columns: [\.seen])
        let stored = try #require(try db.find(PartialDevice.self, id: id))
        #expect(stored.seen == 7)
        #expect(stored.label == "phone")
        #expect(
            try db.fetchOne(String.self, sql: "SELECT id FROM partial_devices") == id.uuidString.lowercased())
    }

    @Test func jsonColumnsAndRenamedColumns() throws {
        let (db, item) = try seeded()
        var edited = item
        edited.stats.wins = 9
        edited.note = "renamed"
        try db.update(edited, columns: [\.stats, \.note])
        #expect(try db.find(PartialItem.self, id: item.id ?? 0) == edited)
    }

    @Test func compositeKeys() throws {
        let db = try Database(.inMemory)
        try db.insert(PartialPair(left: "a", right: 1, value: 1))
        try db.insert(PartialPair(left: "a", right: 2, value: 2))
        try db.update(PartialPair(left: "a", right: 2, value: 20), columns: [\.value])
        #expect(try db.fetchAll(PartialPair.self).map(\.value) == [1, 20])
    }

    @Test func missingRowIsRowNotFound() throws {
        let (db, item) = try seeded()
        var ghost = item
        ghost.id = 99
        do {
            try db.update(ghost, columns: [\.score])
            Issue.record("expected PersistenceError")
        } catch let error as PersistenceError {
            #expect(error.isRowNotFound)
        }
    }

    @Test func keyAndNonColumnKeyPathsAreErrorsAndWriteNothing() throws {
        let (db, item) = try seeded()
        var edited = item
        edited.score = 5
        let keyError = schemaError { try db.update(edited, columns: [\.score, \.id]) }
        #expect(keyError?.message.contains("primary key") == true)
        let nestedError = schemaError { try db.update(edited, columns: [\.stats.wins]) }
        #expect(nestedError?.message.contains("stats") == true)
        let emptyError = schemaError { try db.update(edited, columns: []) }
        #expect(emptyError != nil)
        #expect(try db.find(PartialItem.self, id: item.id ?? 0)?.score == 1)
    }

    @Test func worksInsideATransaction() throws {
        let (db, item) = try seeded()
        var edited = item
        edited.score = 7
        try db.transaction { tx in try tx.update(edited, columns: [\.score]) }
        #expect(try db.find(PartialItem.self, id: item.id ?? 0)?.score == 7)
    }

    @Test func asyncForm() async throws {
        let (db, item) = try seeded()
        var edited = item
        edited.score = 8
        edited.name = "not written"
        try await db.update(edited, columns: [\.score])
        let stored = try await db.find(PartialItem.self, id: item.id ?? 0)
        #expect(stored?.score == 8)
        #expect(stored?.name == "a")
    }
}
