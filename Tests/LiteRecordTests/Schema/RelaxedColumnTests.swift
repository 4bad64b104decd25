import Foundation
import LiteRecord
import Testing

// Each type maps onto "rc_items": the same table in successive app versions.

private struct RCItemV1: Model, Equatable {
    var id: Int64?
    var code: String
    var score: Int
    var note: String
    var weight: Double

    static let schema = Schema<RCItemV1>(table: "rc_items", unique: [\.code], indexes: [[\.score]])
}

/// V2 removes `weight` (non-optional, no default) and makes `note` optional.
private struct RCItemV2: Model, Equatable {
    var id: Int64?
    var code: String
    var score: Int
    var note: String?

    static let schema = Schema<RCItemV2>(table: "rc_items", unique: [\.code], indexes: [[\.score]])
}

/// A table with a foreign key into rc_items.
private struct RCChild: Model, Equatable {
    var id: Int64?
    var itemID: Int64
    static let schema = Schema<RCChild>(table: "rc_children")
}

/// The schema the other tables and objects around rc_items are created with, by hand, the way
/// an app's own migration would: a foreign key into it and out of it, a trigger, a view.
private let surroundings = """
    CREATE TABLE rc_groups (id INTEGER PRIMARY KEY, name TEXT NOT NULL);
    INSERT INTO rc_groups VALUES (1, 'g');
    ALTER TABLE rc_items ADD COLUMN groupID INTEGER REFERENCES rc_groups(id);
    UPDATE rc_items SET groupID = 1;
    CREATE TABLE rc_children (id INTEGER PRIMARY KEY,
        itemID INTEGER NOT NULL REFERENCES rc_items(id) ON DELETE CASCADE);
    CREATE TABLE rc_log (itemID INTEGER, event TEXT);
    CREATE TRIGGER rc_items_logged AFTER INSERT ON rc_items
        BEGIN INSERT INTO rc_log VALUES (new.id, 'insert'); END;
    CREATE VIEW rc_scores AS SELECT code, score FROM rc_items;
    """

@Suite struct RelaxedColumnTests {
    /// Version 1 with rows and everything around it; returns the rows.
    private func seedVersion1(_ db: Database) throws -> [RCItemV1] {
        let items = try db.insert(
            contentsOf: (0..<5).map {
                RCItemV1(id: nil, code: "c\($0)", score: $0, note: "n\($0)", weight: 1.5)
            })
        try db.execute(sql: SQL(surroundings))
        for item in items { try db.insert(RCChild(id: nil, itemID: item.id ?? 0)) }
        return items
    }

    private func schemaObjects(_ db: Database) throws -> [String] {
        try db.fetchAll(
            String.self,
            sql: "SELECT type || ' ' || name FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' ORDER BY name")
    }

    @Test func removedAndNowOptionalPropertiesKeepDataAndWritesGoOn() throws {
        try withTemporaryDirectory { directory in
            let path = directory.file("items.sqlite")
            let old: [RCItemV1]
            let objectsBefore: [String]
            do {
                let db = try Database(path: path)
                old = try seedVersion1(db)
                objectsBefore = try schemaObjects(db)
            }
            let db = try Database(path: path)
            var fresh = RCItemV2(id: nil, code: "new", score: 9, note: nil)
            try db.insert(&fresh)
            var saved = RCItemV2(id: nil, code: "saved", score: 10, note: nil)
            try db.save(&saved)
            var first = try #require(try db.find(RCItemV2.self, id: old[0].id ?? 0))
            first.note = nil
            try db.update(first)

            // Every old row is there, with the removed column's data.
            let weights = try db.fetchAll(Double?.self, sql: "SELECT weight FROM rc_items ORDER BY id")
            #expect(weights == [1.5, 1.5, 1.5, 1.5, 1.5, nil, nil])
            let notes = try db.fetchAll(RCItemV2.self).map(\.note)
            #expect(notes == [nil, "n1", "n2", "n3", "n4", nil, nil])
            #expect(try db.count(RCChild.self) == 5)
            // Indexes, the unique constraint, the trigger, the view and both foreign keys stay.
            #expect(try schemaObjects(db) == objectsBefore)
            #expect(throws: DatabaseError.self) {
                try db.insert(RCItemV2(id: nil, code: "c1", score: 0, note: nil))
            }
            #expect(throws: DatabaseError.self) { try db.insert(RCChild(id: nil, itemID: 999)) }
            #expect(throws: DatabaseError.self) { try db.execute(sql: "UPDATE rc_items SET groupID = 2") }
            #expect(try db.fetchAll(String.self, sql: "SELECT event FROM rc_log").count == 2)
            #expect(try db.fetchOne(Int.self, sql: "SELECT count(*) FROM rc_scores") == 7)
            #expect(try db.fetchAll(String.self, sql: "PRAGMA integrity_check") == ["ok"])
            #expect(try db.fetchAll(Row.self, sql: "PRAGMA foreign_key_check").isEmpty)
            // Still NOT NULL: the columns the model needs a value in, and the key.
            let notNull = try db.fetchAll(
                String.self,
                sql: "SELECT name FROM pragma_table_info('rc_items') WHERE \"notnull\" = 1 ORDER BY cid")
            #expect(notNull == ["code", "score"])
            // A cascade still cascades: the rebuild-free change kept the foreign key working.
            try db.delete(RCItemV2.self, id: old[4].id ?? 0)
            #expect(try db.count(RCChild.self) == 4)
        }
    }

    @Test func unusualCreateTableTextIsRewrittenExactly() throws {
        let db = try Database(.inMemory)
        // NOT NULL inside a comment, a CHECK and a named constraint with a conflict clause: only
        // the constraints themselves go, the rest of the text stays as written.
        try db.execute(
            sql: """
                CREATE TABLE rc_items (id INTEGER PRIMARY KEY, code TEXT NOT NULL /* NOT NULL */,
                "score" INTEGER NOT NULL, note TEXT CONSTRAINT "note present" NOT NULL ON CONFLICT FAIL,
                [weight] REAL NOT NULL CHECK (weight IS NOT NULL OR weight = 0), UNIQUE (code))
                """)
        try db.execute(sql: "INSERT INTO rc_items VALUES (1, 'a', 1, 'n', 2.5)")
        try db.insert(RCItemV2(id: nil, code: "b", score: 2, note: nil))
        #expect(
            try createSQL(db, "rc_items") == """
                CREATE TABLE rc_items (id INTEGER PRIMARY KEY, code TEXT NOT NULL /* NOT NULL */,
                "score" INTEGER NOT NULL, note TEXT,
                [weight] REAL CHECK (weight IS NOT NULL OR weight = 0), UNIQUE (code))
                """)
        #expect(try db.fetchAll(String.self, sql: "PRAGMA integrity_check") == ["ok"])
        #expect(try db.fetchOne(Double.self, sql: "SELECT weight FROM rc_items WHERE id = 1") == 2.5)
    }
}
