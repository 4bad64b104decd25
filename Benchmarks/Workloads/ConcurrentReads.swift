import Foundation
import LiteRecord

/// Tracker issue 6: reads per second with one writer busy, for 1 and 4 reader threads.
///
/// A file database (WAL, `synchronous = NORMAL`) holding N ``Item`` rows is built once by
/// LiteRecord in setup and copied afresh for every run. During a fixed wall-clock window, one
/// writer thread inserts ``Item`` models continuously, each in its own `IMMEDIATE` transaction,
/// while K reader threads each look up models by seeded random keys in 1...N; what counts is
/// how many reads and inserts complete per second (``ThreadTeam``).
///
/// LiteRecord: one `Database` with `maximumReaderCount = 4` (for K = 1 too); the writer calls
/// `write { try $0.insert(&item) }`, each reader `find(Item.self, id:)`, which runs on a
/// connection of the database's reader pool. C: the writer thread and each reader thread open
/// their own connection (``CDatabase``) on the same file; the writer runs `BEGIN IMMEDIATE
/// TRANSACTION`, the model insert and `COMMIT TRANSACTION` through three statements prepared
/// once, each reader the model `SELECT` prepared once, reading the row into an ``Item`` as
/// ``FindByKey`` does. The setup checks, with LiteRecord's trace hook, that both sides run the
/// same SQL. Not counted: opening the connections, one warm-up lookup per reader, and checking
/// afterwards that every lookup found its model and that the table grew by exactly the
/// inserts counted.
///
/// The runs are interleaved: every round runs K = 1 and K = 4, each on both sides, the side
/// that goes first alternating. The results are medians over the rounds after a warm-up round.
enum ConcurrentReads {
    static let slug = "concurrent-reads"
    /// `--filter` matches the slug or this group name.
    static let group = "concurrency"
    static let description =
        "1 writer thread inserting Items while K reader threads find(Item.self, id:) by random key, "
        + "file (WAL, synchronous NORMAL); reads/s and inserts/s"
    /// The reader thread counts compared.
    static let readerCounts = [1, 4]
    /// LiteRecord's reader pool size in every run (its default).
    static let maximumReaderCount = 4
    /// Rows seeded, when the command line sets no `--size`.
    static let defaultSize = 100_000
    /// The window of each run, and under `--quick`.
    static let window: Duration = .seconds(1)
    static let quickWindow: Duration = .milliseconds(200)
    /// How many distinct models the writer cycles through.
    private static let writerPoolSize = 1_000
    static let beginImmediate = "BEGIN IMMEDIATE TRANSACTION"

    /// Whether `--filter` selects this workload.
    static func isSelected(by filter: String?) -> Bool {
        guard let filter else { return true }
        return slug.localizedCaseInsensitiveContains(filter) || group.localizedCaseInsensitiveContains(filter)
    }

    /// N for these options: `--size`, else ``Options/quickSize`` under `--quick`, else
    /// ``defaultSize``.
    static func size(_ options: Options) -> Int {
        options.size ?? (options.quick ? Options.quickSize : defaultSize)
    }

    /// The window for these options.
    static func window(_ options: Options) -> Duration {
        options.quick ? quickWindow : window
    }

    /// The seeded file to copy, and what both sides insert and look up.
    struct Fixture: Sendable {
        let seedPath: String
        let size: Int
        let writerItems: [Item]
    }

    // MARK: - Running

    /// Runs every round and returns the medians.
    ///
    /// - Throws: ``RunError`` wrapping the first failure, with the side and round.
    static func run(options: Options, scratch: ScratchDirectory) throws -> ConcurrencyResult {
        let size = size(options)
        let window = window(options)
        let setupDirectory = try scratch.makeSubdirectory("\(slug)-setup")
        let fixture: Fixture
        do {
            fixture = try makeFixture(size: size, directory: setupDirectory)
        } catch {
            throw RunError(slug: slug, side: nil, round: nil, underlying: error)
        }
        var samples = readerCounts.map { ConcurrencySamples(readers: $0) }
        for round in 0...options.rounds {
            Console.progress(
                round == 0 ? "[\(slug)] warm-up" : "[\(slug)] round \(round)/\(options.rounds)")
            for (index, readers) in readerCounts.enumerated() {
                let order: [Side] = (round + index) % 2 == 0 ? [.c, .literecord] : [.literecord, .c]
                for side in order {
                    let rates = try runOnce(
                        fixture, side: side, readers: readers, window: window, round: round, scratch: scratch)
                    if round > 0 { samples[index].append(rates, side: side) }
                }
            }
        }
        try scratch.remove(setupDirectory)
        return ConcurrencyResult(
            size: size, window: window, rounds: options.rounds, maximumReaderCount: maximumReaderCount,
            rows: samples)
    }

    /// One side, one reader count, one round, on a fresh copy of the seeded file.
    private static func runOnce(
        _ fixture: Fixture, side: Side, readers: Int, window: Duration, round: Int, scratch: ScratchDirectory
    ) throws -> ConcurrencyRates {
        do {
            let directory = try scratch.makeSubdirectory("\(slug)-\(readers)-\(side.rawValue)-\(round)")
            let path = directory.appendingPathComponent("concurrent.sqlite").path
            try FileManager.default.copyItem(atPath: fixture.seedPath, toPath: path)
            let rates =
                switch side {
                case .c: try runC(fixture, path: path, readers: readers, window: window)
                case .literecord: try runLiteRecord(fixture, path: path, readers: readers, window: window)
                }
            try scratch.remove(directory)
            return rates
        } catch {
            throw RunError(slug: "\(slug)-\(readers)", side: side, round: round, underlying: error)
        }
    }

    // MARK: - Setup

    /// Seeds the file with LiteRecord, checks that LiteRecord runs the C side's SQL, and leaves
    /// one closed file with an empty WAL.
    static func makeFixture(size: Int, directory: URL) throws -> Fixture {
        let seedPath = directory.appendingPathComponent("seed.sqlite").path
        let writerItems = ItemModel.makeItems(count: writerPoolSize)
        do {
            let database = try ItemModel.filledLiteRecordDatabase(
                ItemModel.makeItems(count: size), at: .file(seedPath))
            guard database.readsInParallel else {
                throw FixtureError(description: "LiteRecord does not read in parallel on \(seedPath)")
            }
            let found = try ItemModel.traceSQL(database) { _ = try database.find(Item.self, id: 1) }
            try ItemModel.verifyTrace(found, expected: [ItemModel.find], operation: "find(_:id:)")
            let inserted = try ItemModel.traceSQL(database) {
                var item = writerItems[0]
                try database.write { try $0.insert(&item) }
            }
            try ItemModel.verifyTrace(
                inserted, expected: [beginImmediate, ItemModel.insert, ItemModel.commit],
                operation: "write { insert(&item) }")
            try database.execute(sql: "DELETE FROM items WHERE id > \(size)")
            try database.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)")
        }
        return Fixture(seedPath: seedPath, size: size, writerItems: writerItems)
    }

    // MARK: - C

    private static func runC(_ fixture: Fixture, path: String, readers: Int, window: Duration) throws
        -> ConcurrencyRates
    {
        let writer: ThreadTeam.Member = {
            let database = try CDatabase(path: path)
            let begin = try database.prepare(beginImmediate)
            let insert = try database.prepare(ItemModel.insert)
            let commit = try database.prepare(ItemModel.commit)
            let codec = CItemCodec()
            var next = 0
            return {
                let item = fixture.writerItems[next % fixture.writerItems.count]
                next += 1
                try begin.run()
                try begin.reset()
                try codec.bindInsert(item, to: insert)
                try insert.run()
                try insert.reset()
                try verifyNewKey(database.lastInsertRowID, fixture: fixture)
                try commit.run()
                try commit.reset()
            }
        }
        let reader: (Int) -> ThreadTeam.Member = { index in
            {
                let database = try CDatabase(path: path)
                let statement = try database.prepare(ItemModel.find)
                let codec = CItemCodec()
                return try lookups(fixture, seed: UInt64(index)) { key in
                    try statement.bind(key, at: 1)
                    let item = try statement.step() ? try codec.read(statement) : nil
                    try statement.reset()
                    return item
                }
            }
        }
        let outcome = try ThreadTeam.run([writer] + (0..<readers).map(reader), for: window)
        let rows = try CDatabase(path: path).int64("SELECT count(*) FROM items")
        return try rates(outcome, rows: rows, fixture: fixture, side: .c)
    }

    // MARK: - LiteRecord

    private static func runLiteRecord(_ fixture: Fixture, path: String, readers: Int, window: Duration)
        throws -> ConcurrencyRates
    {
        var configuration = Configuration()
        configuration.maximumReaderCount = maximumReaderCount
        let database = try Database(path: path, configuration: configuration)
        try database.migrate(Item.self)
        let writer: ThreadTeam.Member = {
            var next = 0
            return {
                var item = fixture.writerItems[next % fixture.writerItems.count]
                next += 1
                try database.write { try $0.insert(&item) }
                try verifyNewKey(item.id, fixture: fixture)
            }
        }
        let reader: (Int) -> ThreadTeam.Member = { index in
            {
                try lookups(fixture, seed: UInt64(index)) { key in try database.find(Item.self, id: key) }
            }
        }
        let outcome = try ThreadTeam.run([writer] + (0..<readers).map(reader), for: window)
        let rows = try database.count(Item.self)
        return try rates(outcome, rows: Int64(rows), fixture: fixture, side: .literecord)
    }

    // MARK: - Shared

    /// A reader's operation: one lookup of a seeded random key, which must find its model.
    /// Does one warm-up lookup first.
    private static func lookups(
        _ fixture: Fixture, seed: UInt64, _ find: @escaping (Int64) throws -> Item?
    ) throws -> () throws -> Void {
        var generator = SeededGenerator(seed: 1_000 + seed)
        let size = Int64(fixture.size)
        func lookup(_ key: Int64) throws {
            guard let item = try find(key), item.id == key else {
                throw FixtureError(description: "the lookup of key \(key) did not find its model")
            }
        }
        try lookup(1)
        return { try lookup(Int64.random(in: 1...size, using: &generator)) }
    }

    /// Makes sure an insert got a key after the seeded rows.
    @inline(__always)
    private static func verifyNewKey(_ key: Int64?, fixture: Fixture) throws {
        guard let key, key > fixture.size else {
            throw FixtureError(description: "an insert got the key \(key.map(String.init) ?? "nil")")
        }
    }

    /// Rates of a run, after checking that the table grew by exactly the inserts counted.
    private static func rates(_ outcome: ThreadTeam.Outcome, rows: Int64, fixture: Fixture, side: Side)
        throws -> ConcurrencyRates
    {
        let writes = outcome.counts[0]
        guard rows == Int64(fixture.size + writes) else {
            throw FixtureError(
                description: "\(side.rawValue) side's table holds \(rows) rows after \(writes) inserts into "
                    + "\(fixture.size)")
        }
        let reads = outcome.counts.dropFirst().reduce(0, +)
        return ConcurrencyRates(readsPerSecond: outcome.rate(reads), writesPerSecond: outcome.rate(of: 0))
    }
}
