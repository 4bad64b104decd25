import Foundation
import LiteRecord

/// DESIGN.md's workload 2 (tracker issue 3): fetch N rows into models.
///
/// A table of N rows of ``Item``: an integer primary key, text, an integer, a REAL, a Bool, a
/// `Date` stored as LiteRecord's default UTC text (`2023-03-08 20:27:41.0625`, made by
/// `DateStorage.text.databaseValue(for:)`) and a `[String]` stored as JSON text (`["orm","json"]`),
/// built once in setup in one database per side (``TwinDatabases``): in memory for `fetch-all`, a
/// WAL file for `file-fetch-all` (``Storage``), where LiteRecord reads on a connection of its
/// reader pool.
///
/// Measured: fetching all N rows into `[Item]`. LiteRecord: `fetchAll(Item.self, sql:)`, the
/// Codable path through `RowDecoder`. C: a `sqlite3_step` loop over a statement prepared once,
/// reading each column with `sqlite3_column_int64`, `_double`, `_text` and `_bytes` into the
/// same struct, the date parsed from its bytes (``CDateText``) and the tags by hand
/// (``CStringArrayParser``), as a careful C programmer writes them. Not measured: building the
/// tables, and checking after each round that the side's array equals the expected models.
///
/// `fetch-all-foundation-c` is the same workload against the older, weaker C side: the date
/// through LiteRecord's public `DateStorage.text.date(from:)`, the tags through one reused
/// `JSONDecoder`. It is an extra row; the target is measured against the hand-written C.
enum FetchAll {
    static let createTable = """
        CREATE TABLE items(id INTEGER PRIMARY KEY, name TEXT NOT NULL, score INTEGER NOT NULL, \
        ratio REAL NOT NULL, flag INTEGER NOT NULL, created TEXT NOT NULL, tags TEXT NOT NULL)
        """
    static let insert = """
        INSERT INTO items(id, name, score, ratio, flag, created, tags) VALUES (?, ?, ?, ?, ?, ?, ?)
        """
    /// The query both sides run.
    static let select = "SELECT id, name, score, ratio, flag, created, tags FROM items"
    /// Sums, lengths and storage classes: both sides must hold the same data.
    static let fingerprint = """
        SELECT count(*) || ' ' || sum(id) || ' ' || sum(score) || ' ' || total(ratio) || ' ' || sum(flag) \
        || ' ' || sum(length(name)) || ' ' || sum(length(created)) || ' ' || sum(length(tags)) || ' ' \
        || group_concat(DISTINCT typeof(id) || typeof(name) || typeof(score) || typeof(ratio) \
        || typeof(flag) || typeof(created) || typeof(tags)) FROM items
        """

    /// The model both sides fetch into.
    struct Item: Decodable, Equatable, Sendable {
        var id: Int64?
        var name: String
        var score: Int
        var ratio: Double
        var flag: Bool
        var created: Date
        var tags: [String]
    }

    /// The two databases, the C side's statement and JSON decoder, and the expected models.
    final class Fixture {
        let databases: TwinDatabases
        let statement: CStatement
        let jsonDecoder = JSONDecoder()
        let expected: [Item]

        init(databases: TwinDatabases, expected: [Item]) throws {
            self.databases = databases
            self.statement = try databases.c.prepare(FetchAll.select)
            self.expected = expected
        }
    }

    static let workload = make(on: .memory)
    static let fileWorkload = make(on: .file)
    /// `fetch-all` against the older C side: the date through `DateStorage.text`, the tags
    /// through one `JSONDecoder` (an extra row; the target is measured against the hand-written C).
    static let foundationWorkload = Workload(
        slug: "fetch-all-foundation-c",
        description:
            "fetch-all, the C side reading the date with DateStorage.text and the tags with JSONDecoder",
        defaultSize: 100_000,
        setup: { try makeFixture($0, storage: .memory) },
        c: { fixture, context in try runC(fixture, context, coding: .foundation) },
        literecord: runLiteRecord)

    /// The workload with its databases on `storage`.
    static func make(on storage: Storage) -> Workload {
        Workload(
            on: storage, slug: "fetch-all",
            description: "fetch N rows (7 columns: date text, JSON [String]) into [Item] Decodable models",
            defaultSize: 100_000,
            setup: makeFixture, c: { fixture, context in try runC(fixture, context, coding: .handWritten) },
            literecord: runLiteRecord)
    }

    // MARK: - Setup

    private static let tagWords = ["swift", "sqlite", "orm", "fast", "json", "codable"]

    /// Deterministic rows: names of varying length, dates with 0 to 4 fraction digits, 0 to 3 tags.
    @Sendable
    static func makeFixture(_ context: SetupContext, storage: Storage) throws -> Fixture {
        let encoder = JSONEncoder()
        var expected: [Item] = []
        var rows: [[DatabaseValue]] = []
        expected.reserveCapacity(context.size)
        rows.reserveCapacity(context.size)
        for index in 0..<context.size {
            let item = Item(
                id: Int64(index + 1),
                name: "item-\(index)-\(String(repeating: "x", count: index % 17))",
                score: (index &* 7919) % 10_007,
                ratio: Double(index) / 7.0,
                flag: index % 3 == 0,
                // From 2023-03-08 20:26:40 UTC, about a minute apart, in sixteenths of a second.
                created: Date(timeIntervalSinceReferenceDate: 700_000_000 + Double(index) * 61.0625),
                tags: (0..<(index % 4)).map { tagWords[(index + 5 * $0) % tagWords.count] })
            rows.append([
                .integer(item.id ?? 0), .text(item.name), .integer(Int64(item.score)), .real(item.ratio),
                .integer(item.flag ? 1 : 0), try DateStorage.text.databaseValue(for: item.created),
                .text(String(decoding: try encoder.encode(item.tags), as: UTF8.self)),
            ])
            expected.append(item)
        }
        let databases = try TwinDatabases(
            createTable: createTable, insert: insert, rows: rows, fingerprint: fingerprint,
            cSite: storage.site("c.sqlite", in: context.directory),
            literecordSite: storage.site("literecord.sqlite", in: context.directory))
        return try Fixture(databases: databases, expected: expected)
    }

    // MARK: - C

    private static func runC(_ fixture: Fixture, _ context: RoundContext, coding: CItemCodec.Coding) throws
        -> Duration
    {
        var items: [Item] = []
        let elapsed = try Stopwatch.measure {
            switch coding {
            case .foundation: items = try fetchC(fixture.statement, fixture.jsonDecoder)
            case .handWritten: items = try fetchCByHand(fixture.statement, count: fixture.expected.count)
            }
        }
        try verify(items, fixture: fixture, side: .c)
        return elapsed
    }

    /// The C side's measured work: every row, then the reset. Kept out of line so that a
    /// profiler can tell it apart (`valgrind --toggle-collect`), like LiteRecord's `fetchAll`.
    @inline(never)
    static func fetchC(_ statement: CStatement, _ decoder: JSONDecoder) throws -> [Item] {
        var items: [Item] = []
        while try statement.step() {
            items.append(try readItem(statement, decoder))
        }
        try statement.reset()
        return items
    }

    /// As ``fetchC(_:_:)``, with the date parsed from the bytes by ``CDateText`` and the tags by
    /// ``CStringArrayParser``: what a C programmer writes. The C side knows how many rows it
    /// stored, so it reserves the array once (`count` is only a capacity).
    @inline(never)
    static func fetchCByHand(_ statement: CStatement, count: Int) throws -> [Item] {
        var items: [Item] = []
        items.reserveCapacity(count)
        while try statement.step() {
            items.append(
                Item(
                    id: statement.isNull(at: 0) ? nil : statement.int64(at: 0),
                    name: statement.string(at: 1),
                    score: Int(statement.int64(at: 2)),
                    ratio: statement.double(at: 3),
                    flag: statement.int64(at: 4) != 0,
                    created: Date(
                        timeIntervalSinceReferenceDate: try CDateText.read(statement.textBytes(at: 5))),
                    tags: try CStringArrayParser.parse(statement.textBytes(at: 6))))
        }
        try statement.reset()
        return items
    }

    /// One row, read column by column as hand-written code does.
    @inline(__always)
    private static func readItem(_ statement: CStatement, _ decoder: JSONDecoder) throws -> Item {
        Item(
            id: statement.isNull(at: 0) ? nil : statement.int64(at: 0),
            name: statement.string(at: 1),
            score: Int(statement.int64(at: 2)),
            ratio: statement.double(at: 3),
            flag: statement.int64(at: 4) != 0,
            created: try DateStorage.text.date(from: .text(statement.string(at: 5))),
            tags: try decoder.decode([String].self, from: Data(statement.textBytes(at: 6))))
    }

    // MARK: - LiteRecord

    @Sendable
    private static func runLiteRecord(_ fixture: Fixture, _ context: RoundContext) throws -> Duration {
        let database = fixture.databases.literecord
        var items: [Item] = []
        let elapsed = try Stopwatch.measure {
            items = try database.fetchAll(Item.self, sql: SQL(select))
        }
        try verify(items, fixture: fixture, side: .literecord)
        return elapsed
    }

    // MARK: - Checks

    /// Makes sure a side fetched exactly the expected models: the count, the checksums, and
    /// every value.
    private static func verify(_ items: [Item], fixture: Fixture, side: Side) throws {
        guard items != fixture.expected else { return }
        func checksum(_ items: [Item]) -> String {
            let scores = items.reduce(0) { $0 + $1.score }
            let tags = items.reduce(0) { $0 + $1.tags.count }
            return "\(items.count) items, score sum \(scores), \(tags) tags"
        }
        var problem = "\(checksum(items)), expected \(checksum(fixture.expected))"
        let common = min(items.count, fixture.expected.count)
        if let index = (0..<common).first(where: { items[$0] != fixture.expected[$0] }) {
            problem += "; row \(index) is \(items[index]), expected \(fixture.expected[index])"
        }
        throw FixtureError(description: "\(side.rawValue) side fetched \(problem)")
    }
}
