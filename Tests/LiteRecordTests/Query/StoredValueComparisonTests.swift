import Foundation
import LiteRecord
import Testing

// Values compare as what they are, not as the form another tool stored them in (issue #14):
// UUIDs in lower case or as 16 bytes, dates in other text forms or as numbers, decimals by value,
// members of JSON columns in the form the JSON holds, JSON paths by the nested type's CodingKeys.

private struct Badge: Model, Equatable {
    var id: UUID
    var label: String
}

private struct Pairing: Model, Equatable {
    var owner: UUID
    var slot: Int
    var note: String
    static let schema = Schema<Pairing>(table: "pairings", primaryKey: [\.owner, \.slot])
}

private struct Visit: Model, Equatable {
    var id: Int64?
    var at: Date
    var left: Date?
    var amount: Decimal
}

private struct Timed: Model, Equatable {
    var id: Int64?
    var at: Date
    static let schema = Schema<Timed>(table: "timed", indexes: [[\.at]])
}

/// Stored as INTEGER in a column of its own; inside JSON, its `Codable` form (an object).
private struct Cents: Codable, Equatable, DatabaseValueConvertible {
    var cents: Int64
    static var databaseColumnType: DatabaseColumnType { .integer }
    func databaseValue() throws -> DatabaseValue { .integer(cents) }
    static func fromDatabaseValue(_ value: DatabaseValue) throws -> Cents {
        guard case .integer(let cents) = value else {
            throw ValueConversionError(value: value, to: Cents.self)
        }
        return Cents(cents: cents)
    }
}

private struct Meta: Codable, Equatable {
    var cost = Cents(cents: 5)
    var price: Decimal
    var blob: Data
    var seen: Date
    var tag: UUID
}

private struct Listing: Model, Equatable {
    var id: Int64?
    var meta: Meta
}

private struct NWOrderDates: Model, Equatable {
    var orderID: Int
    var orderDate: Date?
    static let schema = Schema<NWOrderDates>(table: "Orders", primaryKey: \.orderID).columnNaming(.pascalCase)
}

@Suite struct StoredValueComparisonTests {
    private let uuid = UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!

    /// A table holding the UUID in lower case and another as 16 bytes, written with raw SQL.
    private func badges() throws -> (Database, lower: UUID, blob: UUID) {
        let db = try Database(.inMemory)
        try db.migrate(Badge.self)
        let blob = UUID()
        try db.execute(sql: "INSERT INTO badge (id, label) VALUES (\(uuid.uuidString.lowercased()), 'lower')")
        let bytes = withUnsafeBytes(of: blob.uuid) { Data($0) }
        try db.execute(sql: "INSERT INTO badge (id, label) VALUES (\(bytes), 'blob')")
        return (db, uuid, blob)
    }

    @Test func uuidKeysStoredInOtherFormsAreFoundUpdatedAndDeleted() throws {
        let (db, lower, blob) = try badges()
        #expect(try db.find(Badge.self, id: lower) == Badge(id: lower, label: "lower"))
        #expect(try db.find(Badge.self, id: blob) == Badge(id: blob, label: "blob"))
        #expect(try db.exists(Badge.self, id: lower))
        #expect(try db.exists(Badge.self, id: blob))
        try db.update(Badge(id: lower, label: "lower, updated"))
        try db.update(Badge(id: blob, label: "blob, updated"))
        #expect(
            try db.fetchAll(String.self, sql: "SELECT label FROM badge ORDER BY label") == [
                "blob, updated", "lower, updated",
            ])
        // The stored spelling is left as it was: other tools keep finding their rows.
        #expect(
            try db.fetchOne(String.self, sql: "SELECT typeof(id) FROM badge WHERE label LIKE 'blob%'")
                == "blob")
        #expect(try db.delete(Badge.self, id: lower))
        #expect(try db.delete(Badge(id: blob, label: "")))
        #expect(try db.count(Badge.self) == 0)
    }

    @Test func savingAModelWhoseUUIDKeyIsStoredInAnotherFormUpdatesIt() throws {
        let (db, lower, blob) = try badges()
        var first = Badge(id: lower, label: "saved")
        try db.save(&first)
        var second = Badge(id: blob, label: "saved too")
        try db.save(&second)
        #expect(try db.count(Badge.self) == 2)
        #expect(try db.fetchAll(Badge.self).map(\.label).sorted() == ["saved", "saved too"])
        var fresh = Badge(id: UUID(), label: "new")
        try db.save(&fresh)
        #expect(try db.count(Badge.self) == 3)
        #expect(try db.find(Badge.self, id: fresh.id) == fresh)
    }

    @Test func uuidPredicatesMatchEverySpelling() throws {
        let (db, lower, blob) = try badges()
        let all = db.query(Badge.self)
        #expect(try all.where { $0.id == lower }.fetchAll().map(\.label) == ["lower"])
        #expect(try all.where { $0.id == blob }.fetchAll().map(\.label) == ["blob"])
        #expect(try all.where { $0.id != lower }.fetchAll().map(\.label) == ["blob"])
        #expect(try all.where { $0.id.in([lower, blob]) }.count() == 2)
        // Every spelling is an IN list, which the primary key's index serves.
        let sql = all.where { $0.id == lower }.sqlDescription
        #expect(sql.hasPrefix(#"SELECT * FROM "badge" WHERE ("id" IN (?,?,?))"#))
        let spellings = [uuid.uuidString, uuid.uuidString.lowercased()]
        let plan = try db.fetchAll(
            Row.self,
            sql:
                #"EXPLAIN QUERY PLAN SELECT * FROM "badge" WHERE ("id" IN (\#(spellings[0]), \#(spellings[1]), x'00'))"#
        )
        #expect(
            try plan.map { try $0.value(String.self, named: "detail") }.contains {
                $0.contains("USING INDEX")
            })
    }

    @Test func compositeKeysWithAUUIDMatchEverySpelling() throws {
        let db = try Database(.inMemory)
        try db.migrate(Pairing.self)
        try db.execute(
            sql: "INSERT INTO pairings (owner, slot, note) VALUES (\(uuid.uuidString.lowercased()), 1, 'a')")
        #expect(try db.find(Pairing.self, key: [uuid, 1]) == Pairing(owner: uuid, slot: 1, note: "a"))
        try db.update(Pairing(owner: uuid, slot: 1, note: "b"))
        var saved = Pairing(owner: uuid, slot: 1, note: "c")
        try db.save(&saved)
        #expect(try db.fetchAll(Pairing.self) == [saved])
        #expect(try db.delete(Pairing.self, key: [uuid, 1]))
        #expect(try db.count(Pairing.self) == 0)
    }

    @Test func northwindOrderDatesCompareAsInstants() throws {
        let db = try NorthwindFixture.open()
        let order = try #require(try db.find(NWOrderDates.self, id: 10248))
        let date = try #require(order.orderDate)
        let same = try db.query(NWOrderDates.self).where { $0.orderDate == date }.fetchAll()
        #expect(same.map(\.orderID).contains(10248))
        let all = try db.fetchAll(NWOrderDates.self)
        #expect(same.count == all.filter { $0.orderDate == date }.count)
        let others = try db.query(NWOrderDates.self).where { $0.orderDate != date }.count()
        #expect(others == all.filter { $0.orderDate != date }.count)
        #expect(try db.query(NWOrderDates.self).where { $0.orderDate.in([date, nil]) }.count() == same.count)
    }

    @Test func datesInOtherFormsCompareSortAndAggregateAsInstants() throws {
        let db = try Database(.inMemory)
        try db.migrate(Visit.self)
        // The same instant, 1996-07-04 00:00:00 UTC, five ways; and a later one.
        for text in [
            "1996-07-04 00:00:00.000", "1996-07-04T02:00:00+02:00", "1996-07-04", "1996-07-03T22:00:00-0200",
        ] {
            try db.execute(sql: "INSERT INTO visit (at, amount) VALUES (\(text), '1')")
        }
        try db.execute(sql: "INSERT INTO visit (at, amount) VALUES (\(Int64(836_438_400)), '1')")
        try db.execute(sql: "INSERT INTO visit (at, amount) VALUES ('1996-07-04T00:00:01Z', '1')")
        let instant = Date(timeIntervalSince1970: 836_438_400)
        let all = db.query(Visit.self)
        #expect(try all.where { $0.at == instant }.count() == 5)
        #expect(try all.where { $0.at > instant }.count() == 1)
        #expect(try all.where { $0.at <= instant }.count() == 5)
        #expect(try all.order { $0.at.descending }.fetchAll().first?.at == instant + 1)
        #expect(try all.max { $0.at } == instant + 1)
        #expect(try all.min { $0.at } == instant)
        struct Span: Decodable, Equatable {
            var first: Date?
            var last: Date?
        }
        let span = try all.select(Span.self) { [$0.at.min.as("first"), $0.at.max.as("last")] }.fetchOne()
        #expect(span == Span(first: instant, last: instant + 1))
    }

    @Test func storedTextComparisonsOfDatesKeepTheIndex() throws {
        let db = try Database(.inMemory)
        let day = Date(timeIntervalSince1970: 86_400 * 10)
        try db.insert(contentsOf: (0..<20).map { Timed(id: nil, at: day + Double($0) * 3_600) })
        let byInstant = db.query(Timed.self).where { $0.at >= day + 7_200 }
        #expect(byInstant.sqlDescription.contains(#"literecord_instant("at", ?) >= ?"#))
        let byText = db.query(Timed.self).where(sql: "\"at\" >= \(day + 7_200)")
        #expect(try byText.fetchAll() == byInstant.fetchAll())
        let plan = try db.fetchAll(
            Row.self, sql: "EXPLAIN QUERY PLAN SELECT * FROM timed WHERE (\"at\" >= \(day))")
        #expect(
            try plan.map { try $0.value(String.self, named: "detail") }.contains {
                $0.contains("INDEX")
            })
    }

    @Test func changingTheDateStorageOfAFileKeepsComparisonsRight() throws {
        try withTemporaryDirectory { directory in
            let path = directory.file("dates.sqlite")
            var early = Visit(id: nil, at: Date(timeIntervalSince1970: 1_000), left: nil, amount: 1)
            do {
                let db = try Database(.file(path))
                try db.insert(&early)
            }
            var configuration = Configuration()
            configuration.dateStorage = .unixMilliseconds
            let db = try Database(.file(path), configuration: configuration)
            var late = Visit(id: nil, at: Date(timeIntervalSince1970: 2_000), left: nil, amount: 2)
            try db.insert(&late)
            let all = db.query(Visit.self)
            let before = try all.where { $0.at < late.at }.fetchAll()
            #expect(before == [early])
            let atEarly = try all.where { $0.at == early.at }.fetchAll()
            #expect(atEarly == [early])
            let ordered = try all.order { $0.at.ascending }.fetchAll()
            #expect(ordered == [early, late])
        }
    }

    @Test func decimalsCompareAndSortAsNumbersExactly() throws {
        let db = try Database(.inMemory)
        let amounts: [Decimal] = [
            Decimal(string: "9.5")!, 10, Decimal(string: "100.25")!, -3,
            Decimal(string: "0.30000000000000000000000000000000000001")!,
            Decimal(string: "0.3")!,
        ]
        try db.insert(contentsOf: amounts.map { Visit(id: nil, at: Date(), left: nil, amount: $0) })
        let all = db.query(Visit.self)
        #expect(try all.where { $0.amount < 10 }.fetchAll().map(\.amount) == amounts.filter { $0 < 10 })
        #expect(try all.order { $0.amount.ascending }.fetchAll().map(\.amount) == amounts.sorted())
        #expect(
            try all.where { $0.amount > Decimal(string: "0.3")! }.count()
                == amounts.filter { $0 > Decimal(string: "0.3")! }.count)
        #expect(try all.max { $0.amount } == Decimal(string: "100.25")!)
        #expect(try all.min { $0.amount } == -3)
        // `10.0` written by another tool is the same value as 10.
        try db.execute(sql: "UPDATE visit SET amount = '10.0' WHERE amount = '10'")
        #expect(try all.where { $0.amount == 10 }.count() == 1)
    }

    @Test func jsonMembersCompareInTheFormTheJSONHolds() throws {
        let db = try Database(.inMemory)
        let seen = Date(timeIntervalSince1970: 1_700_000_000.5)
        let rows = [
            Listing(id: 1, meta: Meta(price: 75, blob: Data([1, 2, 3]), seen: seen, tag: uuid)),
            Listing(
                id: 2,
                meta: Meta(price: Decimal(string: "20.5")!, blob: Data([9]), seen: seen + 60, tag: UUID())),
        ]
        try db.insert(contentsOf: rows)
        let all = db.query(Listing.self)
        #expect(try all.where { $0.meta.price > Decimal(50) }.fetchAll() == [rows[0]])
        #expect(try all.where { $0.meta.price == Decimal(string: "20.5")! }.fetchAll() == [rows[1]])
        #expect(try all.where { $0.meta.blob == Data([1, 2, 3]) }.fetchAll() == [rows[0]])
        #expect(try all.where { $0.meta.seen == seen }.fetchAll() == [rows[0]])
        #expect(try all.where { $0.meta.seen > seen }.fetchAll() == [rows[1]])
        #expect(try all.where { $0.meta.tag == uuid }.fetchAll() == [rows[0]])
        #expect(try all.where { $0.meta.price.in([Decimal(75), 1]) }.fetchAll() == [rows[0]])
        #expect(try all.where { $0.meta.cost == Cents(cents: 5) }.count() == 2)
    }
}

/// Northwind, loaded in memory from the shared script (fails, never skips, when it is missing).
enum NorthwindFixture {
    static func open() throws -> Database {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<4 { url.deleteLastPathComponent() }
        let path = url.appendingPathComponent("../shared/datasets/northwind/northwind.sql").standardized.path
        try #require(
            FileManager.default.fileExists(atPath: path), "the Northwind script is missing at \(path)")
        var configuration = Configuration()
        configuration.foreignKeys = false
        let db = try Database(.inMemory, configuration: configuration)
        try db.execute(sql: SQL(try String(contentsOfFile: path, encoding: .utf8)))
        return db
    }
}
