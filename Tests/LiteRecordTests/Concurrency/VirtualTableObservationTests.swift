import Foundation
import LiteRecord
import LiteRecordTestSupport
import Testing

/// Observations of fetches that read virtual tables: SQLite's update hook never reports a
/// virtual table, only the shadow tables that hold its data, so those must count as read.
///
/// Without that, an observation waits forever for its next value; the time limit turns the hang
/// into a failure. It is generous because in a full run on two cores an async test may wait
/// minutes for a thread (the other observation tests then take about 230 s).
@Suite("Observing virtual tables", .timeLimit(.minutes(10)), .offCooperativePool)
struct VirtualTableObservationTests {
    /// Matches of `word` in the FTS5 table `docs`, by raw SQL.
    private static func matches(_ word: String) -> @Sendable (Connection) throws -> [String] {
        { db in
            try db.fetchAll(Row.self, sql: "SELECT body FROM docs WHERE docs MATCH \(word) ORDER BY rowid")
                .map { try $0.value(String.self, at: 0) }
        }
    }

    @Test(arguments: [true, false])
    func anFTS5MatchUpdatesAfterAnInsert(onFile: Bool) async throws {
        try await withTemporaryDirectory { directory in
            let db = onFile ? try Database(path: directory.file("fts.sqlite")) : try Database(.inMemory)
            try await db.execute(sql: "CREATE VIRTUAL TABLE docs USING fts5(body)")
            try await db.execute(sql: "INSERT INTO docs(body) VALUES ('swift on linux')")
            var values = db.observe(Self.matches("swift")).makeAsyncIterator()
            #expect(try await values.next() == ["swift on linux"])
            try await db.execute(sql: "INSERT INTO docs(body) VALUES ('swift orm')")
            #expect(try await values.next() == ["swift on linux", "swift orm"])
            try await db.execute(sql: "DELETE FROM docs WHERE body = 'swift on linux'")
            #expect(try await values.next() == ["swift orm"])
        }
    }

    /// An external-content FTS5 table, kept by triggers: a change of the content table alone
    /// updates an observation that reads only the index.
    @Test func anExternalContentIndexUpdatesWhenItsContentTableChanges() async throws {
        try await withTemporaryDirectory { directory in
            let db = try Database(path: directory.file("external.sqlite"))
            try await db.execute(
                sql: """
                    CREATE TABLE articles(id INTEGER PRIMARY KEY, title TEXT NOT NULL);
                    CREATE VIRTUAL TABLE articles_index USING fts5(title, content='articles', content_rowid='id');
                    CREATE TRIGGER articles_ai AFTER INSERT ON articles BEGIN
                        INSERT INTO articles_index(rowid, title) VALUES (new.id, new.title);
                    END;
                    CREATE TRIGGER articles_ad AFTER DELETE ON articles BEGIN
                        INSERT INTO articles_index(articles_index, rowid, title) VALUES ('delete', old.id, old.title);
                    END;
                    CREATE TRIGGER articles_au AFTER UPDATE ON articles BEGIN
                        INSERT INTO articles_index(articles_index, rowid, title) VALUES ('delete', old.id, old.title);
                        INSERT INTO articles_index(rowid, title) VALUES (new.id, new.title);
                    END;
                    INSERT INTO articles(title) VALUES ('Swift testing');
                    """)
            var values = db.observe { db in
                try db.fetchAll(
                    Row.self, sql: "SELECT rowid FROM articles_index WHERE articles_index MATCH 'swift'"
                )
                .map { try $0.value(Int64.self, at: 0) }
            }.makeAsyncIterator()
            #expect(try await values.next() == [1])
            try await db.execute(sql: "INSERT INTO articles(title) VALUES ('Swift concurrency')")
            #expect(try await values.next() == [1, 2])
            try await db.execute(sql: "UPDATE articles SET title = 'Kotlin' WHERE id = 1")
            #expect(try await values.next() == [2])
        }
    }

    /// Not only FTS5: an R*Tree index is a virtual table too, with shadow tables of its own.
    @Test func anRTreeQueryUpdatesAfterAnInsert() async throws {
        let db = try Database(.inMemory)
        try await db.execute(sql: "CREATE VIRTUAL TABLE boxes USING rtree(id, minX, maxX)")
        var values = db.observe { db in
            try db.fetchAll(Row.self, sql: "SELECT id FROM boxes WHERE minX <= 5 AND maxX >= 5 ORDER BY id")
                .map { try $0.value(Int64.self, at: 0) }
        }.makeAsyncIterator()
        #expect(try await values.next() == [])
        try await db.execute(sql: "INSERT INTO boxes VALUES (1, 0, 10)")
        #expect(try await values.next() == [1])
        try await db.execute(sql: "INSERT INTO boxes VALUES (2, 4, 6), (3, 20, 30)")
        #expect(try await values.next() == [1, 2])
    }

    /// A change of an unrelated table does not make the virtual table's observation fetch.
    @Test func unrelatedTablesDoNotTrigger() async throws {
        let db = try Database(.inMemory)
        try await db.execute(
            sql: """
                CREATE VIRTUAL TABLE docs USING fts5(body);
                CREATE TABLE docs_archive(body TEXT);
                CREATE TABLE other(x);
                """)
        let fetches = Counter()
        var values = db.observe { db in
            fetches.increment()
            return try Self.matches("swift")(db)
        }.makeAsyncIterator()
        #expect(try await values.next() == [])
        try await db.execute(sql: "INSERT INTO other VALUES (1)")
        try await db.execute(sql: "INSERT INTO docs_archive VALUES ('swift')")
        try await db.execute(sql: "INSERT INTO docs(body) VALUES ('swift')")
        #expect(try await values.next() == ["swift"])
        #expect(fetches.count == 2)
    }
}
