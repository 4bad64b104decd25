import Foundation
import LiteRecord
import Testing

// MARK: - Models

/// No schema: table `annotatedDefaultPlayer`, key `id` assigned by SQLite.
private struct AnnotatedDefaultPlayer: Model, Equatable {
    var id: Int64?
    var name: String
}

/// No schema, an `Int?` key.
private struct AnnotatedIntKeyed: Model, Equatable {
    var id: Int?
    var label: String
}

/// No `id` and no schema key: it can be inserted and read, not addressed by key.
private struct AnnotatedKeylessEvent: Model, Equatable {
    var message: String
    var level: Int
}

/// A table name with a space, a double quote and a single quote.
private struct AnnotatedOddTable: Model, Equatable {
    var id: Int64?
    var name: String
    var score: Int
    static let schema = Schema<AnnotatedOddTable>(
        table: #"player's "best" scores"#, unique: [\.name], indexes: [[\.score]])
}

/// Type names that become SQL keywords: `Order` → table `order`, with a column named `group`.
private enum AnnotatedKeywords {
    struct Order: Model, Equatable {
        var id: Int64?
        var group: String
        var select: Int
    }
}

/// A single primary key that is not `id`.
private struct AnnotatedCountry: Model, Equatable {
    var code: String
    var name: String
    static let schema = Schema<AnnotatedCountry>(table: "countries", primaryKey: \.code)
}

/// A composite primary key.
private struct AnnotatedOrderLine: Model, Equatable {
    var orderID: Int
    var productID: Int
    var quantity: Int
    static let schema = Schema<AnnotatedOrderLine>(
        table: "order_lines", primaryKey: [\.orderID, \.productID])
}

/// Single and multi-column unique constraints, single and multi-column indexes.
private struct AnnotatedMember: Model, Equatable {
    var id: Int64?
    var email: String
    var club: String
    var number: Int
    var joined: Int
    static let schema = Schema<AnnotatedMember>(
        table: "members", unique: [\.email], indexes: [[\.joined], [\.club, \.number, \.joined]]
    )
    .uniqueTogether([\.club, \.number])
}

/// A `UUID` key chosen by the caller.
private struct AnnotatedDevice: Model, Equatable {
    var id: UUID
    var name: String
    var battery: Int
}

/// A `String` key chosen by the caller.
private struct AnnotatedSetting: Model, Equatable {
    var key: String
    var value: String
    static let schema = Schema<AnnotatedSetting>(table: "settings", primaryKey: \.key)
}

// MARK: - Tests

@Suite struct SchemaAnnotationsTests {
    private func indexNames(_ db: Database, _ table: String) throws -> [String] {
        try db.fetchAll(
            String.self,
            sql: "SELECT name FROM pragma_index_list(\(table)) WHERE origin = 'c' ORDER BY name")
    }

    /// Runs `body`, expecting a `PersistenceError`, and returns it.
    private func persistenceError(_ body: () throws -> Void) -> PersistenceError? {
        do {
            try body()
            Issue.record("expected a PersistenceError, nothing was thrown")
        } catch let error as PersistenceError {
            return error
        } catch {
            Issue.record("expected a PersistenceError, got \(type(of: error)): \(error)")
        }
        return nil
    }

    // MARK: Defaults

    @Test func defaultTableIsTheTypeNameWithALowercasedFirstLetterAndIDIsTheRowIDKey() throws {
        let db = try Database(.inMemory)
        var first = AnnotatedDefaultPlayer(id: nil, name: "Ann")
        var second = AnnotatedDefaultPlayer(id: nil, name: "Ben")
        try db.insert(&first)
        try db.insert(&second)
        #expect(first.id == 1)
        #expect(second.id == 2)
        let sql = try createSQL(db, "annotatedDefaultPlayer")
        #expect(sql.contains(#""id" INTEGER PRIMARY KEY"#))
        #expect(try db.fetchAll(Int64.self, sql: "SELECT rowid FROM annotatedDefaultPlayer") == [1, 2])
        #expect(try db.find(AnnotatedDefaultPlayer.self, id: 2) == second)
        // A key chosen by the caller is kept.
        var chosen = AnnotatedDefaultPlayer(id: 40, name: "Cy")
        try db.insert(&chosen)
        #expect(chosen.id == 40)
        #expect(
            try db.firstValue(String.self, sql: "SELECT name FROM annotatedDefaultPlayer WHERE id = 40")
                == "Cy")
    }

    @Test func anOptionalIntIDIsAssignedToo() throws {
        let db = try Database(.inMemory)
        var row = AnnotatedIntKeyed(id: nil, label: "one")
        try db.insert(&row)
        #expect(row.id == 1)
        #expect(try createSQL(db, "annotatedIntKeyed").contains(#""id" INTEGER PRIMARY KEY"#))
        row.label = "uno"
        try db.update(row)
        #expect(
            try db.firstValue(String.self, sql: "SELECT label FROM annotatedIntKeyed WHERE id = 1") == "uno")
    }

    @Test func aModelWithoutKeyIsInsertedAndReadButNotAddressedByKey() throws {
        let db = try Database(.inMemory)
        let event = AnnotatedKeylessEvent(message: "boot", level: 1)
        try db.insert(event)
        try db.insert(AnnotatedKeylessEvent(message: "ready", level: 2))
        #expect(try db.count(AnnotatedKeylessEvent.self) == 2)
        #expect(try db.fetchAll(AnnotatedKeylessEvent.self).map(\.message) == ["boot", "ready"])
        let sql = try createSQL(db, "annotatedKeylessEvent")
        #expect(!sql.contains("PRIMARY KEY"))

        let failures: [PersistenceError?] = [
            persistenceError { try db.update(event) },
            persistenceError { _ = try db.find(AnnotatedKeylessEvent.self, id: 1) },
            persistenceError { _ = try db.delete(event) },
            persistenceError { _ = try db.delete(AnnotatedKeylessEvent.self, id: 1) },
            persistenceError { _ = try db.exists(AnnotatedKeylessEvent.self, id: 1) },
        ]
        for error in failures {
            let error = try #require(error)
            #expect(error.message.contains("AnnotatedKeylessEvent has no primary key"))
            #expect(error.message.contains("primaryKey:"))
            #expect(error.table == "annotatedKeylessEvent")
            #expect(!error.isRowNotFound)
        }
        #expect(try db.count(AnnotatedKeylessEvent.self) == 2)
    }

    // MARK: Table names

    @Test func tableNameWithSpaceAndQuotesIsQuotedEverywhere() throws {
        let db = try Database(.inMemory)
        let table = #"player's "best" scores"#
        var ann = AnnotatedOddTable(id: nil, name: "Ann", score: 3)
        try db.insert(&ann)
        ann.score = 4
        try db.update(ann)
        #expect(try db.find(AnnotatedOddTable.self, id: ann.id!) == ann)
        #expect(try db.firstValue(Int.self, sql: "SELECT score FROM \(identifier: table)") == 4)
        #expect(try indexNames(db, table) == [#"player's "best" scores_on_score"#])
        let duplicate = #expect(throws: DatabaseError.self) {
            try db.insert(AnnotatedOddTable(id: nil, name: "Ann", score: 1))
        }
        #expect(duplicate?.resultCode == .constraintUnique)
        #expect(duplicate?.message.contains(#"player's "best" scores.name"#) == true)
        #expect(try db.delete(ann))
        #expect(try db.count(AnnotatedOddTable.self) == 0)
    }

    @Test func keywordTableAndColumnNamesWork() throws {
        let db = try Database(.inMemory)
        var order = AnnotatedKeywords.Order(id: nil, group: "a; DROP TABLE x --", select: 7)
        try db.insert(&order)
        let sql = try createSQL(db, "order")
        #expect(sql.hasPrefix(#"CREATE TABLE "order""#))
        #expect(sql.contains(#""group" TEXT NOT NULL"#))
        #expect(sql.contains(#""select" INTEGER NOT NULL"#))
        #expect(try db.find(AnnotatedKeywords.Order.self, id: order.id!) == order)
        #expect(try db.firstValue(String.self, sql: #"SELECT "group" FROM "order""#) == "a; DROP TABLE x --")
    }

    // MARK: Primary keys

    @Test func aSchemaPrimaryKeyReplacesID() throws {
        let db = try Database(.inMemory)
        try db.insert(AnnotatedCountry(code: "FR", name: "France"))
        #expect(try createSQL(db, "countries").contains(#""code" TEXT PRIMARY KEY NOT NULL"#))
        #expect(try db.find(AnnotatedCountry.self, id: "FR")?.name == "France")
        try db.update(AnnotatedCountry(code: "FR", name: "République française"))
        #expect(try db.firstValue(String.self, sql: "SELECT name FROM countries") == "République française")
        let duplicate = #expect(throws: DatabaseError.self) {
            try db.insert(AnnotatedCountry(code: "FR", name: "again"))
        }
        #expect(duplicate?.resultCode == .constraintPrimaryKey)
        #expect(duplicate?.message.contains("countries.code") == true)
    }

    @Test func compositePrimaryKeyFindsUpdatesAndDeletesByAllItsColumns() throws {
        let db = try Database(.inMemory)
        let lines = [
            AnnotatedOrderLine(orderID: 1, productID: 10, quantity: 2),
            AnnotatedOrderLine(orderID: 1, productID: 11, quantity: 5),
            AnnotatedOrderLine(orderID: 2, productID: 10, quantity: 1),
        ]
        try db.insert(contentsOf: lines)
        #expect(try createSQL(db, "order_lines").contains(#"PRIMARY KEY ("orderID", "productID")"#))
        #expect(try db.find(AnnotatedOrderLine.self, key: [1, 11]) == lines[1])
        #expect(try db.find(AnnotatedOrderLine.self, key: [2, 11]) == nil)

        try db.update(AnnotatedOrderLine(orderID: 1, productID: 10, quantity: 9))
        #expect(
            try db.fetchAll(Int.self, sql: "SELECT quantity FROM order_lines ORDER BY orderID, productID")
                == [9, 5, 1])
        var upserted = AnnotatedOrderLine(orderID: 2, productID: 10, quantity: 4)
        try db.save(&upserted)
        #expect(try db.count(AnnotatedOrderLine.self) == 3)
        #expect(
            try db.firstValue(Int.self, sql: "SELECT quantity FROM order_lines WHERE orderID = 2") == 4)

        let duplicate = #expect(throws: DatabaseError.self) { try db.insert(lines[0]) }
        #expect(duplicate?.resultCode == .constraintPrimaryKey)
        #expect(duplicate?.message.contains("order_lines.orderID, order_lines.productID") == true)

        #expect(try db.delete(AnnotatedOrderLine.self, key: [1, 10]))
        #expect(try !db.delete(AnnotatedOrderLine.self, key: [1, 10]))
        #expect(try db.delete(lines[1]))
        #expect(try db.fetchAll(AnnotatedOrderLine.self) == [upserted])

        let wrongCount = persistenceError { _ = try db.find(AnnotatedOrderLine.self, id: 2) }
        #expect(wrongCount?.message.contains("2 column(s) (orderID, productID) but 1 value(s)") == true)
        let missing = persistenceError {
            try db.update(AnnotatedOrderLine(orderID: 9, productID: 9, quantity: 1))
        }
        #expect(missing?.isRowNotFound == true)
        #expect(missing?.message.contains("no row of order_lines") == true)
    }

    @Test func uuidKeyChosenByTheCaller() throws {
        let db = try Database(.inMemory)
        let id = UUID()
        let device = AnnotatedDevice(id: id, name: "phone", battery: 80)
        try db.insert(device)
        #expect(try createSQL(db, "annotatedDevice").contains(#""id" TEXT PRIMARY KEY NOT NULL"#))
        #expect(try db.firstValue(String.self, sql: "SELECT id FROM annotatedDevice") == id.uuidString)
        #expect(try db.find(AnnotatedDevice.self, id: id) == device)
        #expect(try db.find(AnnotatedDevice.self, id: UUID()) == nil)

        try db.update(AnnotatedDevice(id: id, name: "phone", battery: 60))
        #expect(try db.firstValue(Int.self, sql: "SELECT battery FROM annotatedDevice") == 60)
        var saved = AnnotatedDevice(id: id, name: "old phone", battery: 5)
        try db.save(&saved)
        #expect(try db.count(AnnotatedDevice.self) == 1)
        #expect(
            try db.firstValue(String.self, sql: "SELECT name FROM annotatedDevice WHERE battery = 5")
                == "old phone")
        var other = AnnotatedDevice(id: UUID(), name: "tablet", battery: 100)
        try db.save(&other)
        #expect(try db.count(AnnotatedDevice.self) == 2)

        #expect(try db.delete(saved))
        #expect(try !db.delete(saved))
        #expect(try db.delete(AnnotatedDevice.self, id: other.id))
        #expect(try db.count(AnnotatedDevice.self) == 0)
    }

    @Test func stringKeyChosenByTheCaller() throws {
        let db = try Database(.inMemory)
        try db.insert(AnnotatedSetting(key: "theme", value: "dark"))
        try db.insert(AnnotatedSetting(key: "it's \"quoted\"", value: "x"))
        #expect(try db.find(AnnotatedSetting.self, id: "it's \"quoted\"")?.value == "x")
        var theme = AnnotatedSetting(key: "theme", value: "light")
        try db.save(&theme)
        #expect(
            try db.firstValue(String.self, sql: "SELECT value FROM settings WHERE key = 'theme'") == "light")
        #expect(try db.count(AnnotatedSetting.self) == 2)
        #expect(try db.exists(AnnotatedSetting.self, id: "theme"))
        #expect(try db.delete(AnnotatedSetting.self, id: "theme"))
        #expect(try !db.exists(AnnotatedSetting.self, id: "theme"))
        let duplicate = #expect(throws: DatabaseError.self) {
            try db.insert(AnnotatedSetting(key: "it's \"quoted\"", value: "y"))
        }
        #expect(duplicate?.resultCode == .constraintPrimaryKey)
    }

    // MARK: Unique constraints and indexes

    @Test func uniqueConstraintsNameTableAndColumns() throws {
        let db = try Database(.inMemory)
        try db.insert(AnnotatedMember(id: nil, email: "a@x", club: "red", number: 7, joined: 2020))
        let sql = try createSQL(db, "members")
        #expect(sql.contains(#"UNIQUE ("email")"#))
        #expect(sql.contains(#"UNIQUE ("club", "number")"#))

        let sameEmail = #expect(throws: DatabaseError.self) {
            try db.insert(AnnotatedMember(id: nil, email: "a@x", club: "blue", number: 1, joined: 2021))
        }
        #expect(sameEmail?.resultCode == .constraintUnique)
        #expect(sameEmail?.message.contains("members.email") == true)

        // The same club, or the same number, alone is fine; both together are not.
        try db.insert(AnnotatedMember(id: nil, email: "b@x", club: "red", number: 8, joined: 2021))
        try db.insert(AnnotatedMember(id: nil, email: "c@x", club: "blue", number: 7, joined: 2021))
        let samePair = #expect(throws: DatabaseError.self) {
            try db.insert(AnnotatedMember(id: nil, email: "d@x", club: "red", number: 7, joined: 2022))
        }
        #expect(samePair?.resultCode == .constraintUnique)
        #expect(samePair?.message.contains("members.club, members.number") == true)
        #expect(try db.count(AnnotatedMember.self) == 3)
    }

    @Test func indexesHaveStableNamesAndColumnsInOrder() throws {
        let db = try Database(.inMemory)
        try db.migrate(AnnotatedMember.self)
        #expect(try indexNames(db, "members") == ["members_on_club_number_joined", "members_on_joined"])
        #expect(try indexColumns(db, "members_on_club_number_joined") == ["club", "number", "joined"])
        #expect(try indexColumns(db, "members_on_joined") == ["joined"])
        let unique = try db.fetchAll(
            String.self,
            sql: "SELECT name FROM pragma_index_list('members') WHERE \"unique\" = 1 AND origin = 'c'")
        #expect(unique.isEmpty)  // UNIQUE constraints live in the table, not in created indexes
        let indexSQL = try #require(
            try db.fetchOne(
                String.self, sql: "SELECT sql FROM sqlite_master WHERE name = 'members_on_club_number_joined'"
            ))
        #expect(
            indexSQL
                == #"CREATE INDEX "members_on_club_number_joined" ON "members" ("club", "number", "joined")"#)
    }
}
