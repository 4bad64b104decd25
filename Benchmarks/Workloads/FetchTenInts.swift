import LiteRecord
import TenIntsFixture

/// DESIGN.md's workload 5: fetch N rows of 10 integer columns into a struct.
///
/// Pure decoding overhead: no text, no dates, no JSON, so almost all of the C side's time is
/// SQLite's own. A table of N rows of ten `INTEGER` columns, with small, large and negative
/// values, is built once in setup in one in-memory database per side (``TwinDatabases``).
///
/// Measured: fetching all N rows into `[TenInts]`. LiteRecord: `fetchAll(TenInts.self, sql:)`
/// (Codable). C: a `sqlite3_step` loop over a statement prepared once, ten
/// `sqlite3_column_int64` calls per row into the same struct. Not measured: building the
/// tables, and checking after each round that the side's array equals the expected values.
enum FetchTenInts {
    static let createTable = TenInts.createTable
    static let insert = TenInts.insert
    /// The query both sides run.
    static let select = TenInts.select
    /// Totals and storage classes: both sides must hold the same data (`total`, a double,
    /// since the sums of `f` and `i` overflow 64 bits).
    static let fingerprint = """
        SELECT count(*) || ' ' || total(a) || ' ' || total(b) || ' ' || total(c) || ' ' || total(d) || ' ' \
        || total(e) || ' ' || total(f) || ' ' || total(g) || ' ' || total(h) || ' ' || total(i) || ' ' \
        || total(j) || ' ' || group_concat(DISTINCT typeof(a) || typeof(b) || typeof(c) || typeof(d) \
        || typeof(e) || typeof(f) || typeof(g) || typeof(h) || typeof(i) || typeof(j)) FROM ints
        """

    /// The struct both sides fetch into (in `TenIntsFixture`, shared with the peak-memory probe).
    typealias TenInts = TenIntsFixture.TenInts

    /// The two databases, the C side's statement and the expected values.
    final class Fixture {
        let databases: TwinDatabases
        let statement: CStatement
        let expected: [TenInts]

        init(databases: TwinDatabases, expected: [TenInts]) throws {
            self.databases = databases
            self.statement = try databases.c.prepare(FetchTenInts.select)
            self.expected = expected
        }
    }

    static let workload = Workload(
        slug: "fetch-10-int",
        description: "fetch N rows of 10 INTEGER columns into [TenInts] (Decodable struct of 10 Int)",
        defaultSize: 100_000,
        setup: makeFixture,
        c: runC,
        literecord: runLiteRecord)

    // MARK: - Setup

    /// The row at `index` (from 0) of the table.
    static func value(at index: Int) -> TenInts {
        TenInts(index: index)
    }

    /// The table's rows, ``value(at:)`` for 0..<N, in one database per side.
    @Sendable
    static func makeFixture(_ context: SetupContext) throws -> Fixture {
        let expected = (0..<context.size).map(value(at:))
        let rows: [[DatabaseValue]] = expected.map { value in value.columns.map { .integer(Int64($0)) } }
        let databases = try TwinDatabases(
            createTable: createTable, insert: insert, rows: rows, fingerprint: fingerprint)
        return try Fixture(databases: databases, expected: expected)
    }

    // MARK: - C

    @Sendable
    private static func runC(_ fixture: Fixture, _ context: RoundContext) throws -> Duration {
        var values: [TenInts] = []
        let elapsed = try Stopwatch.measure {
            values = try fetchC(fixture.statement, count: fixture.expected.count)
        }
        try verify(values, fixture: fixture, side: .c)
        return elapsed
    }

    /// The C side's measured work: every row, then the reset. Kept out of line so that a
    /// profiler can tell it apart (`valgrind --toggle-collect`), like LiteRecord's `fetchAll`.
    ///
    /// The C side knows how many rows it stored, so it reserves the array once, as a C
    /// programmer would size a `malloc`; `count` is only a capacity, every row is still read.
    @inline(never)
    static func fetchC(_ statement: CStatement, count: Int) throws -> [TenInts] {
        var values: [TenInts] = []
        values.reserveCapacity(count)
        while try statement.step() {
            values.append(TenInts(columnsOf: statement.handle))
        }
        try statement.reset()
        return values
    }

    // MARK: - LiteRecord

    @Sendable
    private static func runLiteRecord(_ fixture: Fixture, _ context: RoundContext) throws -> Duration {
        let database = fixture.databases.literecord
        var values: [TenInts] = []
        let elapsed = try Stopwatch.measure {
            values = try database.fetchAll(TenInts.self, sql: SQL(select))
        }
        try verify(values, fixture: fixture, side: .literecord)
        return elapsed
    }

    // MARK: - Checks

    /// Makes sure a side fetched exactly the expected values: the count, the checksum, and
    /// every value.
    private static func verify(_ values: [TenInts], fixture: Fixture, side: Side) throws {
        guard values != fixture.expected else { return }
        func checksum(_ values: [TenInts]) -> String {
            let sum = values.reduce(0) { $0 &+ $1.a &+ $1.e &+ $1.j }
            return "\(values.count) rows, checksum \(sum)"
        }
        var problem = "\(checksum(values)), expected \(checksum(fixture.expected))"
        let common = min(values.count, fixture.expected.count)
        if let index = (0..<common).first(where: { values[$0] != fixture.expected[$0] }) {
            problem += "; row \(index) is \(values[index]), expected \(fixture.expected[index])"
        }
        throw FixtureError(description: "\(side.rawValue) side fetched \(problem)")
    }
}
