import Foundation
import LiteRecord

/// A document of the full-text workload: title and body indexed.
struct Document: Model, Equatable {
    var id: Int64?
    var title: String
    var body: String

    static let schema = Schema<Document>(table: "documents").fullTextSearch(on: [\.title, \.body])
}

/// DESIGN.md's full-text workload: min(N, 1,000) searches of two words over N documents, each
/// fetching the 20 best matches.
///
/// N documents of 3 title words and 20 body words, drawn with a seeded generator from 1,000
/// words, are inserted once in setup in one in-memory database per side, with LiteRecord's
/// index and triggers (the C side runs LiteRecord's DDL). Each query holds two random words
/// of the vocabulary (about 50 matching documents each).
///
/// Measured: the searches. LiteRecord: `query(Document.self).matching("w1 w2").limit(20)
/// .fetchAll()`. C: the SQL LiteRecord generates for it, prepared once in setup; the user text
/// turned into the same FTS5 query (each word quoted; the C side splits on spaces only, which
/// is all this text needs, while LiteRecord splits any Unicode text into words), bound with the
/// limit, a `sqlite3_step` loop reading each row into the same ``Document``, reset. Both sides
/// fold each result into the same digest. Setup runs every query once on both sides and
/// compares the documents.
enum FullText {
    static let vocabularySize = 1_000
    static let limit = 20
    static func queries(_ size: Int) -> Int { min(size, 1_000) }
    /// The SQL LiteRecord runs for `matching(_:).limit(20)`, checked in setup.
    static let select =
        #"SELECT "documents".* FROM (SELECT rowid AS "literecord_match_rowid", rank AS "literecord_match_rank" "#
        + #"FROM "documents_fts" WHERE "documents_fts" MATCH ?) AS "literecord_match" CROSS JOIN "documents" "#
        + #"ON "documents"."id" = "literecord_match"."literecord_match_rowid" "#
        + #"ORDER BY "literecord_match"."literecord_match_rank" LIMIT ?"#

    struct Digest: Equatable {
        var rows = 0
        var keySum: Int64 = 0
        var last: [Document] = []

        @inline(__always)
        mutating func add(_ documents: [Document]) {
            rows += documents.count
            for document in documents { keySum &+= document.id ?? 0 }
            last = documents
        }
    }

    final class Fixture {
        let c: CDatabase
        let literecord: Database
        let statement: CStatement
        let texts: [String]
        var expected = Digest()

        init(c: CDatabase, literecord: Database, texts: [String]) throws {
            self.c = c
            self.literecord = literecord
            self.statement = try c.prepare(FullText.select)
            self.texts = texts
        }
    }

    static let workload = Workload(
        slug: "full-text",
        description: "query(Document.self).matching(\"w1 w2\").limit(20).fetchAll() over N documents, "
            + "min(N, 1,000) times",
        unit: "query",
        defaultSize: 100_000,
        operations: queries,
        setup: makeFixture,
        c: runC,
        literecord: runLiteRecord)

    // MARK: - Setup

    /// A pronounceable word for each index: `ba`, `be`, ... `bamo`, ...
    static func word(_ index: Int) -> String {
        let syllables = ["ba", "ke", "di", "mo", "lu", "sa", "ne", "ti", "ro", "fu"]
        var text = ""
        var rest = index
        repeat {
            text += syllables[rest % 10]
            rest /= 10
        } while rest > 0
        return text + "x"
    }

    static func makeDocuments(count: Int) -> [Document] {
        var generator = SeededGenerator(seed: 17)
        func words(_ count: Int) -> String {
            (0..<count).map { _ in word(Int.random(in: 0..<vocabularySize, using: &generator)) }
                .joined(separator: " ")
        }
        return (0..<count).map { _ in Document(id: nil, title: words(3).capitalized, body: words(20) + ".") }
    }

    @Sendable
    static func makeFixture(_ context: SetupContext) throws -> Fixture {
        let documents = makeDocuments(count: context.size)
        let literecord = try Database(.inMemory)
        let stored = try literecord.insert(contentsOf: documents)
        let ddl = try literecord.fetchAll(
            String.self,
            sql: """
                SELECT sql FROM sqlite_master
                WHERE name IN ('documents', 'documents_fts', 'documents_fts_replaced') OR type = 'trigger'
                ORDER BY rowid
                """)
        guard ddl.count == 8 else {
            throw FixtureError(
                description: "expected a table, an index, its replaced-rows table and 5 triggers, got \(ddl)")
        }
        let c = try CDatabase(path: ":memory:")
        for statement in ddl { try c.execute(statement) }
        let insert = try c.prepare(#"INSERT INTO "documents" ("title", "body") VALUES (?, ?)"#)
        try c.execute("BEGIN IMMEDIATE")
        for document in documents {
            try insert.bind(document.title, at: 1)
            try insert.bind(document.body, at: 2)
            try insert.run()
            try insert.reset()
        }
        try c.execute("COMMIT")

        var generator = SeededGenerator(seed: 18)
        let texts = (0..<queries(context.size)).map { _ in
            word(Int.random(in: 0..<vocabularySize, using: &generator)) + " "
                + word(Int.random(in: 0..<vocabularySize, using: &generator))
        }
        let fixture = try Fixture(c: c, literecord: literecord, texts: texts)
        let description = literecord.query(Document.self).matching(texts[0]).limit(limit).sqlDescription
        guard description.hasPrefix(select + " [") else {
            throw FixtureError(
                description: "LiteRecord's query is `\(description)`, the C side runs `\(select)`")
        }
        // FTS5's own statements on its shadow tables are traced as `-- ...`; the C side runs them too.
        let traced = try ItemModel.traceSQL(literecord) { _ = try queryLiteRecord(texts[0], literecord) }
            .filter { !$0.hasPrefix("-- ") }
        try ItemModel.verifyTrace(traced, expected: [select], operation: "matching(_:).limit(_:).fetchAll()")

        let byID = Dictionary(uniqueKeysWithValues: stored.map { ($0.id ?? 0, $0) })
        for text in texts {
            let fromC = try queryC(text, fixture.statement)
            let fromLiteRecord = try queryLiteRecord(text, literecord)
            guard fromC == fromLiteRecord, fromC.allSatisfy({ byID[$0.id ?? 0] == $0 }) else {
                throw FixtureError(description: "the two sides find different documents for \(text)")
            }
            fixture.expected.add(fromC)
        }
        // At full size the queries must find more rows than there are queries, so the timing
        // reads real results; the small sizes of a smoke run (--quick) need only find some.
        let fewestRows = context.size >= 10_000 ? texts.count + 1 : 1
        guard fixture.expected.rows >= fewestRows else {
            throw FixtureError(description: "the queries find too few documents: \(fixture.expected.rows)")
        }
        return fixture
    }

    // MARK: - C

    @Sendable
    private static func runC(_ fixture: Fixture, _ context: RoundContext) throws -> Duration {
        var digest = Digest()
        let elapsed = try Stopwatch.measure {
            digest = try queriesC(fixture.texts, fixture.statement)
        }
        try verify(digest, fixture: fixture, side: .c)
        return elapsed
    }

    @inline(never)
    static func queriesC(_ texts: [String], _ statement: CStatement) throws -> Digest {
        var digest = Digest()
        for text in texts { digest.add(try queryC(text, statement)) }
        return digest
    }

    /// One search on the C side: the words quoted as FTS5 strings, then the statement.
    @inline(__always)
    static func queryC(_ text: String, _ statement: CStatement) throws -> [Document] {
        let expression = text.split(separator: " ").map { "\"\($0)\"" }.joined(separator: " ")
        try statement.bind(expression, at: 1)
        try statement.bind(Int64(limit), at: 2)
        var documents: [Document] = []
        while try statement.step() {
            documents.append(
                Document(
                    id: statement.int64(at: 0), title: statement.string(at: 1), body: statement.string(at: 2))
            )
        }
        try statement.reset()
        return documents
    }

    // MARK: - LiteRecord

    @Sendable
    private static func runLiteRecord(_ fixture: Fixture, _ context: RoundContext) throws -> Duration {
        var digest = Digest()
        let elapsed = try Stopwatch.measure {
            digest = try queriesLiteRecord(fixture.texts, fixture.literecord)
        }
        try verify(digest, fixture: fixture, side: .literecord)
        return elapsed
    }

    @inline(never)
    static func queriesLiteRecord(_ texts: [String], _ database: Database) throws -> Digest {
        var digest = Digest()
        for text in texts { digest.add(try queryLiteRecord(text, database)) }
        return digest
    }

    @inline(__always)
    static func queryLiteRecord(_ text: String, _ database: Database) throws -> [Document] {
        try database.query(Document.self).matching(text).limit(limit).fetchAll()
    }

    private static func verify(_ digest: Digest, fixture: Fixture, side: Side) throws {
        guard digest != fixture.expected else { return }
        throw FixtureError(
            description: "\(side.rawValue) side's searches returned \(digest.rows) rows (key sum "
                + "\(digest.keySum)), expected \(fixture.expected.rows) (key sum \(fixture.expected.keySum))")
    }
}
