import Foundation
import LiteRecord

/// DESIGN.md's workload 4: update N models one by one in one transaction.
///
/// Every round, each side gets a fresh database holding the same N ``Item`` rows (filled by
/// its own insert code, untimed), then updates every row to new values: another name, score (so
/// the index on `score` changes too), ratio, flag, date and tags. The database is in memory for
/// `update`, a WAL file in the round's directory for `file-update` (``Storage``).
///
/// Measured: the transaction and the N updates. LiteRecord: `transaction { tx in ...
/// try tx.update(item) }`. C: `BEGIN IMMEDIATE TRANSACTION`, the same `UPDATE ... WHERE "id" = ?`
/// text prepared once, seven binds per row (date and tags written by hand, ``CDateText`` and
/// ``CStringArrayWriter``; setup checks both sides store the same bytes), step, the `sqlite3_changes` check LiteRecord makes (a missing row is
/// an error), reset, `COMMIT TRANSACTION`. Not measured: filling the table, and checking
/// afterwards that it holds exactly the updated rows (every value, as text).
enum ModelUpdates {
    /// The rows to start from, the updated models, and what the table must hold afterwards.
    final class Fixture {
        let items: [Item]
        let updated: [Item]
        let ddl: [String]
        let codec: CItemCodec
        let expectedDump: String
        let storage: Storage

        init(
            items: [Item], updated: [Item], ddl: [String], codec: CItemCodec, expectedDump: String,
            storage: Storage
        ) {
            self.items = items
            self.storage = storage
            self.updated = updated
            self.ddl = ddl
            self.codec = codec
            self.expectedDump = expectedDump
        }
    }

    static let workload = make(on: .memory)
    static let fileWorkload = make(on: .file)
    /// The same workload against the older C side: date through `DateStorage.text`, tags
    /// through `JSONEncoder` (an extra row; the target is measured against the hand-written C).
    static let foundationWorkload = make(on: .memory, coding: .foundation)

    /// The workload with its databases on `storage`, its C side coding as `coding` says.
    static func make(on storage: Storage, coding: CItemCodec.Coding = .handWritten) -> Workload {
        Workload(
            on: storage, slug: coding == .foundation ? "update-foundation-c" : "update",
            description: "update(item) for each of N Item models in one transaction (all columns rewritten)"
                + (coding == .foundation ? " (C side: DateStorage.text and JSONEncoder)" : ""),
            defaultSize: 100_000,
            setup: { context, storage in try makeFixture(context, storage: storage, coding: coding) },
            c: runC, literecord: runLiteRecord)
    }

    // MARK: - Setup

    /// New values for every column but the key.
    private static func updatedValues(_ item: Item) -> Item {
        var item = item
        item.name += "-updated"
        item.score = (item.score + 1) % 10_007
        item.ratio = item.ratio * 2 + 0.5
        item.flag.toggle()
        item.created += 0.5
        item.tags = item.tags.isEmpty ? ["updated"] : Array(item.tags.dropFirst())
        return item
    }

    /// Checks that LiteRecord runs the C side's SQL, then updates once on each side: both tables
    /// must be equal, and LiteRecord must read back exactly the updated models.
    @Sendable
    static func makeFixture(
        _ context: SetupContext, storage: Storage, coding: CItemCodec.Coding
    ) throws -> Fixture {
        let items = ItemModel.makeItems(count: context.size)
        let updated = ItemModel.withKeys(items).map(updatedValues)
        let ddl = try ItemModel.literecordDDL()
        try ItemModel.verifyHandCoding(items + updated)
        let codec = CItemCodec(coding)
        func site(_ name: String) -> DatabaseSite { storage.site(name, in: context.directory) }

        let probe = try ItemModel.filledLiteRecordDatabase(Array(items.prefix(1)), at: site("probe.sqlite"))
        let traced = try ItemModel.traceSQL(probe) {
            try updateLiteRecord(Array(updated.prefix(1)), in: probe)
        }
        try ItemModel.verifyTrace(
            traced, expected: [ItemModel.begin, ItemModel.update, ItemModel.commit], operation: "update(_:)")

        let c = try ItemModel.filledCDatabase(items, ddl: ddl, codec: codec, at: site("c.sqlite"))
        let literecord = try ItemModel.filledLiteRecordDatabase(items, at: site("literecord.sqlite"))
        try ItemModel.verifySameSchema(c, literecord)
        try updateC(updated, in: c, codec: codec)
        try updateLiteRecord(updated, in: literecord)
        try ItemModel.verifySameStoredBytes(c, literecord, after: "the reference update")
        let cDump = try ItemModel.dump(c)
        try ItemModel.verify(
            dump: try ItemModel.dump(literecord), expected: cDump, side: .literecord,
            after: "the reference update")
        guard try literecord.fetchAll(Item.self) == updated else {
            throw FixtureError(description: "LiteRecord does not read back the models it updated")
        }
        return Fixture(
            items: items, updated: updated, ddl: ddl, codec: codec, expectedDump: cDump, storage: storage)
    }

    // MARK: - C

    @Sendable
    private static func runC(_ fixture: Fixture, _ context: RoundContext) throws -> Duration {
        let database = try ItemModel.filledCDatabase(
            fixture.items, ddl: fixture.ddl, codec: fixture.codec,
            at: fixture.storage.site("c.sqlite", in: context.directory))
        let elapsed = try Stopwatch.measure {
            try updateC(fixture.updated, in: database, codec: fixture.codec)
        }
        try ItemModel.verify(
            dump: ItemModel.dump(database), expected: fixture.expectedDump, side: .c, after: "the updates")
        return elapsed
    }

    /// The C side's measured work. Kept out of line so that a profiler can tell it apart.
    @inline(never)
    static func updateC(_ items: [Item], in database: CDatabase, codec: CItemCodec) throws {
        try database.execute(ItemModel.begin)
        let statement = try database.prepare(ItemModel.update)
        for item in items {
            try codec.bindUpdate(item, to: statement)
            try statement.run()
            guard database.changes == 1 else {
                throw FixtureError(description: "C side: no row has the key \(item.id ?? 0)")
            }
            try statement.reset()
        }
        try database.execute(ItemModel.commit)
    }

    // MARK: - LiteRecord

    @Sendable
    private static func runLiteRecord(_ fixture: Fixture, _ context: RoundContext) throws -> Duration {
        let database = try ItemModel.filledLiteRecordDatabase(
            fixture.items, at: fixture.storage.site("literecord.sqlite", in: context.directory))
        let elapsed = try Stopwatch.measure {
            try updateLiteRecord(fixture.updated, in: database)
        }
        try ItemModel.verify(
            dump: ItemModel.dump(database), expected: fixture.expectedDump, side: .literecord,
            after: "the updates")
        return elapsed
    }

    /// LiteRecord's measured work. Kept out of line so that a profiler can tell it apart.
    @inline(never)
    static func updateLiteRecord(_ items: [Item], in database: Database) throws {
        try database.transaction { tx in
            for item in items {
                try tx.update(item)
            }
        }
    }
}
