import Foundation
import LiteRecord
import Testing

// The same table, "posts", seen by models of successive versions of an app.
private struct PostV1: Model {
    var id: Int64?
    var title: String
    var body: String
    static let schema = Schema<PostV1>(table: "posts")
}

private struct PostV2: Model {
    var id: Int64?
    var title: String
    var body: String
    static let schema = Schema<PostV2>(table: "posts").fullTextSearch(on: [\.title])
}

private struct PostV3: Model {
    var id: Int64?
    var title: String
    var body: String
    static let schema = Schema<PostV3>(table: "posts").fullTextSearch(
        on: [\.title, \.body], tokenizer: .porter)
}

private struct TextKeyed: Model {
    var id: String
    var title: String
    static let schema = Schema<TextKeyed>(table: "text_keyed").fullTextSearch(on: [\.title])
}

private struct OnView: Model {
    var id: Int64?
    var title: String
    static let schema = Schema<OnView>(table: "post_view").fullTextSearch(on: [\.title])
}

private struct Taken: Model {
    var id: Int64?
    var title: String
    static let schema = Schema<Taken>(table: "taken").fullTextSearch(on: [\.title])
}

private struct Odd: Model {
    var id: Int64?
    var title: String
    static let schema = Schema<Odd>(table: "we\"ird 'table").fullTextSearch(on: [\.title])
}

/// Declaring, changing and removing search on a table: each happens once, in one transaction.
@Suite struct FullTextMigrationTests {
    private func objects(_ db: Database) throws -> [String] {
        try db.fetchAll(
            String.self,
            sql: "SELECT type || ' ' || name FROM sqlite_master WHERE name LIKE 'posts_fts%' ORDER BY name")
    }

    private func schemaVersion(_ db: Database) throws -> Int {
        try db.fetchOne(Int.self, sql: "PRAGMA schema_version") ?? 0
    }

    @Test func declaringRebuildsChangingRecreatesRemovingDrops() throws {
        try withTemporaryDirectory { directory in
            let path = directory.file("posts.sqlite")
            do {
                let db = try Database(path: path)
                try db.insert(PostV1(id: nil, title: "Running fast", body: "swift"))
                try db.insert(PostV1(id: nil, title: "Walking", body: "runs"))
                #expect(try objects(db).isEmpty)
            }
            do {
                // Search declared on a table with rows: they are indexed.
                let db = try Database(path: path)
                #expect(try db.query(PostV2.self).matching("running").count() == 1)
                #expect(try db.query(PostV2.self).matching("swift").count() == 0)  // body is not indexed
                try db.checkSearchIndex("posts")
                #expect(
                    try objects(db) == [
                        "table posts_fts", "trigger posts_fts_after_delete", "trigger posts_fts_after_insert",
                        "trigger posts_fts_after_update", "trigger posts_fts_before_insert",
                        "trigger posts_fts_before_update", "table posts_fts_config", "table posts_fts_data",
                        "table posts_fts_docsize", "table posts_fts_idx", "table posts_fts_replaced",
                    ])
            }
            do {
                // The same declaration again changes nothing.
                let db = try Database(path: path)
                let version = try schemaVersion(db)
                #expect(try db.query(PostV2.self).matching("walking").count() == 1)
                #expect(try schemaVersion(db) == version)
            }
            do {
                // Another property list and tokenizer: the index is made again, from the rows.
                let db = try Database(path: path)
                #expect(try db.query(PostV3.self).matching("swift").count() == 1)
                #expect(try db.query(PostV3.self).matching("run").count() == 2)  // porter stems
                try db.checkSearchIndex("posts")
                let version = try schemaVersion(db)
                let again = try Database(path: path)
                #expect(try again.query(PostV3.self).matching("walking").count() == 1)
                #expect(try schemaVersion(again) == version)
            }
            do {
                // Search removed: the index and its triggers go, the rows stay and writes work.
                let db = try Database(path: path)
                try db.insert(PostV1(id: nil, title: "third", body: ""))
                #expect(try objects(db).isEmpty)
                #expect(try db.count(PostV1.self) == 3)
            }
        }
    }

    @Test func aFailedCreationChangesNothing() throws {
        try withTemporaryDirectory { directory in
            let path = directory.file("taken.sqlite")
            let db = try Database(path: path)
            try db.execute(sql: "CREATE TABLE taken(id INTEGER PRIMARY KEY, title TEXT NOT NULL)")
            try db.execute(sql: "INSERT INTO taken(title) VALUES ('kept')")
            try db.execute(sql: "CREATE TABLE taken_fts_data(x)")
            let error = #expect(throws: SchemaError.self) {
                try db.query(Taken.self).matching("kept").fetchAll()
            }
            #expect(error?.message.contains("taken_fts_data") == true, "\(String(describing: error))")
            #expect(
                try db.fetchAll(
                    String.self, sql: "SELECT name FROM sqlite_master WHERE name LIKE 'taken_fts%'")
                    == ["taken_fts_data"])
        }
    }

    @Test func aNameTakenByAnotherObjectIsAnErrorAndUntouched() throws {
        let db = try Database(.inMemory)
        try db.execute(sql: "CREATE TABLE taken(id INTEGER PRIMARY KEY, title TEXT NOT NULL)")
        try db.execute(sql: "CREATE TABLE taken_fts(note TEXT)")
        try db.execute(sql: "INSERT INTO taken_fts VALUES ('mine')")
        let error = #expect(throws: SchemaError.self) { try db.insert(Taken(id: nil, title: "x")) }
        #expect(error?.message.contains("table named taken_fts already exists") == true)
        #expect(try db.fetchAll(String.self, sql: "SELECT note FROM taken_fts") == ["mine"])
        #expect(try db.fetchOne(Int.self, sql: "SELECT count(*) FROM taken") == 0)

        let other = try Database(.inMemory)
        try other.execute(sql: "CREATE TABLE taken(id INTEGER PRIMARY KEY, title TEXT NOT NULL)")
        try other.execute(
            sql: "CREATE TRIGGER taken_fts_after_insert AFTER INSERT ON taken BEGIN SELECT 1; END")
        let triggerError = #expect(throws: SchemaError.self) { try other.insert(Taken(id: nil, title: "x")) }
        #expect(triggerError?.message.contains("trigger named taken_fts_after_insert") == true)
    }

    @Test func aTableWithoutAnIntegerRowIDKeyIsRefused() throws {
        let db = try Database(.inMemory)
        let error = #expect(throws: SchemaError.self) { try db.insert(TextKeyed(id: "a", title: "x")) }
        #expect(error?.message.contains("needs an integer primary key") == true)

        // A table another tool made WITHOUT ROWID, or with a key that is not the rowid.
        for ddl in [
            "CREATE TABLE taken(id INTEGER PRIMARY KEY, title TEXT) WITHOUT ROWID",
            "CREATE TABLE taken(id INT PRIMARY KEY, title TEXT)",
            "CREATE TABLE taken(id INTEGER PRIMARY KEY DESC, title TEXT)",
        ] {
            let other = try Database(.inMemory)
            try other.execute(sql: SQL(verbatim: ddl))
            let error = #expect(throws: SchemaError.self, "\(ddl)") {
                try other.insert(Taken(id: nil, title: "x"))
            }
            #expect(error?.message.contains("needs id to be the rowid of taken") == true, "\(ddl)")
        }
    }

    @Test func aViewIsRefused() throws {
        let db = try Database(.inMemory)
        try db.execute(sql: "CREATE TABLE base(id INTEGER PRIMARY KEY, title TEXT)")
        try db.execute(sql: "CREATE VIEW post_view AS SELECT * FROM base")
        let error = #expect(throws: SchemaError.self) { try db.query(OnView.self).matching("x").fetchAll() }
        #expect(error?.message.contains("is a view") == true)
    }

    @Test func identifiersAreQuoted() throws {
        let db = try Database(.inMemory)
        try db.insert(Odd(id: nil, title: "quoted names work"))
        #expect(try db.query(Odd.self).matching("names").fetchAll().map(\.title) == ["quoted names work"])
        try db.execute(sql: "UPDATE \"we\"\"ird 'table\" SET title = 'changed'")
        #expect(try db.query(Odd.self).matching("names").count() == 0)
        try db.checkSearchIndex("we\"ird 'table")
    }

    @Test func matchingWithoutAnIndexIsAnError() throws {
        let db = try Database(.inMemory)
        try db.insert(PostV1(id: nil, title: "a", body: "b"))
        let error = #expect(throws: SchemaError.self) { try db.query(PostV1.self).matching("a").fetchAll() }
        #expect(error?.message.contains("declares none") == true)
    }
}
