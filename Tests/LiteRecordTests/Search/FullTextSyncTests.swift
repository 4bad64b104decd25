import Foundation
import LiteRecord
import Testing

/// The index follows every write path: after each, `matching` agrees with Swift's word
/// matching over all rows, and FTS5's integrity check finds the index equal to the table.
@Suite struct FullTextSyncTests {
    private func expectInSync(
        _ db: Database, _ words: [String], sourceLocation: SourceLocation = #_sourceLocation
    )
        throws
    {
        try db.checkSearchIndex()
        for word in words {
            let result = try db.searchAndOracle(word)
            #expect(result.found == result.expected, "\(word)", sourceLocation: sourceLocation)
        }
    }

    private let words = ["alpha", "beta", "gamma", "delta", "news", "Zoë", "zoe"]

    @Test func everyWritePathKeepsTheIndexInSync() throws {
        let db = try Database(.inMemory)
        var first = SearchArticle(id: nil, title: "Alpha news", body: "beta", section: "a")
        try db.insert(&first)
        try expectInSync(db, words)
        #expect(try db.query(SearchArticle.self).matching("alpha").fetchAll() == [first])

        let many = try db.insert(contentsOf: [
            SearchArticle(id: nil, title: "Gamma", body: "delta alpha", section: "b"),
            SearchArticle(id: nil, title: "Zoë", body: "gamma", section: "b"),
        ])
        try expectInSync(db, words)
        #expect(try db.query(SearchArticle.self).matching("zoe").fetchAll() == [many[1]])

        first.title = "Delta"
        try db.update(first)
        try expectInSync(db, words)
        #expect(try db.query(SearchArticle.self).matching("alpha news").count() == 0)

        var saved = SearchArticle(id: nil, title: "saved beta", body: "", section: "c")
        try db.save(&saved)
        saved.body = "gamma gamma"
        try db.save(&saved)
        try expectInSync(db, words)
        #expect(try db.query(SearchArticle.self).matching("saved gamma").fetchAll() == [saved])

        #expect(try db.delete(many[0]))
        try expectInSync(db, words)

        let changed = try db.query(SearchArticle.self).where { $0.section == "b" }
            .updateAll { [$0.body.set(to: "alpha beta")] }
        #expect(changed == 1)
        try expectInSync(db, words)
        #expect(try db.query(SearchArticle.self).matching("zoe alpha").count() == 1)

        try db.execute(sql: "INSERT INTO articles(title, body, section) VALUES ('raw alpha', 'x', 'r')")
        try db.execute(sql: "UPDATE articles SET title = 'raw gamma' WHERE section = 'r'")
        try expectInSync(db, words + ["raw"])
        #expect(try db.query(SearchArticle.self).matching("raw alpha").count() == 0)
        #expect(try db.query(SearchArticle.self).matching("raw gamma").count() == 1)
        try db.execute(sql: "DELETE FROM articles WHERE section = 'r'")
        try expectInSync(db, words + ["raw"])

        // An update of a column outside the index leaves the index alone, and in sync.
        try db.execute(sql: "UPDATE articles SET section = 'moved'")
        try expectInSync(db, words)

        #expect(try db.query(SearchArticle.self).deleteAll() > 0)
        try expectInSync(db, words)
        #expect(try db.query(SearchArticle.self).matching("gamma").count() == 0)
    }

    @Test func aRolledBackTransactionLeavesTheIndexAsItWas() throws {
        let db = try Database(.inMemory)
        var kept = SearchArticle(id: nil, title: "kept alpha", body: "", section: "")
        try db.insert(&kept)
        struct Abort: Error {}
        #expect(throws: Abort.self) {
            try db.transaction { tx in
                var added = SearchArticle(id: nil, title: "beta", body: "alpha", section: "")
                try tx.insert(&added)
                kept.title = "gamma"
                try tx.update(kept)
                throw Abort()
            }
        }
        try expectInSync(db, words)
        #expect(try db.query(SearchArticle.self).matching("alpha").fetchAll().map(\.title) == ["kept alpha"])
        #expect(try db.query(SearchArticle.self).matching("beta").count() == 0)
    }

    /// Updates that change values the tokenizer reads differently though SQL finds them equal
    /// (`1` and `1.0`) re-index the row; so does a change of key.
    @Test func updatesOfKeyAndOfValueTypesReindex() throws {
        let db = try Database(.inMemory)
        try db.insert(SearchArticle(id: 5, title: "alpha", body: "1", section: ""))
        try db.execute(sql: "UPDATE articles SET body = 1.0 WHERE id = 5")
        try db.checkSearchIndex()
        #expect(try db.query(SearchArticle.self).matching("1 0").count() == 1)
        try db.execute(sql: "UPDATE articles SET id = 9 WHERE id = 5")
        try db.checkSearchIndex()
        #expect(try db.query(SearchArticle.self).matching("alpha").fetchAll().map(\.id) == [9])
    }

    /// `REPLACE` deletes the replaced row without its delete trigger unless recursive triggers
    /// are on (the README says so); with them on, the index stays right.
    @Test func replaceKeepsTheIndexInSyncWithRecursiveTriggers() throws {
        let db = try Database(.inMemory)
        try db.execute(sql: "PRAGMA recursive_triggers = ON")
        try db.insert(SearchArticle(id: 1, title: "alpha", body: "", section: ""))
        try db.execute(
            sql: "INSERT OR REPLACE INTO articles(id, title, body, section) VALUES (1, 'beta', '', '')")
        try db.execute(sql: "REPLACE INTO articles(id, title, body, section) VALUES (1, 'gamma', '', '')")
        try expectInSync(db, words)
        #expect(try db.query(SearchArticle.self).matching("gamma").count() == 1)
        #expect(try db.query(SearchArticle.self).matching("alpha").count() == 0)
    }

    /// Every write path at random, checked after each step.
    @Test(arguments: [UInt64(7), 1234])
    func randomWritesKeepTheIndexInSync(seed: UInt64) throws {
        var random = SeededGenerator(seed: seed)
        let db = try Database(.inMemory)
        func text() -> String {
            (0..<Int.random(in: 0...4, using: &random)).map { _ in words.randomElement(using: &random)! }
                .joined(separator: " ")
        }
        for _ in 0..<60 {
            let ids = try db.fetchAll(SearchArticle.self).compactMap(\.id)
            switch Int.random(in: 0..<5, using: &random) {
            case 0: try db.insert(SearchArticle(id: nil, title: text(), body: text(), section: "s"))
            case 1:
                guard let id = ids.randomElement(using: &random) else { continue }
                try db.update(SearchArticle(id: id, title: text(), body: text(), section: "u"))
            case 2:
                guard let id = ids.randomElement(using: &random) else { continue }
                _ = try db.delete(SearchArticle.self, id: id)
            case 3:
                let word = words.randomElement(using: &random)!
                try db.query(SearchArticle.self).matching(word).updateAll { [$0.title.set(to: text())] }
            default:
                let word = words.randomElement(using: &random)!
                try db.query(SearchArticle.self).matching(word).limit(1).deleteAll()
            }
            try expectInSync(db, words)
        }
    }
}
