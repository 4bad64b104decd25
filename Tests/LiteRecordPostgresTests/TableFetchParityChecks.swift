import Foundation
import LiteRecord
import Testing

// `fetchAll(_:fromTable:)` on both backends: a plain `Decodable` read from a table (or view)
// another tool created, its keys matched to the columns ignoring case, the other columns unread.

struct TableSummary: Decodable, Equatable, Sendable {
    var id: Int64
    var total: Double
    var note: String?
}

struct TableNeedsCustomer: Decodable {
    var id: Int64
    var customerName: String
}

enum TableFetchParityChecks {
    static let table = #"odd "orders""#

    static func fetchFromATable(_ db: some ParityDatabase, _ backend: ParityBackend) throws {
        try db.execute(
            sql:
                SQL(
                    verbatim: #"""
                        CREATE TABLE "odd ""orders""" ("ID" integer PRIMARY KEY, "Total" double precision NOT NULL, customer text);
                        INSERT INTO "odd ""orders""" ("ID", "Total", customer) VALUES (1, 9.5, 'ann'), (2, 20, 'bo');
                        CREATE VIEW big AS SELECT * FROM "odd ""orders""" WHERE "Total" > 10
                        """#))
        let summaries = try db.fetchAll(TableSummary.self, fromTable: table).sorted { $0.id < $1.id }
        #expect(
            summaries == [
                TableSummary(id: 1, total: 9.5, note: nil), TableSummary(id: 2, total: 20, note: nil),
            ],
            "\(backend.name)")
        let big = try db.fetchAll(TableSummary.self, fromTable: "big")
        #expect(big == [TableSummary(id: 2, total: 20, note: nil)], "\(backend.name): a view")

        let missingColumn = #expect(throws: SchemaError.self, "\(backend.name)") {
            try db.fetchAll(TableNeedsCustomer.self, fromTable: table)
        }
        #expect(missingColumn?.message.contains("TableNeedsCustomer.customerName") == true, "\(backend.name)")
        #expect(missingColumn?.message.contains("(columns: ID, Total, customer)") == true, "\(backend.name)")

        // A dropped column is no longer listed (PostgreSQL keeps it in its catalog, marked).
        try db.execute(
            sql:
                SQL(verbatim: #"DROP VIEW big; ALTER TABLE "odd ""orders""" DROP COLUMN customer"#))
        let afterDrop = #expect(throws: SchemaError.self, "\(backend.name)") {
            try db.fetchAll(TableNeedsCustomer.self, fromTable: table)
        }
        #expect(afterDrop?.message.contains("(columns: ID, Total)") == true, "\(backend.name)")

        let missingTable = #expect(throws: DatabaseError.self, "\(backend.name)") {
            try db.fetchAll(TableSummary.self, fromTable: "orderz")
        }
        #expect(missingTable?.message == "no such table: orderz", "\(backend.name)")
        #expect(missingTable?.resultCode == .error, "\(backend.name)")
        // Case counts in a quoted name on PostgreSQL, not on SQLite: neither finds a misspelling.
        #expect(throws: DatabaseError.self, "\(backend.name)") {
            try db.fetchAll(TableSummary.self, fromTable: "odd orders")
        }
    }
}
