import Foundation
import LiteRecord
import Testing

// Every type below maps onto the table "am_items": each is the same table in a later app version.

private struct AMItemV1: Model, Equatable {
    var id: Int64?
    var name: String
    var score: Int

    static let schema = Schema<AMItemV1>(table: "am_items", primaryKey: \.id, indexes: [[\.score]])
}

/// V2 adds an optional property.
private struct AMItemWithNote: Model, Equatable {
    var id: Int64?
    var name: String
    var score: Int
    var note: String?

    static let schema = Schema<AMItemWithNote>(table: "am_items", primaryKey: \.id)
}

/// V2 adds a non-optional property with a schema default.
private struct AMItemWithLevel: Model, Equatable {
    var id: Int64?
    var name: String
    var score: Int
    var level: Int

    static let schema = Schema<AMItemWithLevel>(table: "am_items", primaryKey: \.id)
        .defaultValue(7, for: \.level)
}

/// V2 adds a non-optional property and forgets the default.
private struct AMItemWithLevelNoDefault: Model {
    var id: Int64?
    var name: String
    var score: Int
    var level: Int

    static let schema = Schema<AMItemWithLevelNoDefault>(table: "am_items", primaryKey: \.id)
}

/// V2 adds an index and a two-column unique constraint.
private struct AMItemIndexed: Model {
    var id: Int64?
    var name: String
    var score: Int

    static let schema = Schema<AMItemIndexed>(
        table: "am_items", primaryKey: \.id, indexes: [[\.score], [\.name]]
    )
    .uniqueTogether([\.name, \.score])
}

/// V2 makes `name` unique and adds a column: both or neither must happen.
private struct AMItemUniqueName: Model {
    var id: Int64?
    var name: String
    var score: Int
    var nickname: String?

    static let schema = Schema<AMItemUniqueName>(table: "am_items", primaryKey: \.id, unique: [\.name])
}

/// V2 no longer has `score`.
private struct AMItemWithoutScore: Model, Equatable {
    var id: Int64?
    var name: String

    static let schema = Schema<AMItemWithoutScore>(table: "am_items", primaryKey: \.id)
}

/// V2 turned `score` into a String.
private struct AMItemTextScore: Model {
    var id: Int64?
    var name: String
    var score: String

    static let schema = Schema<AMItemTextScore>(table: "am_items", primaryKey: \.id)
}

private struct AMAbort: Error {}

@Suite struct AutomaticMigrationTests {
    // MARK: - Helpers

    private func tableSQL(_ db: some DatabaseContext, _ table: String = "am_items") throws -> String? {
        try db.firstValue(
            String.self, sql: "SELECT sql FROM sqlite_master WHERE type = 'table' AND name = \(table)")
    }

    /// Every schema object, so a test can check that nothing at all changed.
    private func schemaDump(_ db: some DatabaseContext) throws -> [String] {
        try db.fetchAll(
            String.self,
            sql:
                "SELECT type || ' ' || name || ': ' || ifnull(sql, '') FROM sqlite_master ORDER BY type, name"
        )
    }

    private func indexNames(_ db: some DatabaseContext) throws -> [String] {
        try db.fetchAll(
            String.self,
            sql: """
                SELECT name FROM sqlite_master
                WHERE type = 'index' AND tbl_name = 'am_items' AND sql IS NOT NULL ORDER BY name
                """)
    }

    private func indexColumns(_ db: some DatabaseContext, _ index: String) throws -> [String] {
        try db.fetchAll(String.self, sql: "SELECT name FROM pragma_index_info(\(index)) ORDER BY seqno")
    }

    /// A database holding two V1 rows.
    private func databaseWithV1Rows(_ names: [String] = ["Ann", "Ben"]) throws -> Database {
        let db = try Database(.inMemory)
        for (offset, name) in names.enumerated() {
            var item = AMItemV1(id: nil, name: name, score: 10 * (offset + 1))
            try db.insert(&item)
        }
        return db
    }

    // MARK: - Creating tables

    @Test func firstOperationCreatesTableAndIndexesOncePerDatabase() throws {
        try withTemporaryDirectory { directory in
            let path = directory.file("items.sqlite")
            let db = try Database(path: path)
            #expect(try tableSQL(db) == nil)
            let log = EventLog<String>()
            db.trace { log.append($0) }
            #expect(try db.count(AMItemV1.self) == 0)
            var item = AMItemV1(id: nil, name: "Ann", score: 3)
            try db.insert(&item)
            item.score = 4
            try db.update(item)
            _ = try db.fetchAll(AMItemV1.self)
            _ = try db.find(AMItemV1.self, id: 1)
            db.trace(nil)
            let checks = log.events.filter { $0.contains("sqlite_master") }
            #expect(checks.count == 1, "the table is checked once per type per database: \(checks)")
            let tableCreations = log.events.filter { $0.hasPrefix("CREATE TABLE") }.count
            #expect(tableCreations == 1)
            let indexCreations = log.events.filter { $0.hasPrefix("CREATE INDEX") }.count
            #expect(indexCreations == 1)

            let sql = try #require(try tableSQL(db))
            #expect(sql.contains(#""id" INTEGER PRIMARY KEY"#))
            #expect(sql.contains(#""name" TEXT NOT NULL"#))
            #expect(sql.contains(#""score" INTEGER NOT NULL"#))
            #expect(try indexNames(db) == ["am_items_on_score"])

            // Another Database on the same file checks again, and finds nothing to create.
            let other = try Database(path: path)
            let otherLog = EventLog<String>()
            other.trace { otherLog.append($0) }
            #expect(try other.fetchAll(AMItemV1.self) == [AMItemV1(id: 1, name: "Ann", score: 4)])
            #expect(try other.count(AMItemV1.self) == 1)
            other.trace(nil)
            let otherChecks = otherLog.events.filter { $0.contains("FROM sqlite_master") }.count
            #expect(otherChecks == 1)
            let otherChangedSchema = otherLog.events.contains {
                $0.hasPrefix("CREATE TABLE") || $0.hasPrefix("ALTER")
            }
            #expect(!otherChangedSchema)
        }
    }

    @Test func explicitMigrateCreatesTableUpFrontAndIsIdempotent() throws {
        let db = try Database(.inMemory)
        try db.migrate(AMItemV1.self)
        let sql = try #require(try tableSQL(db))
        #expect(sql.hasPrefix(#"CREATE TABLE "am_items""#))
        #expect(try indexNames(db) == ["am_items_on_score"])
        #expect(try indexColumns(db, "am_items_on_score") == ["score"])
        #expect(try db.firstValue(Int.self, sql: "SELECT count(*) FROM am_items") == 0)

        let before = try schemaDump(db)
        try db.migrate(AMItemV1.self)
        #expect(try schemaDump(db) == before)
        // Rows written meanwhile are kept: migrate never recreates the table.
        try db.execute(sql: "INSERT INTO am_items (name, score) VALUES ('raw', 1)")
        try db.migrate(AMItemV1.self)
        #expect(try db.fetchAll(AMItemV1.self) == [AMItemV1(id: 1, name: "raw", score: 1)])
    }

    @Test func tableCreatedInsideRolledBackTransactionIsCreatedAgainOnNextUse() throws {
        let db = try Database(.inMemory)
        #expect(throws: AMAbort.self) {
            try db.transaction { tx in
                var item = AMItemV1(id: nil, name: "Ann", score: 1)
                try tx.insert(&item)
                throw AMAbort()
            }
        }
        #expect(try tableSQL(db) == nil)  // the rollback took the new table with it
        var item = AMItemV1(id: nil, name: "Ben", score: 2)
        try db.insert(&item)
        #expect(try db.fetchAll(AMItemV1.self) == [AMItemV1(id: 1, name: "Ben", score: 2)])
        #expect(try indexNames(db) == ["am_items_on_score"])
    }

    @Test func tableGrownInsideRolledBackTransactionIsGrownAgainOnNextUse() throws {
        let db = try databaseWithV1Rows()
        let before = try schemaDump(db)
        #expect(throws: AMAbort.self) {
            try db.transaction { tx in
                try tx.migrate(AMItemUniqueName.self)
                throw AMAbort()
            }
        }
        #expect(try schemaDump(db) == before)
        let error = try #require(throws: DatabaseError.self) {
            try db.insert(AMItemUniqueName(id: nil, name: "Ann", score: 5, nickname: "A"))
        }
        #expect(error.resultCode == .constraintUnique)
        #expect(try indexNames(db).contains("am_items_unique_name"))
    }

    @Test func columnAddedInRolledBackSavepointIsAddedAgainInTheSameTransaction() throws {
        let db = try databaseWithV1Rows()
        try db.transaction { tx in
            #expect(throws: AMAbort.self) {
                try tx.transaction { inner in  // a savepoint inside the transaction
                    try inner.insert(AMItemWithNote(id: nil, name: "Cid", score: 3, note: "gone"))
                    throw AMAbort()
                }
            }
            try tx.insert(AMItemWithNote(id: nil, name: "Dee", score: 4, note: "kept"))
        }
        #expect(try db.fetchAll(AMItemWithNote.self).map(\.note) == [nil, nil, "kept"])
    }

    // MARK: - Adding columns

    @Test func newOptionalPropertyAddsNullableColumn() throws {
        let db = try databaseWithV1Rows()
        try db.migrate(AMItemWithNote.self)
        let column = try #require(
            try db.fetchOne(
                Row.self,
                sql: "SELECT type, \"notnull\" FROM pragma_table_xinfo('am_items') WHERE name = 'note'"))
        #expect(try column.value(String.self, named: "type") == "TEXT")
        #expect(try column.value(Int.self, named: "notnull") == 0)
        #expect(
            try db.fetchAll(AMItemWithNote.self) == [
                AMItemWithNote(id: 1, name: "Ann", score: 10, note: nil),
                AMItemWithNote(id: 2, name: "Ben", score: 20, note: nil),
            ])
        var item = AMItemWithNote(id: nil, name: "Cid", score: 30, note: "new")
        try db.insert(&item)
        #expect(try db.firstValue(String.self, sql: "SELECT note FROM am_items WHERE id = 3") == "new")
        #expect(try db.firstValue(Int.self, sql: "SELECT count(*) FROM am_items WHERE note IS NULL") == 2)
    }

    @Test func newNonOptionalPropertyWithDefaultFillsOldRows() throws {
        let db = try databaseWithV1Rows()
        #expect(try db.count(AMItemWithLevel.self) == 2)
        let sql = try #require(try tableSQL(db))
        #expect(sql.contains(#""level" INTEGER NOT NULL DEFAULT 7"#))
        #expect(try db.fetchAll(AMItemWithLevel.self).map(\.level) == [7, 7])
        #expect(try db.fetchAll(Int.self, sql: "SELECT level FROM am_items ORDER BY id") == [7, 7])
        var item = AMItemWithLevel(id: nil, name: "Cid", score: 30, level: 3)
        try db.insert(&item)
        #expect(try db.find(AMItemWithLevel.self, id: 3) == item)
        // The V1 model still works on the grown table: the new column fills itself.
        var old = AMItemV1(id: nil, name: "Dee", score: 40)
        try db.insert(&old)
        #expect(try db.find(AMItemWithLevel.self, id: 4)?.level == 7)
    }

    @Test func newNonOptionalPropertyWithoutDefaultIsAnErrorAndChangesNothing() throws {
        let db = try databaseWithV1Rows()
        let before = try schemaDump(db)
        let error = try #require(schemaError { try db.migrate(AMItemWithLevelNoDefault.self) })
        #expect(error.message.contains("level"))
        #expect(error.message.contains("am_items"))
        #expect(error.message.contains(".defaultValue(_:for:)"))
        #expect(error.message.contains("optional"))
        #expect(try schemaDump(db) == before)
        // Not remembered as done: every use reports it again, and writes nothing.
        let again = try #require(
            schemaError {
                var item = AMItemWithLevelNoDefault(id: nil, name: "Cid", score: 1, level: 1)
                try db.insert(&item)
            })
        #expect(again.message == error.message)
        #expect(try schemaDump(db) == before)
        #expect(try db.fetchAll(AMItemV1.self).map(\.name) == ["Ann", "Ben"])
    }

    // MARK: - Indexes and unique constraints

    @Test func newIndexAndUniqueTogetherAreCreatedOnExistingTable() throws {
        let db = try databaseWithV1Rows(["Ann", "Ann", "Ben"])  // (Ann, 10), (Ann, 20): unique together
        try db.migrate(AMItemIndexed.self)
        #expect(
            try indexNames(db) == ["am_items_on_name", "am_items_on_score", "am_items_unique_name_score"])
        #expect(try indexColumns(db, "am_items_unique_name_score") == ["name", "score"])
        let isUnique = try db.firstValue(
            Int.self,
            sql:
                "SELECT \"unique\" FROM pragma_index_list('am_items') WHERE name = 'am_items_unique_name_score'"
        )
        #expect(isUnique == 1)
        var duplicate = AMItemIndexed(id: nil, name: "Ann", score: 20)
        let error = try #require(throws: DatabaseError.self) { try db.insert(&duplicate) }
        #expect(error.resultCode == .constraintUnique)
        #expect(error.message.contains("am_items.name, am_items.score"))
        #expect(try db.count(AMItemIndexed.self) == 3)
    }

    @Test func newSingleColumnUniqueIsCreatedOnExistingTable() throws {
        let db = try databaseWithV1Rows()
        try db.migrate(AMItemUniqueName.self)
        #expect(try indexNames(db) == ["am_items_on_score", "am_items_unique_name"])
        #expect(try indexColumns(db, "am_items_unique_name") == ["name"])
        let error = try #require(throws: DatabaseError.self) {
            try db.insert(AMItemUniqueName(id: nil, name: "Ben", score: 99, nickname: nil))
        }
        #expect(error.message.contains("am_items.name"))
    }

    @Test func newUniqueViolatedByExistingRowsIsAnErrorAndChangesNothing() throws {
        let db = try databaseWithV1Rows(["Ann", "Ann", "Ben"])
        let before = try schemaDump(db)
        let error = try #require(schemaError { try db.migrate(AMItemUniqueName.self) })
        #expect(error.message.contains("UNIQUE(name)"))
        #expect(error.message.contains("am_items"))
        #expect(error.message.contains("duplicate"))
        #expect(try schemaDump(db) == before)  // no index, and no nickname column either
        #expect(try !indexNames(db).contains { $0.contains("unique") })
        #expect(try db.fetchAll(AMItemV1.self).map(\.name) == ["Ann", "Ann", "Ben"])

        // Once the duplicates are gone, the same model migrates.
        try db.execute(sql: "DELETE FROM am_items WHERE id = 2")
        try db.migrate(AMItemUniqueName.self)
        #expect(try indexNames(db).contains("am_items_unique_name"))
    }

    // MARK: - Never losing data

    @Test func removedPropertyLeavesColumnAndData() throws {
        let db = try databaseWithV1Rows()
        let before = try schemaDump(db)
        #expect(
            try db.fetchAll(AMItemWithoutScore.self) == [
                AMItemWithoutScore(id: 1, name: "Ann"), AMItemWithoutScore(id: 2, name: "Ben"),
            ])
        // The only change to the schema: the column the model no longer fills accepts NULL.
        let relaxed = before.map {
            $0.replacingOccurrences(of: #""score" INTEGER NOT NULL"#, with: #""score" INTEGER"#)
        }
        #expect(relaxed != before)
        #expect(try schemaDump(db) == relaxed)
        #expect(try db.fetchAll(Int.self, sql: "SELECT score FROM am_items ORDER BY id") == [10, 20])
        // Writing through the new model leaves the old column's data alone.
        try db.update(AMItemWithoutScore(id: 2, name: "Bea"))
        #expect(
            try db.fetchAll(AMItemV1.self) == [
                AMItemV1(id: 1, name: "Ann", score: 10), AMItemV1(id: 2, name: "Bea", score: 20),
            ])
        // An insert without the column succeeds (it used to fail with NOT NULL constraint failed).
        var cid = AMItemWithoutScore(id: nil, name: "Cid")
        try db.insert(&cid)
        #expect(try db.fetchAll(Int?.self, sql: "SELECT score FROM am_items ORDER BY id") == [10, 20, nil])
        #expect(try db.fetchAll(String.self, sql: "PRAGMA integrity_check") == ["ok"])
    }

    @Test func changedTypeIsReportedAndNothingIsConverted() throws {
        let db = try databaseWithV1Rows()
        let before = try schemaDump(db)
        let error = try #require(schemaError { _ = try db.fetchAll(AMItemTextScore.self) })
        #expect(error.message.contains("column score of am_items"))
        #expect(error.message.contains("INTEGER"))
        #expect(error.message.contains("String"))
        #expect(error.message.contains("TEXT"))
        #expect(try schemaDump(db) == before)
        #expect(
            try db.fetchAll(String.self, sql: "SELECT typeof(score) FROM am_items") == ["integer", "integer"])
        #expect(try db.fetchAll(Int.self, sql: "SELECT score FROM am_items ORDER BY id") == [10, 20])
        // Still reported on the next use: the failed check is not remembered as done.
        #expect(throws: SchemaError.self) { _ = try db.count(AMItemTextScore.self) }
    }
}
