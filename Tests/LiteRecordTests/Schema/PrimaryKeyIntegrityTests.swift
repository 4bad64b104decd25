import Foundation
import LiteRecord
import Testing

private struct OptionalStringKey: Model, Equatable {
    var id: String?
    var name: String
    static let schema = Schema<OptionalStringKey>(table: "optional_string_keys")
}

private struct OptionalUUIDKey: Model, Equatable {
    var id: UUID?
    var name: String
    static let schema = Schema<OptionalUUIDKey>(table: "optional_uuid_keys")
}

private struct OptionalCompositeKey: Model, Equatable {
    var region: String?
    var number: Int?
    var name: String
    static let schema = Schema<OptionalCompositeKey>(
        table: "optional_composite", primaryKey: [\.region, \.number])
}

private struct AutomaticKey: Model, Equatable {
    var id: Int64?
    var name: String
    static let schema = Schema<AutomaticKey>(table: "automatic_keys")
}

/// Expects a `PersistenceError` whose message contains every fragment.
private func expectKeyError(_ fragments: [String], _ body: () throws -> Void) {
    do {
        try body()
        Issue.record("expected a PersistenceError, nothing was thrown")
    } catch let error as PersistenceError {
        for fragment in fragments {
            #expect(error.message.contains(fragment), "\(error.message) lacks \(fragment)")
        }
    } catch {
        Issue.record("expected a PersistenceError, got \(type(of: error)): \(error)")
    }
}

/// A primary key SQLite does not assign can never be NULL: its column is NOT NULL and a nil
/// key is an error before anything is written.
@Suite struct PrimaryKeyIntegrityTests {
    private func isNotNull(_ db: Database, _ table: String, _ column: String) throws -> Bool {
        try db.fetchOne(
            Int.self, sql: "SELECT \"notnull\" FROM pragma_table_info(\(table)) WHERE name = \(column)") == 1
    }

    @Test func optionalStringKeyColumnIsNotNull() throws {
        let db = try Database(.inMemory)
        try db.migrate(OptionalStringKey.self)
        #expect(try isNotNull(db, "optional_string_keys", "id"))
    }

    @Test func insertWithNilStringKeyIsAnErrorAndWritesNothing() throws {
        let db = try Database(.inMemory)
        expectKeyError(["OptionalStringKey", "id", "nil"]) {
            try db.insert(OptionalStringKey(id: nil, name: "a"))
        }
        var model = OptionalStringKey(id: nil, name: "b")
        expectKeyError(["OptionalStringKey", "id"]) { try db.save(&model) }
        #expect(try db.count(OptionalStringKey.self) == 0)
        try db.insert(OptionalStringKey(id: "k", name: "c"))
        #expect(try db.find(OptionalStringKey.self, id: "k")?.name == "c")
    }

    @Test func nilKeyIsRejectedEvenWhenAnOlderTableAllowsNull() throws {
        let db = try Database(.inMemory)
        try db.execute(sql: "CREATE TABLE optional_string_keys (id TEXT PRIMARY KEY, name TEXT NOT NULL)")
        expectKeyError(["OptionalStringKey", "id"]) { try db.insert(OptionalStringKey(id: nil, name: "a")) }
        #expect(try db.count(OptionalStringKey.self) == 0)
    }

    @Test func optionalUUIDKeyIsAnErrorWhenNil() throws {
        let db = try Database(.inMemory)
        var model = OptionalUUIDKey(id: nil, name: "a")
        expectKeyError(["OptionalUUIDKey", "id"]) { try db.insert(&model) }
        #expect(try db.count(OptionalUUIDKey.self) == 0)
        #expect(try isNotNull(db, "optional_uuid_keys", "id"))
        let id = UUID()
        try db.insert(OptionalUUIDKey(id: id, name: "b"))
        #expect(try db.find(OptionalUUIDKey.self, id: id)?.name == "b")
    }

    @Test func compositeKeyWithNilMemberIsAnError() throws {
        let db = try Database(.inMemory)
        try db.migrate(OptionalCompositeKey.self)
        #expect(try isNotNull(db, "optional_composite", "region"))
        #expect(try isNotNull(db, "optional_composite", "number"))
        expectKeyError(["OptionalCompositeKey", "number"]) {
            try db.insert(OptionalCompositeKey(region: "eu", number: nil, name: "a"))
        }
        var model = OptionalCompositeKey(region: nil, number: 1, name: "b")
        expectKeyError(["OptionalCompositeKey", "region"]) { try db.save(&model) }
        #expect(try db.count(OptionalCompositeKey.self) == 0)
        try db.insert(OptionalCompositeKey(region: "eu", number: 1, name: "c"))
        #expect(try db.find(OptionalCompositeKey.self, key: ["eu", 1])?.name == "c")
    }

    @Test func automaticIntegerKeyStillAcceptsNil() throws {
        let db = try Database(.inMemory)
        var model = AutomaticKey(id: nil, name: "a")
        try db.insert(&model)
        #expect(model.id == 1)
        var other = AutomaticKey(id: nil, name: "b")
        try db.save(&other)
        #expect(other.id == 2)
    }
}
