import Foundation
import LiteRecord
import Testing

/// `matching` finds exactly the rows holding every word, whatever the text, best match first.
@Suite struct FullTextMatchingTests {
    // Words whose case and diacritic folding Swift and FTS5's unicode61 agree on; FTS5's
    // operator words are ordinary words here.
    private static let vocabulary = [
        "swift", "Swift", "SWIFT", "orm", "Café", "cafe", "naïve", "NAIVE", "Über", "uber", "résumé",
        "resume", "data", "Linux", "sqlite", "fts5", "zoë", "Zoe", "and", "OR", "not", "NEAR", "año",
        "garçon",
        "x", "42",
    ]
    private static let separators = [
        " ", ", ", ". ", "-", "'", "!", "\"", "(", ")", "*", ":", " - ", "\n", "^",
    ]

    private static func text(words: Int, using random: inout SeededGenerator) -> String {
        var text = ""
        for index in 0..<words {
            if index > 0 { text += separators.randomElement(using: &random)! }
            text += vocabulary.randomElement(using: &random)!
        }
        return text
    }

    @Test(arguments: [UInt64(1), 99, 2026])
    func matchesAgreeWithSwiftWordMatching(seed: UInt64) throws {
        var random = SeededGenerator(seed: seed)
        let db = try Database(.inMemory)
        let articles = (0..<300).map { index in
            SearchArticle(
                id: nil, title: Self.text(words: Int.random(in: 0...3, using: &random), using: &random),
                body: Self.text(words: Int.random(in: 0...12, using: &random), using: &random),
                section: index % 3 == 0 ? "news" : "blog")
        }
        let stored = try db.insert(contentsOf: articles)
        for _ in 0..<150 {
            var query = Self.text(words: Int.random(in: 1...3, using: &random), using: &random)
            if Bool.random(using: &random) { query = query.uppercased() }
            let expected = stored.filter { WordOracle.matches($0, query: query) }
            let found = try db.query(SearchArticle.self).matching(query).fetchAll()
            #expect(Set(found.compactMap(\.id)) == Set(expected.compactMap(\.id)), "\(query)")
            #expect(found.allSatisfy { WordOracle.matches($0, query: query) }, "\(query)")
            #expect(try db.query(SearchArticle.self).matching(query).count() == expected.count, "\(query)")
            #expect(
                try db.query(SearchArticle.self).matching(query).exists() == !expected.isEmpty, "\(query)")
            // Composed with where, order and limit: the same rows as Swift, in Swift's order.
            let news = try db.query(SearchArticle.self).matching(query).where { $0.section == "news" }
                .order { $0.id.descending }.limit(5).fetchAll()
            let expectedNews = expected.filter { $0.section == "news" }.sorted { $0.id! > $1.id! }.prefix(5)
            #expect(news == Array(expectedNews), "\(query)")
        }
    }

    @Test func aDocumentHoldingTheWordMoreOftenComesFirst() throws {
        let db = try Database(.inMemory)
        let bodies = [
            "swift filler filler filler filler", "swift swift swift swift filler",
            "swift swift filler filler filler",
            "other filler filler filler filler", "swift swift swift filler filler",
        ]
        for body in bodies { try db.insert(SearchArticle(id: nil, title: "t", body: body, section: "")) }
        let ranked = try db.query(SearchArticle.self).matching("swift").fetchAll().map(\.body)
        #expect(ranked == [bodies[1], bodies[4], bodies[2], bodies[0]])
        // Its own order wins over the rank.
        let byID = try db.query(SearchArticle.self).matching("swift").order { $0.id.ascending }.fetchAll()
        #expect(byID.map(\.body) == [bodies[0], bodies[1], bodies[2], bodies[4]])
    }

    @Test func caseAndDiacriticsAreIgnored() throws {
        let db = try Database(.inMemory)
        try db.insert(SearchArticle(id: nil, title: "Crème Brûlée", body: "NAÏVE Ångström", section: ""))
        for query in ["creme brulee", "CRÈME", "naive", "angstrom", "ÅNGSTRÖM brûlée", "cre\u{300}me"] {
            #expect(try db.query(SearchArticle.self).matching(query).count() == 1, "\(query)")
        }
        #expect(try db.query(SearchArticle.self).matching("crem").count() == 0)  // words, not prefixes
    }

    /// Text that is FTS5 syntax, or no valid syntax at all, is plain text: never an error, and
    /// never a match of a row lacking its words.
    @Test func hostileTextNeverThrowsNorMatchesRowsLackingItsWords() throws {
        let db = try Database(.inMemory)
        let bodies = [
            "swift and orm", "swift OR orm", "NOT swift", "near the title", "a b c", "quote \" here",
            "'; DROP TABLE articles; --", "zero\u{0}byte", "star * and caret ^ minus -",
        ]
        for body in bodies { try db.insert(SearchArticle(id: nil, title: "title", body: body, section: "")) }
        var random = SeededGenerator(seed: 5)
        let megabyte = String(
            (0..<(1 << 20)).map { _ in Array("abcdefgh \"*():^-+{}").randomElement(using: &random)! })
        let hostile = [
            "\"", "\"\"", "\"swift", "swift\"", "*", "swift*", "AND", "OR", "NOT", "swift AND", "OR orm",
            "NOT swift",
            "swift NOT orm", "NEAR(swift orm)", "NEAR(swift orm, 2)", "title:swift", "body: swift",
            "{title body}: a",
            "^swift", "-swift", "+swift", "(", ")", "(swift", "swift)", "swift OR", "a + b", "\u{0}",
            "swift\u{0}orm",
            "zero\u{0}byte", "'; DROP TABLE articles; --", "", "   ", "😀", "\"NEAR(\" AND OR ( ) \"",
            "* : ^ - +",
            "rowid:1", "rank:1", "articles_fts:swift", megabyte, "swift " + megabyte,
        ]
        for text in hostile {
            let label = String(text.prefix(40))
            let result = try db.searchAndOracle(text)
            #expect(result.found == result.expected, "\(label)")
            guard text.utf8.count < 1000 else { continue }  // the megabyte once is enough
            let found = try db.query(SearchArticle.self).matching(text).fetchAll()
            #expect(found.allSatisfy { WordOracle.matches($0, query: text) }, "\(label)")
            _ = try db.query(SearchArticle.self).matching(text).count()
        }
        #expect(try db.query(SearchArticle.self).matching("").fetchAll().isEmpty)
        #expect(try db.query(SearchArticle.self).matching("* ( ) \" ^").count() == 0)
        #expect(try db.query(SearchArticle.self).matching("NOT swift").count() == 1)  // both words
        #expect(try db.query(SearchArticle.self).matching("swift OR orm").count() == 1)
    }

    @Test func theRawFTS5LanguageIsOfferedUnderItsOwnName() throws {
        let db = try Database(.inMemory)
        for body in ["swift orm", "rust orm", "swiftly"] {
            try db.insert(SearchArticle(id: nil, title: "t", body: body, section: ""))
        }
        #expect(try db.query(SearchArticle.self).matching(fts5Query: "swift OR rust").count() == 2)
        #expect(try db.query(SearchArticle.self).matching(fts5Query: "swift*").count() == 2)
        #expect(try db.query(SearchArticle.self).matching(fts5Query: "orm NOT rust").count() == 1)
        // Both kinds compose: every search must hold.
        #expect(try db.query(SearchArticle.self).matching(fts5Query: "swift*").matching("orm").count() == 1)
        let error = #expect(throws: DatabaseError.self) {
            try db.query(SearchArticle.self).matching(fts5Query: "swift AND").fetchAll()
        }
        #expect(error?.message.contains("fts5: syntax error") == true)
    }

    @Test func composesWithProjectionsAndBulkChanges() throws {
        let db = try Database(.inMemory)
        for (index, body) in ["swift a", "swift b", "rust c", "swift d"].enumerated() {
            try db.insert(
                SearchArticle(id: nil, title: "t\(index)", body: body, section: index < 2 ? "x" : "y"))
        }
        struct Title: Decodable, Equatable { var title: String }
        let titles = try db.query(SearchArticle.self).matching("swift").order { $0.title.ascending }
            .select(Title.self).fetchAll()
        #expect(titles == [Title(title: "t0"), Title(title: "t1"), Title(title: "t3")])
        struct SectionCount: Decodable, Equatable {
            var section: String
            var n: Int
        }
        let counts = try db.query(SearchArticle.self).matching("swift").group(by: \.section)
            .select(SectionCount.self) { [$0.section.as("section"), $0.rowCount.as("n")] }
            .fetchAll()
        #expect(
            counts.sorted { $0.section < $1.section } == [
                .init(section: "x", n: 2), .init(section: "y", n: 1),
            ])
        #expect(try db.query(SearchArticle.self).matching("swift").max { $0.title } == "t3")
        #expect(
            try db.query(SearchArticle.self).matching("swift").where { $0.section == "y" }.deleteAll() == 1)
        #expect(
            try db.query(SearchArticle.self).matching("swift").updateAll { [$0.section.set(to: "z")] } == 2)
        #expect(try db.query(SearchArticle.self).where { $0.section == "z" }.count() == 2)
        try db.checkSearchIndex()
        #expect(
            try db.query(SearchArticle.self).matching("swift").fetchOne()?.body.hasPrefix("swift") == true)
    }

    @Test func snippetsMarkTheWordsFound() throws {
        let db = try Database(.inMemory)
        try db.insert(
            SearchArticle(
                id: nil, title: "Swift on Linux",
                body: "One two three four five six seven eight nine ten Swift eleven twelve thirteen",
                section: ""))
        let results = try db.query(SearchArticle.self).matching("swift")
            .fetchAll(
                withSnippetsOf: \.body, style: SnippetStyle(before: "<b>", after: "</b>", maximumTokens: 5))
        #expect(results.count == 1)
        #expect(results.first?.0.title == "Swift on Linux")
        #expect(results.first?.1 == "…nine ten <b>Swift</b> eleven twelve…")
        let titles = try db.query(SearchArticle.self).matching("linux").fetchAll(withSnippetsOf: \.title)
        #expect(titles.map(\.1) == ["Swift on [Linux]"])
        // Marks are bound text: quotes and SQL in them are shown, never run.
        let odd = try db.query(SearchArticle.self).matching("linux")
            .fetchAll(withSnippetsOf: \.title, style: SnippetStyle(before: "'\"(", after: "); --"))
        #expect(odd.map(\.1) == ["Swift on '\"(Linux); --"])
        #expect(throws: SchemaError.self) {
            try db.query(SearchArticle.self).matching("x").fetchAll(withSnippetsOf: \.section)
        }
        #expect(throws: SchemaError.self) {
            try db.query(SearchArticle.self).fetchAll(withSnippetsOf: \.body)
        }
    }

    /// On a file database, reads run on the reader pool, which never migrates: the writer has
    /// created the index first; a second `Database` on the file searches it as it is.
    @Test func aFileDatabaseSearchesOnItsReaders() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory.file("search.sqlite")
            let db = try Database(path: path)
            #expect(try await db.query(SearchArticle.self).matching("swift").fetchAll().isEmpty)
            try await db.insert(SearchArticle(id: nil, title: "Swift", body: "on a file", section: ""))
            #expect(try await db.query(SearchArticle.self).matching("swift file").count() == 1)
            let other = try Database(path: path)
            #expect(
                try await other.query(SearchArticle.self).matching("file").fetchAll().map(\.title) == [
                    "Swift"
                ])
        }
    }

    @Test func asyncAndObservation() async throws {
        let db = try Database(.inMemory)
        try await db.insert(SearchArticle(id: nil, title: "swift", body: "", section: ""))
        let query = db.query(SearchArticle.self).matching("swift")
        #expect(try await query.count() == 1)
        #expect(try await query.fetchAll().map(\.title) == ["swift"])
        var values = db.observe(query).makeAsyncIterator()
        #expect(try await values.next()?.map(\.title) == ["swift"])
        try await db.insert(SearchArticle(id: nil, title: "swift again", body: "", section: ""))
        #expect(try await values.next()?.count == 2)
        try await db.execute(sql: "UPDATE articles SET title = 'other' WHERE title = 'swift'")
        #expect(try await values.next()?.map(\.title) == ["swift again"])
    }
}
