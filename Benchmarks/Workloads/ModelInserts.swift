import LiteRecord

/// DESIGN.md's workload 1: insert N models in one transaction.
///
/// LiteRecord: `transaction { tx in ... try tx.insert(&item) }` for each ``Item``, the model path
/// (encoding through its schema, the cached `INSERT`, the new rowid written into the model).
/// C: `BEGIN IMMEDIATE TRANSACTION`, the same `INSERT` text prepared once, seven binds per row
/// (the `nil` key as NULL, the date written by hand from its fields into a stack buffer
/// (``CDateText``), the tags written by hand into one reused buffer (``CStringArrayWriter``)),
/// step, reset, the key read with `sqlite3_last_insert_rowid`, then
/// `COMMIT TRANSACTION`. Both sides write to a fresh database per round whose table and index
/// on `score` exist already (LiteRecord's DDL on both sides): in memory for `insert`, a WAL file
/// in the round's directory for `file-insert` (``Storage``).
///
/// Measured: the transaction, preparing the insert, the N inserts. Not measured: opening the
/// database, creating the table, and checking afterwards that the table holds exactly the
/// expected rows (every value, compared as text with the setup's reference run) and that the
/// keys assigned to the models are 1...N. Setup also checks that the two sides store byte for
/// byte the same text (``ItemModel/verifySameStoredBytes(_:_:after:)``).
/// `insert-foundation-c` is the same workload against the older C side (``FoundationCBaseline``).
enum ModelInserts {
    /// The models to insert and what the table must hold afterwards.
    final class Fixture {
        let items: [Item]
        let ddl: [String]
        let codec: CItemCodec
        let expectedDump: String
        let expectedKeySum: Int64
        let storage: Storage

        init(items: [Item], ddl: [String], codec: CItemCodec, expectedDump: String, storage: Storage) {
            self.items = items
            self.storage = storage
            self.ddl = ddl
            self.codec = codec
            self.expectedDump = expectedDump
            self.expectedKeySum = Int64(items.count) * Int64(items.count + 1) / 2
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
            on: storage, slug: coding == .foundation ? "insert-foundation-c" : "insert",
            description: "insert N Item models (date text, JSON [String], index on score) in one transaction"
                + (coding == .foundation ? " (C side: DateStorage.text and JSONEncoder)" : ""),
            defaultSize: 100_000,
            setup: { context, storage in try makeFixture(context, storage: storage, coding: coding) },
            c: runC, literecord: runLiteRecord)
    }

    // MARK: - Setup

    /// Checks that LiteRecord runs the C side's SQL, then inserts the rows once on each side:
    /// both tables must be equal, and LiteRecord must read back exactly the models inserted.
    @Sendable
    static func makeFixture(
        _ context: SetupContext, storage: Storage, coding: CItemCodec.Coding
    ) throws -> Fixture {
        let items = ItemModel.makeItems(count: context.size)
        let ddl = try ItemModel.literecordDDL()
        func site(_ name: String) -> DatabaseSite { storage.site(name, in: context.directory) }

        let probe = try ItemModel.makeLiteRecordDatabase(at: site("probe.sqlite"))
        let traced = try ItemModel.traceSQL(probe) {
            _ = try ItemModel.insertLiteRecord(Array(items.prefix(2)), into: probe)
        }
        let inserts = Array(repeating: ItemModel.insert, count: min(items.count, 2))
        try ItemModel.verifyTrace(
            traced, expected: [ItemModel.begin] + inserts + [ItemModel.commit], operation: "insert(&item)")

        try ItemModel.verifyHandCoding(items)
        let codec = CItemCodec(coding)
        let c = try ItemModel.makeCDatabase(ddl: ddl, at: site("c.sqlite"))
        let literecord = try ItemModel.makeLiteRecordDatabase(at: site("literecord.sqlite"))
        try ItemModel.verifySameSchema(c, literecord)
        let cKeySum = try ItemModel.insertC(items, into: c, codec: codec)
        let literecordKeySum = try ItemModel.insertLiteRecord(items, into: literecord)
        try ItemModel.verifySameStoredBytes(c, literecord, after: "the reference insert")
        let cDump = try ItemModel.dump(c)
        try ItemModel.verify(
            dump: try ItemModel.dump(literecord), expected: cDump, side: .literecord,
            after: "the reference insert")
        let fixture = Fixture(items: items, ddl: ddl, codec: codec, expectedDump: cDump, storage: storage)
        try verifyKeys(cKeySum, fixture: fixture, side: .c)
        try verifyKeys(literecordKeySum, fixture: fixture, side: .literecord)
        guard try literecord.fetchAll(Item.self) == ItemModel.withKeys(items) else {
            throw FixtureError(description: "LiteRecord does not read back the models it inserted")
        }
        return fixture
    }

    // MARK: - C

    @Sendable
    private static func runC(_ fixture: Fixture, _ context: RoundContext) throws -> Duration {
        let database = try ItemModel.makeCDatabase(
            ddl: fixture.ddl, at: fixture.storage.site("c.sqlite", in: context.directory))
        var keySum: Int64 = 0
        let elapsed = try Stopwatch.measure {
            keySum = try ItemModel.insertC(fixture.items, into: database, codec: fixture.codec)
        }
        try verifyKeys(keySum, fixture: fixture, side: .c)
        try ItemModel.verify(
            dump: ItemModel.dump(database), expected: fixture.expectedDump, side: .c, after: "the inserts")
        return elapsed
    }

    // MARK: - LiteRecord

    @Sendable
    private static func runLiteRecord(_ fixture: Fixture, _ context: RoundContext) throws -> Duration {
        let database = try ItemModel.makeLiteRecordDatabase(
            at: fixture.storage.site("literecord.sqlite", in: context.directory))
        var keySum: Int64 = 0
        let elapsed = try Stopwatch.measure {
            keySum = try ItemModel.insertLiteRecord(fixture.items, into: database)
        }
        try verifyKeys(keySum, fixture: fixture, side: .literecord)
        try ItemModel.verify(
            dump: ItemModel.dump(database), expected: fixture.expectedDump, side: .literecord,
            after: "the inserts")
        return elapsed
    }

    // MARK: - Checks

    /// Makes sure the models received the keys 1...N.
    private static func verifyKeys(_ keySum: Int64, fixture: Fixture, side: Side) throws {
        guard keySum == fixture.expectedKeySum else {
            throw FixtureError(
                description: "\(side.rawValue) side assigned keys summing to \(keySum), expected "
                    + "\(fixture.expectedKeySum) (1...\(fixture.items.count))")
        }
    }
}
