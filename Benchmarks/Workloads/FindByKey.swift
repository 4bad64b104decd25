import LiteRecord

/// DESIGN.md's workload 3: find models by primary key, 10,000 random keys.
///
/// A table of N ``Item`` rows is built once in setup in one database per side (the C side's
/// insert code and LiteRecord's, checked to store the same values): in memory for
/// `find-by-key`, a WAL file for `file-find-by-key` (``Storage``), where LiteRecord's `find`
/// runs on a connection of its reader pool. The keys are
/// drawn with a seeded generator from 1...N, the same on both sides: min(N, 10,000) of them.
///
/// Measured: the lookups. LiteRecord: `find(Item.self, id:)` for each key. C: the same
/// `SELECT * FROM "items" WHERE "id" = ?` prepared once in setup, bind, one step, the row read
/// into the same ``Item`` (the date parsed from its bytes by ``CDateText``, the tags by
/// ``CStringArrayParser``), reset. Not measured: checking after each round that every
/// lookup returned the expected model.
enum FindByKey {
    /// How many lookups one measurement makes for a table of `size` rows.
    static func lookups(_ size: Int) -> Int { min(size, 10_000) }

    /// The two databases, the C side's statement and coder, the keys and the expected models.
    final class Fixture {
        let c: CDatabase
        let literecord: Database
        let statement: CStatement
        let codec: CItemCodec
        let keys: [Int64]
        let expected: [Item]

        init(c: CDatabase, literecord: Database, codec: CItemCodec, keys: [Int64], expected: [Item]) throws {
            self.c = c
            self.literecord = literecord
            self.statement = try c.prepare(ItemModel.find)
            self.codec = codec
            self.keys = keys
            self.expected = expected
        }
    }

    static let workload = make(on: .memory)
    static let fileWorkload = make(on: .file)

    /// The same lookups written as raw SQL, as users of `fetchAll(_:sql:)` write them: the key
    /// interpolated (bound), the row decoded into ``Item`` as a plain `Decodable`. The C side
    /// is the same prepared statement.
    static let rawSQLWorkload = Workload(
        on: .memory, slug: "raw-sql-find-by-key",
        description:
            "fetchAll(Item.self, sql: \"SELECT * FROM items WHERE id = \\(key)\") for min(N, 10,000) keys",
        unit: "lookup",
        defaultSize: 100_000,
        operations: lookups,
        setup: makeFixture, c: runC, literecord: runLiteRecordRawSQL)

    /// The workload with its databases on `storage`.
    static func make(on storage: Storage) -> Workload {
        Workload(
            on: storage, slug: "find-by-key",
            description: "find(Item.self, id:) for min(N, 10,000) seeded random keys in a table of N Items",
            unit: "lookup",
            defaultSize: 100_000,
            operations: lookups,
            setup: makeFixture, c: runC, literecord: runLiteRecord)
    }

    // MARK: - Setup

    @Sendable
    static func makeFixture(_ context: SetupContext, storage: Storage) throws -> Fixture {
        let items = ItemModel.makeItems(count: context.size)
        let codec = CItemCodec()
        let c = try ItemModel.filledCDatabase(
            items, ddl: ItemModel.literecordDDL(), codec: codec,
            at: storage.site("c.sqlite", in: context.directory))
        let literecord = try ItemModel.filledLiteRecordDatabase(
            items, at: storage.site("literecord.sqlite", in: context.directory))
        try ItemModel.verifySameSchema(c, literecord)
        try ItemModel.verify(
            dump: ItemModel.dump(literecord), expected: ItemModel.dump(c), side: .literecord,
            after: "filling the table")

        var generator = SeededGenerator(seed: 3)
        let keys = (0..<lookups(context.size)).map { _ in
            Int64.random(in: 1...Int64(context.size), using: &generator)
        }
        let stored = ItemModel.withKeys(items)
        let fixture = try Fixture(
            c: c, literecord: literecord, codec: codec, keys: keys,
            expected: keys.map { stored[Int($0) - 1] })
        try ItemModel.verifyColumns(fixture.statement)
        let traced = try ItemModel.traceSQL(literecord) { _ = try literecord.find(Item.self, id: keys[0]) }
        try ItemModel.verifyTrace(traced, expected: [ItemModel.find], operation: "find(_:id:)")
        return fixture
    }

    // MARK: - C

    @Sendable
    private static func runC(_ fixture: Fixture, _ context: RoundContext) throws -> Duration {
        var items: [Item] = []
        let elapsed = try Stopwatch.measure {
            items = try findC(fixture.keys, fixture.statement, fixture.codec)
        }
        try verify(items, fixture: fixture, side: .c)
        return elapsed
    }

    /// The C side's measured work. Kept out of line so that a profiler can tell it apart.
    @inline(never)
    static func findC(_ keys: [Int64], _ statement: CStatement, _ codec: CItemCodec) throws -> [Item] {
        var items: [Item] = []
        items.reserveCapacity(keys.count)
        for key in keys {
            try statement.bind(key, at: 1)
            if try statement.step() {
                items.append(try codec.read(statement))
            }
            try statement.reset()
        }
        return items
    }

    // MARK: - LiteRecord

    @Sendable
    private static func runLiteRecord(_ fixture: Fixture, _ context: RoundContext) throws -> Duration {
        var items: [Item] = []
        let elapsed = try Stopwatch.measure {
            items = try findLiteRecord(fixture.keys, fixture.literecord)
        }
        try verify(items, fixture: fixture, side: .literecord)
        return elapsed
    }

    /// LiteRecord's measured work. Kept out of line so that a profiler can tell it apart.
    @inline(never)
    static func findLiteRecord(_ keys: [Int64], _ database: Database) throws -> [Item] {
        var items: [Item] = []
        items.reserveCapacity(keys.count)
        for key in keys {
            if let item = try database.find(Item.self, id: key) {
                items.append(item)
            }
        }
        return items
    }

    @Sendable
    private static func runLiteRecordRawSQL(_ fixture: Fixture, _ context: RoundContext) throws -> Duration {
        var items: [Item] = []
        let elapsed = try Stopwatch.measure {
            items = try findLiteRecordRawSQL(fixture.keys, fixture.literecord)
        }
        try verify(items, fixture: fixture, side: .literecord)
        return elapsed
    }

    /// LiteRecord's measured work through raw SQL. Kept out of line for a profiler.
    @inline(never)
    static func findLiteRecordRawSQL(_ keys: [Int64], _ database: Database) throws -> [Item] {
        var items: [Item] = []
        items.reserveCapacity(keys.count)
        for key in keys {
            items += try database.fetchAll(Item.self, sql: #"SELECT * FROM "items" WHERE "id" = \#(key)"#)
        }
        return items
    }

    // MARK: - Checks

    /// Makes sure every lookup found its expected model.
    private static func verify(_ items: [Item], fixture: Fixture, side: Side) throws {
        guard items != fixture.expected else { return }
        var problem = "\(items.count) models for \(fixture.keys.count) keys"
        let common = min(items.count, fixture.expected.count)
        if let index = (0..<common).first(where: { items[$0] != fixture.expected[$0] }) {
            problem += "; lookup \(index) (key \(fixture.keys[index])) gave \(items[index]), expected "
            problem += "\(fixture.expected[index])"
        }
        throw FixtureError(description: "\(side.rawValue) side found \(problem)")
    }
}
