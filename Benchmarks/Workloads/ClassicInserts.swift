import LiteRecord

/// The classic claim: inserts take ~10× longer without a transaction; and raw SQL, as users
/// write it, against the same statements in C (`classic-transaction`, `raw-sql-find-by-key`).
///
/// N rows go into a file database (WAL, `synchronous = NORMAL`) with bound parameters, once in
/// autocommit mode (one implicit transaction per row) and once inside a single transaction,
/// through a reused `sqlite3_*` statement and through LiteRecord's raw SQL path (whose
/// statement cache reuses the prepared statement for the same SQL text).
///
/// Measured: preparing the insert (once), the N inserts, and for the transaction variant
/// `BEGIN` and `COMMIT`. Not measured: opening the database, creating the table, closing it,
/// and checking afterwards that the table holds exactly the expected rows.
enum ClassicInserts {
    static let createTable = """
        CREATE TABLE items(id INTEGER PRIMARY KEY, name TEXT NOT NULL, score INTEGER NOT NULL, \
        ratio REAL NOT NULL)
        """
    /// The insert both sides run; LiteRecord's interpolated SQL must produce exactly this text.
    static let insert = "INSERT INTO items(name, score, ratio) VALUES (?, ?, ?)"
    /// The statements LiteRecord's `transaction` runs (immediate is its default kind).
    static let begin = "BEGIN IMMEDIATE TRANSACTION"
    static let commit = "COMMIT TRANSACTION"

    /// One row's values, built in setup, the same for both sides.
    struct Item: Sendable {
        let name: String
        let score: Int
        let ratio: Double
    }

    /// The rows to insert and what the table must hold afterwards.
    struct Fixture: Sendable {
        let items: [Item]
        let expectedScoreSum: Int64
    }

    static let group = WorkloadGroup(
        slug: "classic-inserts",
        description: "the classic claim: inserts take ~10x longer without a transaction",
        workloads: [autocommit, transaction, FindByKey.rawSQLWorkload],
        notes: notes)

    static let autocommit = Workload(
        slug: "classic-autocommit",
        description: "insert N rows, autocommit: one implicit transaction per row",
        setup: makeFixture,
        c: { fixture, context in try runC(fixture, context, inTransaction: false) },
        literecord: { fixture, context in try runLiteRecord(fixture, context, inTransaction: false) })

    static let transaction = Workload(
        slug: "classic-transaction",
        description: "insert N rows inside one transaction",
        // The issue's seed scenario inserts 10,000 rows: at 2,000 a round lasts about 1 ms and
        // its timing is mostly noise.
        defaultSize: 10_000,
        setup: makeFixture,
        c: { fixture, context in try runC(fixture, context, inTransaction: true) },
        literecord: { fixture, context in try runLiteRecord(fixture, context, inTransaction: true) })

    // MARK: - Setup

    /// Deterministic values: distinct names of varying length, scores, fractional ratios.
    @Sendable
    static func makeFixture(_ context: SetupContext) throws -> Fixture {
        // Fail before any round if LiteRecord's interpolation does not build the C side's SQL.
        let item = Item(name: "", score: 0, ratio: 0)
        let text = literecordInsert(item).text
        guard text == insert else {
            throw FixtureError(description: "LiteRecord builds `\(text)`, the C side runs `\(insert)`")
        }
        let items = (0..<context.size).map { index in
            Item(
                name: "item-\(index)-\(String(repeating: "x", count: index % 17))",
                score: (index &* 7919) % 10_007, ratio: Double(index) / 7.0)
        }
        return Fixture(items: items, expectedScoreSum: items.reduce(0) { $0 + Int64($1.score) })
    }

    /// The insert as LiteRecord users write it, `execute(sql: "INSERT ... VALUES (\(name), ...)")`:
    /// the values are interpolated, hence bound, and the text is the same on every call, so the
    /// statement cache reuses one prepared statement.
    @inline(__always)
    private static func literecordInsert(_ item: Item) -> SQL {
        "INSERT INTO items(name, score, ratio) VALUES (\(item.name), \(item.score), \(item.ratio))"
    }

    // MARK: - C

    private static func runC(_ fixture: Fixture, _ context: RoundContext, inTransaction: Bool) throws
        -> Duration
    {
        let database = try CDatabase(path: context.databasePath())
        try database.execute(createTable)
        let elapsed = try Stopwatch.measure {
            if inTransaction { try database.execute(begin) }
            let statement = try database.prepare(insert)
            for item in fixture.items {
                try statement.bind(item.name, at: 1)
                try statement.bind(Int64(item.score), at: 2)
                try statement.bind(item.ratio, at: 3)
                try statement.run()
                try statement.reset()
            }
            if inTransaction { try database.execute(commit) }
        }
        try verify(
            count: database.int64("SELECT count(*) FROM items"),
            scoreSum: database.int64("SELECT sum(score) FROM items"), fixture: fixture, side: .c)
        return elapsed
    }

    // MARK: - LiteRecord

    private static func runLiteRecord(
        _ fixture: Fixture, _ context: RoundContext, inTransaction: Bool
    ) throws -> Duration {
        let database = try Database(path: context.databasePath())
        try database.execute(sql: SQL(createTable))
        let elapsed = try Stopwatch.measure {
            if inTransaction {
                try database.transaction { tx in
                    for item in fixture.items {
                        try tx.execute(sql: literecordInsert(item))
                    }
                }
            } else {
                for item in fixture.items {
                    try database.execute(sql: literecordInsert(item))
                }
            }
        }
        let row = try database.fetchOne(Row.self, sql: "SELECT count(*), sum(score) FROM items")
        try verify(
            count: row?.value(Int64.self, at: 0) ?? -1, scoreSum: row?.value(Int64.self, at: 1) ?? -1,
            fixture: fixture, side: .literecord)
        return elapsed
    }

    // MARK: - Checks and notes

    /// Makes sure a side inserted exactly the fixture's rows.
    private static func verify(count: Int64, scoreSum: Int64, fixture: Fixture, side: Side) throws {
        guard count == fixture.items.count, scoreSum == fixture.expectedScoreSum else {
            throw FixtureError(
                description: "\(side.rawValue) side left \(count) rows with score sum \(scoreSum); expected "
                    + "\(fixture.items.count) rows with score sum \(fixture.expectedScoreSum)")
        }
    }

    /// Per-row costs, the raw SQL rows' verdicts against their targets, and the autocommit /
    /// transaction slowdown of each side.
    @Sendable
    private static func notes(_ results: [WorkloadResult]) -> [String] {
        var lines: [String] = []
        for result in results {
            if DesignTargets.rawSQLTargets.contains(where: { $0.workload.slug == result.slug }) {
                lines += DesignTargets.notes([result])
                continue
            }
            lines.append(
                "\(result.slug): C \(Report.format(result.cMicrosecondsPerOperation, decimals: 2)) µs/row, "
                    + "LiteRecord \(Report.format(result.literecordMicrosecondsPerOperation, decimals: 2)) µs/row"
            )
        }
        guard let perRow = results.first(where: { $0.slug == autocommit.slug }),
            let batched = results.first(where: { $0.slug == transaction.slug })
        else { return lines }
        let cSlowdown = perRow.c.median / batched.c.median
        let literecordSlowdown = perRow.literecord.median / batched.literecord.median
        lines.append(
            "autocommit / transaction slowdown: C \(Report.format(cSlowdown, decimals: 1))×, "
                + "LiteRecord \(Report.format(literecordSlowdown, decimals: 1))× (the claim: ~10×)")
        return lines
    }

    struct FixtureError: Error, CustomStringConvertible {
        let description: String
    }
}
