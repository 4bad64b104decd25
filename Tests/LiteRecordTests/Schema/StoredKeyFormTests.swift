import Foundation
import LiteRecord
import LiteRecordTestSupport
import Testing

// Date and decimal keys another tool stored in another form than LiteRecord writes ("2024-03-05T12:00:00Z",
// a unix number, "1.50", the REAL 2.0): the operations by primary key find them by value, as
// `where` does, `save` updates them instead of adding a second row for the same value, and a
// child LiteRecord writes under a declared `REFERENCES` takes the parent's form, so SQLite's
// foreign key holds. Before, `find` returned nil, `update` said "no row", `save` duplicated
// the row and the child insert failed with SQLITE_CONSTRAINT_FOREIGNKEY.

private struct SKEvent: Model, Equatable {
    var day: Date
    var title: String
    static let schema = Schema<SKEvent>(table: "sk_events", primaryKey: \.day)
}

private struct SKTicket: Model, Equatable {
    var id: Int64?
    var eventDay: Date?
    var name: String
    static let schema = Schema<SKTicket>(table: "sk_tickets").foreignKey(\.eventDay, references: SKEvent.self)
}

private struct SKPrice: Model, Equatable {
    var code: Decimal
    var label: String
    static let schema = Schema<SKPrice>(table: "sk_prices", primaryKey: \.code)
}

private struct SKOrder: Model, Equatable {
    var id: Int64?
    var priceCode: Decimal?
    var name: String
    static let schema = Schema<SKOrder>(table: "sk_orders").foreignKey(\.priceCode, references: SKPrice.self)
}

/// A composite key of a date and a decimal.
private struct SKSlot: Model, Equatable {
    var day: Date
    var price: Decimal
    var label: String
    static let schema = Schema<SKSlot>(table: "sk_slots", primaryKey: [\.day, \.price])
}

private struct SKOwner: Model, Equatable {
    var id: UUID
    var name: String
    static let schema = Schema<SKOwner>(table: "sk_owners")
}

/// Its primary key is made of two foreign keys, each stored by the parents in another form.
private struct SKSeat: Model, Equatable {
    var ownerId: UUID
    var eventDay: Date
    var row: Int
    static let schema = Schema<SKSeat>(table: "sk_seats", primaryKey: [\.ownerId, \.eventDay])
        .foreignKey(\.ownerId, references: SKOwner.self)
        .foreignKey(\.eventDay, references: SKEvent.self)
}

@Suite struct StoredKeyFormTests {
    // 2024-03-05 12:00:00 UTC and 2024-03-06 00:00:00 UTC.
    private static let noon = Date(timeIntervalSince1970: 1_709_640_000)
    private static let midnight = Date(timeIntervalSince1970: 1_709_683_200)
    private static let oneFifty = Decimal(string: "1.5")!

    private func makeFile(in directory: TemporaryDirectory) throws -> String {
        let path = directory.file("stored-key-forms.sqlite")
        try SQLiteShell.write(
            path,
            """
            CREATE TABLE sk_events (day PRIMARY KEY, title TEXT NOT NULL);
            CREATE TABLE sk_tickets (id INTEGER PRIMARY KEY, eventDay REFERENCES sk_events (day), name TEXT NOT NULL);
            CREATE TABLE sk_prices (code PRIMARY KEY, label TEXT NOT NULL);
            CREATE TABLE sk_orders (id INTEGER PRIMARY KEY, priceCode REFERENCES sk_prices (code), name TEXT NOT NULL);
            CREATE TABLE sk_slots (day, price, label TEXT NOT NULL, PRIMARY KEY (day, price));
            INSERT INTO sk_events VALUES ('2024-03-05T12:00:00Z', 'noon'), (1709683200, 'midnight');
            INSERT INTO sk_prices VALUES ('1.50', 'one fifty'), (2.0, 'two');
            INSERT INTO sk_slots VALUES ('2024-03-05T12:00:00.000', '1.50', 'noon-150');
            """)
        return path
    }

    @Test func findAndExistsMatchKeysStoredInAnotherForm() throws {
        try withTemporaryDirectory { directory in
            let db = try Database(.file(try makeFile(in: directory)))
            #expect(try db.find(SKEvent.self, id: Self.noon)?.title == "noon")
            #expect(try db.find(SKEvent.self, id: Self.midnight)?.title == "midnight")
            #expect(try db.find(SKPrice.self, id: Self.oneFifty)?.label == "one fifty")
            #expect(try db.find(SKPrice.self, id: Decimal(2))?.label == "two")
            #expect(try db.find(SKSlot.self, key: [Self.noon, Self.oneFifty])?.label == "noon-150")
            #expect(try db.exists(SKEvent.self, id: Self.noon))
            #expect(try db.exists(SKPrice.self, id: Decimal(2)))
            // A value no row holds in any form is still not found.
            #expect(try db.find(SKEvent.self, id: Self.noon.addingTimeInterval(1)) == nil)
            #expect(try !db.exists(SKPrice.self, id: Decimal(string: "1.51")!))
            #expect(try db.find(SKSlot.self, key: [Self.noon, Decimal(2)]) == nil)
        }
    }

    @Test func updateAndSaveChangeTheRowInItsOwnForm() throws {
        try withTemporaryDirectory { directory in
            let path = try makeFile(in: directory)
            let db = try Database(.file(path))
            try db.update(SKEvent(day: Self.noon, title: "Noon!"))
            try db.update(SKPrice(code: Self.oneFifty, label: "1.5 exactly"), columns: [\.label])
            var slot = SKSlot(day: Self.noon, price: Self.oneFifty, label: "slot saved")
            try db.save(&slot)
            var event = SKEvent(day: Self.midnight, title: "Midnight saved")
            try db.save(&event)
            // The rows keep the key as the other tool stored it; no second row appeared.
            let events = try SQLiteShell.output(
                path, "SELECT typeof(day), day, title FROM sk_events ORDER BY title;")
            #expect(events == "integer|1709683200|Midnight saved\ntext|2024-03-05T12:00:00Z|Noon!\n")
            let prices = try SQLiteShell.output(path, "SELECT code, label FROM sk_prices ORDER BY label;")
            #expect(prices == "1.50|1.5 exactly\n2.0|two\n")
            let slots = try SQLiteShell.output(path, "SELECT day, price, label FROM sk_slots;")
            #expect(slots == "2024-03-05T12:00:00.000|1.50|slot saved\n")
            // A key no row holds is still "not found" for update, and a new row for save.
            let missing = try #require(throws: PersistenceError.self) {
                try db.update(SKPrice(code: Decimal(3), label: "three"))
            }
            #expect(missing.isRowNotFound)
            var three = SKPrice(code: Decimal(3), label: "three")
            try db.save(&three)
            #expect(try db.fetchAll(SKPrice.self).count == 3)
        }
    }

    @Test func deleteRemovesTheRowStoredInAnotherForm() throws {
        try withTemporaryDirectory { directory in
            let path = try makeFile(in: directory)
            let db = try Database(.file(path))
            #expect(try db.delete(SKEvent.self, id: Self.midnight))
            #expect(try db.delete(SKPrice(code: Self.oneFifty, label: "")))
            #expect(try db.delete(SKSlot.self, key: [Self.noon, Self.oneFifty]))
            #expect(try !db.delete(SKPrice.self, id: Self.oneFifty))
            let left = try SQLiteShell.output(
                path,
                "SELECT (SELECT group_concat(title) FROM sk_events), (SELECT group_concat(label) FROM sk_prices), "
                    + "(SELECT count(*) FROM sk_slots);")
            #expect(left == "noon|two|0\n")
        }
    }

    /// Children LiteRecord writes take the parent's stored form: SQLite's own check passes and
    /// the child's key is the parent's value, byte for byte.
    @Test func childrenTakeTheParentsFormSoForeignKeysHold() throws {
        try withTemporaryDirectory { directory in
            let path = try makeFile(in: directory)
            let db = try Database(.file(path))
            var ticket = SKTicket(id: nil, eventDay: Self.noon, name: "t1")
            try db.insert(&ticket)
            var order = SKOrder(id: nil, priceCode: Self.oneFifty, name: "o1")
            try db.insert(&order)
            var other = SKOrder(id: nil, priceCode: nil, name: "o2")
            try db.insert(&other)
            other.priceCode = Decimal(2)
            try db.update(other)
            var moved = SKTicket(id: nil, eventDay: nil, name: "t2")
            try db.insert(&moved)
            moved.eventDay = Self.midnight
            try db.update(moved, columns: [\.eventDay])
            var saved = SKOrder(id: nil, priceCode: Decimal(2), name: "o3")
            try db.save(&saved)

            #expect(try db.fetchAll(Row.self, sql: "PRAGMA foreign_key_check").isEmpty)
            let tickets = try SQLiteShell.output(
                path, "SELECT name, typeof(eventDay), eventDay FROM sk_tickets ORDER BY name;")
            #expect(tickets == "t1|text|2024-03-05T12:00:00Z\nt2|integer|1709683200\n")
            let orders = try SQLiteShell.output(
                path, "SELECT name, typeof(priceCode), priceCode FROM sk_orders ORDER BY name;")
            #expect(orders == "o1|text|1.50\no2|real|2.0\no3|real|2.0\n")
            // Read back, the values are the ones written, and the relations see them.
            #expect(try db.fetchAll(SKTicket.self).map(\.eventDay) == [Self.noon, Self.midnight])
            let byPrice = try db.query(SKPrice.self).including(all: SKOrder.self).fetchAll()
            let orderNames = byPrice.map { $0.1.map(\.name).sorted() }
            #expect(orderNames == [["o1"], ["o2", "o3"]])
        }
    }

    /// Foreign keys that are the child's primary key: inserted in the parents' forms, then found,
    /// updated, saved and deleted by the key LiteRecord writes.
    @Test func aPrimaryKeyMadeOfForeignKeysKeepsTheParentsForms() throws {
        try withTemporaryDirectory { directory in
            let path = try makeFile(in: directory)
            let owner = UUID()
            try SQLiteShell.write(
                path,
                """
                CREATE TABLE sk_owners (id PRIMARY KEY, name TEXT NOT NULL);
                CREATE TABLE sk_seats (ownerId REFERENCES sk_owners (id), eventDay REFERENCES sk_events (day),
                    row INTEGER NOT NULL, PRIMARY KEY (ownerId, eventDay));
                INSERT INTO sk_owners VALUES ('\(owner.uuidString.lowercased())', 'Ann');
                """)
            let db = try Database(.file(path))
            var seat = SKSeat(ownerId: owner, eventDay: Self.noon, row: 1)
            try db.insert(&seat)
            seat.row = 2
            try db.update(seat)
            #expect(try db.find(SKSeat.self, key: [owner, Self.noon])?.row == 2)
            seat.row = 3
            try db.save(&seat)
            var other = SKSeat(ownerId: owner, eventDay: Self.midnight, row: 9)
            try db.save(&other)
            #expect(try db.fetchAll(Row.self, sql: "PRAGMA foreign_key_check").isEmpty)
            let seats = try SQLiteShell.output(
                path, "SELECT ownerId, eventDay, row FROM sk_seats ORDER BY row;")
            let lower = owner.uuidString.lowercased()
            #expect(seats == "\(lower)|2024-03-05T12:00:00Z|3\n\(lower)|1709683200|9\n")
            #expect(try db.delete(SKSeat.self, key: [owner, Self.noon]))
            #expect(try db.fetchAll(SKSeat.self) == [other])
        }
    }

    @Test func aChildWhoseParentIsMissingInEveryFormIsRefusedWithTheReason() throws {
        try withTemporaryDirectory { directory in
            let path = try makeFile(in: directory)
            let db = try Database(.file(path))
            var order = SKOrder(id: nil, priceCode: Decimal(string: "1.55")!, name: "orphan")
            let error = try #require(throws: DatabaseError.self) { try db.insert(&order) }
            #expect(error.resultCode == .constraintForeignKey)
            #expect(
                error.message.contains(
                    "no referenced row for priceCode = '1.55' (no sk_prices.code in any form)"))
            #expect(try db.fetchAll(SKOrder.self).isEmpty)
        }
    }
}
