import LiteRecord

/// DESIGN.md's workload 6: a predicate over an indexed column returning ~1 % of the rows, run
/// 1,000 times with different values.
///
/// A table of N ``Item`` rows whose `score` takes 100 values, scattered over the table, is built
/// once in setup in one in-memory database per side; `score` has LiteRecord's index. The values
/// queried are drawn with a seeded generator, the same on both sides: min(N, 1,000) queries,
/// each returning about N / 100 models in key order.
///
/// Measured: the queries. LiteRecord: `query(Item.self).where { $0.score == x }.fetchAll()`.
/// C: the SQL LiteRecord generates for it, prepared once in setup; bind, a `sqlite3_step` loop
/// reading each row into the same ``Item`` (date parsed from its bytes by ``CDateText``, tags
/// by ``CStringArrayParser``), reset. Both sides fold each result into the same small
/// digest (rows, key sum, tag count) and keep the last result. Not measured: checking the digest
/// and the last result after each round. The setup also runs every query once on both sides and
/// compares every model with the expected ones.
enum IndexedQuery {
    /// How many distinct scores there are: each matches ~1 % of the rows.
    static let scoreBuckets = 100
    /// How many queries one measurement runs for a table of `size` rows.
    static func queries(_ size: Int) -> Int { min(size, 1_000) }
    /// The SQL LiteRecord runs for `where { $0.score == x }`, checked in setup.
    static let select = #"SELECT * FROM "items" WHERE ("score" = ?)"#

    /// What both sides compute from their results.
    struct Digest: Equatable {
        var rows = 0
        var keySum: Int64 = 0
        var tags = 0
        var last: [Item] = []

        @inline(__always)
        mutating func add(_ items: [Item]) {
            rows += items.count
            for item in items {
                keySum &+= item.id ?? 0
                tags += item.tags.count
            }
            last = items
        }
    }

    /// The two databases, the C side's statement and coder, the values queried and the
    /// expected digest.
    final class Fixture {
        let c: CDatabase
        let literecord: Database
        let statement: CStatement
        let codec: CItemCodec
        let scores: [Int]
        var expected = Digest()

        init(c: CDatabase, literecord: Database, codec: CItemCodec, scores: [Int]) throws {
            self.c = c
            self.literecord = literecord
            self.statement = try c.prepare(IndexedQuery.select)
            self.codec = codec
            self.scores = scores
        }
    }

    static let workload = Workload(
        slug: "indexed-query",
        description: "query(Item.self).where { $0.score == x }.fetchAll(), indexed, ~1 % of N rows, "
            + "min(N, 1,000) times",
        unit: "query",
        defaultSize: 100_000,
        operations: queries,
        setup: makeFixture,
        c: runC,
        literecord: runLiteRecord)

    // MARK: - Setup

    @Sendable
    static func makeFixture(_ context: SetupContext) throws -> Fixture {
        let items = ItemModel.makeItems(count: context.size, scoreBuckets: scoreBuckets)
        let codec = CItemCodec()
        let c = try ItemModel.filledCDatabase(items, ddl: ItemModel.literecordDDL(), codec: codec)
        let literecord = try ItemModel.filledLiteRecordDatabase(items)
        try ItemModel.verifySameSchema(c, literecord)
        try ItemModel.verify(
            dump: ItemModel.dump(literecord), expected: ItemModel.dump(c), side: .literecord,
            after: "filling the table")

        var generator = SeededGenerator(seed: 6)
        let scores = (0..<queries(context.size)).map { _ in
            Int.random(in: 0..<scoreBuckets, using: &generator)
        }
        let fixture = try Fixture(c: c, literecord: literecord, codec: codec, scores: scores)
        try ItemModel.verifyColumns(fixture.statement)

        // LiteRecord must run the C side's SQL.
        let description = literecord.query(Item.self).where { $0.score == scores[0] }.sqlDescription
        guard description.hasPrefix(select + " [") else {
            throw FixtureError(
                description: "LiteRecord's query is `\(description)`, the C side runs `\(select)`")
        }
        let traced = try ItemModel.traceSQL(literecord) { _ = try queryLiteRecord(scores[0], literecord) }
        try ItemModel.verifyTrace(traced, expected: [select], operation: "query(_:).where(_:).fetchAll()")

        // Every query once on both sides, every model compared with the expected ones.
        let stored = Dictionary(grouping: ItemModel.withKeys(items), by: \.score)
        for score in scores {
            let expected = stored[score] ?? []
            fixture.expected.add(expected)
            guard try queryC(score, fixture.statement, codec) == expected else {
                throw FixtureError(
                    description: "C side: score == \(score) does not return the expected models")
            }
            guard try queryLiteRecord(score, literecord) == expected else {
                throw FixtureError(
                    description: "LiteRecord side: score == \(score) does not return the expected models")
            }
        }
        return fixture
    }

    // MARK: - C

    @Sendable
    private static func runC(_ fixture: Fixture, _ context: RoundContext) throws -> Duration {
        var digest = Digest()
        let elapsed = try Stopwatch.measure {
            digest = try queriesC(fixture.scores, fixture.statement, fixture.codec)
        }
        try verify(digest, fixture: fixture, side: .c)
        return elapsed
    }

    /// The C side's measured work. Kept out of line so that a profiler can tell it apart.
    @inline(never)
    static func queriesC(_ scores: [Int], _ statement: CStatement, _ codec: CItemCodec) throws -> Digest {
        var digest = Digest()
        for score in scores {
            digest.add(try queryC(score, statement, codec))
        }
        return digest
    }

    /// One query on the C side.
    @inline(__always)
    static func queryC(_ score: Int, _ statement: CStatement, _ codec: CItemCodec) throws -> [Item] {
        try statement.bind(Int64(score), at: 1)
        var items: [Item] = []
        while try statement.step() {
            items.append(try codec.read(statement))
        }
        try statement.reset()
        return items
    }

    // MARK: - LiteRecord

    @Sendable
    private static func runLiteRecord(_ fixture: Fixture, _ context: RoundContext) throws -> Duration {
        var digest = Digest()
        let elapsed = try Stopwatch.measure {
            digest = try queriesLiteRecord(fixture.scores, fixture.literecord)
        }
        try verify(digest, fixture: fixture, side: .literecord)
        return elapsed
    }

    /// LiteRecord's measured work. Kept out of line so that a profiler can tell it apart.
    @inline(never)
    static func queriesLiteRecord(_ scores: [Int], _ database: Database) throws -> Digest {
        var digest = Digest()
        for score in scores {
            digest.add(try queryLiteRecord(score, database))
        }
        return digest
    }

    /// One query through LiteRecord's query API.
    @inline(__always)
    static func queryLiteRecord(_ score: Int, _ database: Database) throws -> [Item] {
        try database.query(Item.self).where { $0.score == score }.fetchAll()
    }

    // MARK: - Checks

    private static func verify(_ digest: Digest, fixture: Fixture, side: Side) throws {
        guard digest != fixture.expected else { return }
        let expected = fixture.expected
        throw FixtureError(
            description:
                "\(side.rawValue) side's queries returned \(digest.rows) rows (key sum \(digest.keySum), "
                + "\(digest.tags) tags; last query \(digest.last.count) rows), expected \(expected.rows) "
                + "(key sum \(expected.keySum), \(expected.tags) tags; last query \(expected.last.count) rows)"
                + (digest.last == expected.last ? "" : "; the last query's models differ"))
    }
}
