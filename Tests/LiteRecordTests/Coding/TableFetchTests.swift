import Foundation
import LiteRecord
import LiteRecordTestSupport
import Testing

/// `fetchAll(_:fromTable:)`: a plain `Decodable` read from a table it names.
@Suite("Fetching a table into a Decodable type")
struct TableFetchTests {
    struct Summary: Decodable, Equatable, Sendable {
        var id: Int64
        var total: Double
        var note: String?
    }

    static func ordersDatabase() throws -> Database {
        let db = try Database(.inMemory)
        try db.execute(
            sql: SQL(
                verbatim: #"""
                    CREATE TABLE "odd ""orders""" (ID INTEGER PRIMARY KEY, Total REAL NOT NULL, customer TEXT);
                    INSERT INTO "odd ""orders""" (Total, customer) VALUES (9.5, 'ann'), (20, 'bo');
                    CREATE VIEW big AS SELECT * FROM "odd ""orders""" WHERE Total > 10;
                    """#))
        return db
    }

    @Test func readsTheColumnsTheKeysNameWhateverTheirCase() throws {
        let db = try Self.ordersDatabase()
        let statements = Locked<[String]>([])
        db.trace { sql in statements.withLock { $0.append(sql) } }
        let summaries = try db.fetchAll(Summary.self, fromTable: #"odd "orders""#)
        db.trace(nil)
        #expect(summaries == [Summary(id: 1, total: 9.5, note: nil), Summary(id: 2, total: 20, note: nil)])
        #expect(statements.withLock { $0 }.last == #"SELECT "ID", "Total" FROM "odd ""orders""""#)
        #expect(try db.fetchAll(Summary.self, fromTable: "big") == [Summary(id: 2, total: 20, note: nil)])
    }

    struct NeedsCustomer: Decodable, Sendable {
        var id: Int64
        var customerName: String
    }

    @Test func aNonOptionalPropertyWithoutAColumnIsASchemaErrorNamingIt() throws {
        let db = try Self.ordersDatabase()
        let error = #expect(throws: SchemaError.self) {
            try db.fetchAll(NeedsCustomer.self, fromTable: #"odd "orders""#)
        }
        #expect(error?.message.contains("NeedsCustomer.customerName") == true)
        #expect(error?.message.contains("ID, Total, customer") == true)
    }

    @Test func aMissingTableIsADatabaseError() async throws {
        let db = try Self.ordersDatabase()
        let error = await #expect(throws: DatabaseError.self) {
            try await db.fetchAll(Summary.self, fromTable: "orderz")
        }
        #expect(error?.message == "no such table: orderz")
        #expect(error?.resultCode == .error)
    }
}
