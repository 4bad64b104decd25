import Foundation
import LiteRecord
import LiteRecordTestSupport
import Testing

/// A searched model with unique columns, so that `REPLACE` can delete rows other than the one
/// with the new row's id.
private struct Slugged: Model, Equatable {
    var id: Int64?
    var title: String
    var body: String
    var slug: String?
    var code: Int?

    static let schema = Schema<Slugged>(table: "slugged", unique: [\.slug, \.code])
        .collation(.nocase, for: \.slug)
        .fullTextSearch(on: [\.title, \.body])
}

/// Rows that `REPLACE` conflict resolution deletes fire no delete trigger (with recursive
/// triggers off, SQLite's default): the index must still forget their words, whatever raw
/// statement replaced them, and never delete a row twice when recursive triggers are on.
@Suite struct FullTextReplaceTests {
    private static let words = ["alpha", "beta", "gamma", "delta", "news", "zoe", "old", "new"]

    private func expectInSync(
        _ db: Database, _ note: String = "", sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        #expect(throws: Never.self, "integrity \(note)", sourceLocation: sourceLocation) {
            try db.checkSearchIndex("slugged")
        }
        let rows = try db.fetchAll(Slugged.self)
        for word in Self.words {
            let found = try db.query(Slugged.self).matching(word).fetchAll().compactMap(\.id).sorted()
            let expected = rows.filter { row in
                WordOracle.words(row.title).union(WordOracle.words(row.body)).contains(word)
            }
            .compactMap(\.id).sorted()
            #expect(found == expected, "\(word) \(note)", sourceLocation: sourceLocation)
        }
    }

    private func seeded(recursive: Bool) throws -> Database {
        let db = try Database(.inMemory)
        try db.execute(sql: recursive ? "PRAGMA recursive_triggers = ON" : "PRAGMA recursive_triggers = OFF")
        try db.insert(Slugged(id: 1, title: "alpha news", body: "old", slug: "a", code: 1))
        try db.insert(Slugged(id: 2, title: "beta", body: "old", slug: "b", code: 2))
        try db.insert(Slugged(id: 3, title: "gamma", body: "", slug: nil, code: nil))
        try expectInSync(db, "seeded")
        return db
    }

    @Test(arguments: [false, true])
    func replaceStatementsKeepTheIndexExact(recursive: Bool) throws {
        let db = try seeded(recursive: recursive)
        try db.execute(sql: "REPLACE INTO slugged(id, title, body, slug) VALUES (1, 'delta', 'new', 'a')")
        try expectInSync(db, "replace by id")
        #expect(try db.query(Slugged.self).matching("alpha").count() == 0)

        // 'B' equals row 2's 'b' under NOCASE: row 2 is replaced, then its id is used again.
        try db.execute(
            sql: "INSERT OR REPLACE INTO slugged(id, title, body, slug) VALUES (10, 'zoe', '', 'B')")
        try expectInSync(db, "replace by unique column")
        try db.execute(sql: "INSERT INTO slugged(id, title, body) VALUES (2, 'new', '')")
        try expectInSync(db, "rowid used again")
        #expect(try db.query(Slugged.self).matching("beta").count() == 0)

        try db.execute(sql: "UPDATE OR REPLACE slugged SET slug = 'A' WHERE id = 10")
        try expectInSync(db, "update or replace by unique column")
        try db.execute(sql: "UPDATE OR REPLACE slugged SET id = 3 WHERE id = 2")
        try expectInSync(db, "update or replace by id")
        #expect(try db.fetchAll(Int64.self, sql: "SELECT id FROM slugged ORDER BY id") == [3, 10])

        try db.execute(sql: "INSERT OR IGNORE INTO slugged(id, title, body) VALUES (3, 'gamma', 'x')")
        try expectInSync(db, "insert or ignore")
        try db.execute(sql: "UPDATE slugged SET body = 'alpha' WHERE id = 3")
        try expectInSync(db, "update after an ignored insert")

        try db.execute(
            sql:
                "INSERT INTO slugged(id, title, body) VALUES (3, 'beta', '') ON CONFLICT(id) DO UPDATE SET title = excluded.title"
        )
        try db.execute(
            sql: """
                INSERT INTO slugged(id, title, body, slug) VALUES (11, 'x', '', 'a')
                ON CONFLICT(slug) DO UPDATE SET id = 3 + 20, body = 'news'
                """)
        try expectInSync(db, "upserts")

        try db.execute(
            sql: """
                INSERT OR REPLACE INTO slugged(id, title, body, slug, code)
                SELECT id + 1, body, title, upper(slug), code FROM slugged UNION ALL SELECT 3, 'gamma', 'old', 'a', 1
                """)
        try expectInSync(db, "insert or replace select")
        #expect(try db.fetchOne(Int.self, sql: "SELECT count(*) FROM slugged_fts_replaced") == 0)
    }

    @Test(arguments: [false, true])
    func failedAndIgnoredStatementsLeaveTheIndexExact(recursive: Bool) throws {
        let db = try seeded(recursive: recursive)
        try db.transaction { tx in
            try tx.execute(sql: "INSERT INTO slugged(id, title, body) VALUES (4, 'delta', '')")
            #expect(throws: DatabaseError.self) {
                try tx.execute(
                    sql:
                        "INSERT OR ABORT INTO slugged(id, title, body, slug) VALUES (5, 'zoe', '', 'x'), (6, 'zoe', '', 'A')"
                )
            }
            #expect(throws: DatabaseError.self) {
                try tx.execute(
                    sql:
                        "INSERT OR FAIL INTO slugged(id, title, body, slug) VALUES (7, 'zoe', '', 'y'), (1, 'news', '', 'z')"
                )
            }
            // The failed rows left candidates behind; a plain update must not use them.
            try tx.execute(sql: "UPDATE slugged SET title = 'new' WHERE id = 1")
            try tx.execute(
                sql: "INSERT OR IGNORE INTO slugged(id, title, body, slug) VALUES (8, 'beta', '', 'b')")
            try tx.execute(sql: "UPDATE slugged SET title = 'old' WHERE id = 2")
        }
        try expectInSync(db, "after failures")
        #expect(try db.fetchAll(Int64.self, sql: "SELECT id FROM slugged ORDER BY id") == [1, 2, 3, 4, 7])
    }

    /// Every kind of conflicting statement at random, recursive triggers switched at random.
    @Test(arguments: [UInt64(3), 77, 2026])
    func randomConflictingStatementsKeepTheIndexExact(seed: UInt64) throws {
        var random = SeededGenerator(seed: seed)
        let db = try Database(.inMemory)
        _ = try db.fetchAll(Slugged.self)
        func text() -> String {
            (0..<Int.random(in: 0...3, using: &random)).map { _ in Self.words.randomElement(using: &random)! }
                .joined(separator: " ")
        }
        func slug() -> DatabaseValue {
            ["a", "A", "b", "c", nil].randomElement(using: &random)!.map { .text($0) } ?? .null
        }
        func code() -> DatabaseValue {
            [Int64(1), 2, 3, nil].randomElement(using: &random)!.map { .integer($0) } ?? .null
        }
        for step in 0..<150 {
            let id = Int64.random(in: 1...8, using: &random)
            let other = Int64.random(in: 1...8, using: &random)
            let verb = ["REPLACE", "INSERT OR REPLACE", "INSERT OR IGNORE", "INSERT OR FAIL", "INSERT"]
                .randomElement(using: &random)!
            let statement: SQL
            switch Int.random(in: 0..<8, using: &random) {
            case 0, 1:
                statement =
                    "\(SQL(verbatim: verb)) INTO slugged(id, title, body, slug, code) VALUES (\(id), \(text()), \(text()), \(slug()), \(code()))"
            case 2:
                statement =
                    "UPDATE OR REPLACE slugged SET slug = \(slug()), title = \(text()) WHERE id = \(id)"
            case 3:
                statement = "UPDATE OR REPLACE slugged SET id = \(other), code = \(code()) WHERE id = \(id)"
            case 4:
                statement =
                    "INSERT INTO slugged(id, title, body, slug) VALUES (\(id), \(text()), '', \(slug())) ON CONFLICT(id) DO UPDATE SET body = excluded.title, slug = \(slug())"
            case 5:
                statement =
                    "\(SQL(verbatim: verb)) INTO slugged(id, title, body, slug, code) SELECT id + \(other), body, title, upper(slug), code FROM slugged WHERE id > \(id)"
            case 6: statement = "DELETE FROM slugged WHERE id = \(id)"
            default:
                let on = Bool.random(using: &random)
                statement = on ? "PRAGMA recursive_triggers = ON" : "PRAGMA recursive_triggers = OFF"
            }
            // A statement that fails on a conflict is part of the test: the index must stay exact.
            do { try db.execute(sql: statement) } catch is DatabaseError {}
            try expectInSync(db, "step \(step) seed \(seed)")
        }
    }

    /// The sqlite3 shell writes the file, as another tool would, with its own connection.
    @Test func replaceStatementsOfTheShellKeepTheIndexExact() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/sqlite3") else {
            print("sqlite3 shell not installed: skipping the shell test")
            return
        }
        try withTemporaryDirectory { directory in
            let path = directory.file("slugged.sqlite")
            let db = try Database(path: path)
            try db.insert(Slugged(id: 1, title: "alpha news", body: "old", slug: "a", code: 1))
            try db.insert(Slugged(id: 2, title: "beta", body: "old", slug: "b", code: 2))
            let shell = Process.child(
                running: URL(fileURLWithPath: "/usr/bin/sqlite3"),
                arguments: [
                    path,
                    """
                    REPLACE INTO slugged(id, title, body, slug) VALUES (1, 'delta', 'new', 'a');
                    INSERT OR REPLACE INTO slugged(id, title, body, slug) VALUES (10, 'zoe', '', 'B');
                    INSERT INTO slugged(id, title, body) VALUES (2, 'gamma', '');
                    UPDATE OR REPLACE slugged SET code = 1 WHERE id = 10;
                    """,
                ])
            try shell.run()
            shell.waitUntilExit()
            try #require(shell.terminationStatus == 0)
            try expectInSync(db, "shell")
            #expect(try db.query(Slugged.self).matching("beta").count() == 0)
            #expect(try db.query(Slugged.self).matching("alpha").count() == 0)
        }
    }

    /// A table indexed by the three triggers of the first release (which lose REPLACEd rows)
    /// gets the new trigger set, and a fresh index, once.
    @Test func anIndexWithTheFirstTriggerSetIsUpgradedAndRebuiltOnce() throws {
        try withTemporaryDirectory { directory in
            let path = directory.file("articles.sqlite")
            do {
                let db = try Database(path: path)
                try db.insert(SearchArticle(id: 1, title: "alpha", body: "", section: ""))
                for name in [
                    "after_insert", "after_delete", "after_update", "before_insert", "before_update",
                ] {
                    try db.execute(sql: "DROP TRIGGER \(identifier: "articles_fts_" + name)")
                }
                try db.execute(sql: "DROP TABLE articles_fts_replaced")
                let marker = "/* LiteRecord full-text index */"
                let insert =
                    "INSERT INTO \"articles_fts\"(rowid, \"title\", \"body\") VALUES (new.\"id\", new.\"title\", new.\"body\");"
                let delete =
                    "INSERT INTO \"articles_fts\"(\"articles_fts\", rowid, \"title\", \"body\") VALUES ('delete', old.\"id\", old.\"title\", old.\"body\");"
                let changed =
                    "old.\"id\" IS NOT new.\"id\" OR CAST(old.\"title\" AS BLOB) IS NOT CAST(new.\"title\" AS BLOB) OR CAST(old.\"body\" AS BLOB) IS NOT CAST(new.\"body\" AS BLOB)"
                try db.execute(
                    sql: SQL(
                        verbatim:
                            "CREATE TRIGGER \"articles_fts_after_insert\" AFTER INSERT ON \"articles\" BEGIN \(marker) \(insert) END"
                    ))
                try db.execute(
                    sql: SQL(
                        verbatim:
                            "CREATE TRIGGER \"articles_fts_after_delete\" AFTER DELETE ON \"articles\" BEGIN \(marker) \(delete) END"
                    ))
                try db.execute(
                    sql: SQL(
                        verbatim:
                            "CREATE TRIGGER \"articles_fts_after_update\" AFTER UPDATE ON \"articles\" WHEN \(changed) BEGIN \(marker) \(delete) \(insert) END"
                    ))
                try db.execute(
                    sql: "REPLACE INTO articles(id, title, body, section) VALUES (1, 'beta', '', '')")
                // The first trigger set left the replaced row's words behind.
                #expect(throws: DatabaseError.self) { try db.checkSearchIndex() }
            }
            let db = try Database(path: path)
            let before = try db.fetchOne(Int.self, sql: "PRAGMA schema_version") ?? 0
            #expect(try db.query(SearchArticle.self).matching("alpha").count() == 0)
            #expect(try db.query(SearchArticle.self).matching("beta").count() == 1)
            try db.checkSearchIndex()
            let after = try db.fetchOne(Int.self, sql: "PRAGMA schema_version") ?? 0
            #expect(after > before)
            #expect(
                try db.fetchOne(
                    Int.self,
                    sql:
                        "SELECT count(*) FROM sqlite_master WHERE name LIKE 'articles_fts_%' AND type = 'trigger'"
                ) == 5)
            let again = try Database(path: path)
            #expect(try again.query(SearchArticle.self).matching("beta").count() == 1)
            #expect(try again.fetchOne(Int.self, sql: "PRAGMA schema_version") == after)
        }
    }
}
