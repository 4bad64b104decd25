import Foundation
import LiteRecord
import Testing

private struct Parcel: Model, Equatable {
    var id: Int64?
    var label: String
    var weight: Int?
    static let schema = Schema<Parcel>(table: "parcels")
}

/// SQLite's legacy "double-quoted string" rule reads a quoted name that is not a column as a
/// text literal. Model queries quote every column name, so a column missing from the table
/// (a model newer than the file, read where the table cannot be grown) gave wrong rows.
@Suite struct DoubleQuotedIdentifierTests {
    @Test func aModelQueryOnAMissingColumnFailsInsteadOfComparingText() throws {
        try withTemporaryDirectory { directory in
            let path = directory.file("parcels.sqlite")
            let writer = try Database(path: path)
            try writer.execute(
                sql: """
                    CREATE TABLE parcels(id INTEGER PRIMARY KEY, label TEXT NOT NULL);
                    INSERT INTO parcels(label) VALUES ('a'), ('b');
                    """)
            var configuration = Configuration()
            configuration.readOnly = true
            let reader = try Database(path: path, configuration: configuration)
            // Before: `"weight" > 1` compared the text 'weight' with 1 and matched both rows.
            let error = #expect(throws: DatabaseError.self) {
                try reader.query(Parcel.self).where { $0.weight > 1 }.fetchAll()
            }
            #expect(error?.resultCode == .error)
            #expect(error?.message.contains("no such column: weight") == true)
        }
    }

    @Test func rawSQLWithADoubleQuotedStringIsAnErrorNotAText() throws {
        let db = try Database(.inMemory)
        try db.execute(sql: "CREATE TABLE t(name TEXT)")
        let error = #expect(throws: DatabaseError.self) {
            try db.execute(sql: "INSERT INTO t(name) VALUES (\"oops\")")
        }
        #expect(error?.message.contains("no such column: oops") == true)
        #expect(try db.fetchOne(Int.self, sql: "SELECT count(*) FROM t") == 0)
    }

    @Test func schemasWrittenWithDoubleQuotedStringsStillOpen() throws {
        try withTemporaryDirectory { directory in
            let path = directory.file("legacy.sqlite")
            // Another tool's DDL with a double-quoted default: the file must stay usable.
            let db = try Database(path: path)
            try db.execute(sql: "CREATE TABLE legacy(id INTEGER PRIMARY KEY, kind TEXT DEFAULT \"plain\")")
            try db.execute(sql: "INSERT INTO legacy(id) VALUES (1)")
            let reopened = try Database(path: path)
            #expect(try reopened.fetchOne(String.self, sql: "SELECT kind FROM legacy") == "plain")
        }
    }
}
