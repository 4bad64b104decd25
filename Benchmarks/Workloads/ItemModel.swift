import Foundation
import LiteRecord
import Synchronization

/// The model of DESIGN.md's workloads 1, 3, 4 and 6 (insert, find by key, update, indexed
/// query): a rowid key, text, an integer, a REAL, a Bool, a `Date` (LiteRecord's default UTC
/// text) and a `[String]` stored as JSON text. LiteRecord creates its table, with an index on
/// `score`.
struct Item: Model, Equatable {
    var id: Int64?
    var name: String
    var score: Int
    var ratio: Double
    var flag: Bool
    var created: Date
    var tags: [String]

    static let schema = Schema<Item>(table: "items", indexes: [[\.score]])
}

/// What the ``Item`` workloads share: the SQL both sides run, the C side's hand-written coding
/// of an ``Item``, deterministic rows, and tables built the same way on both sides.
///
/// The C side's SQL is written out here; each workload's setup checks, with LiteRecord's trace
/// hook, that LiteRecord runs exactly this text, and the C side creates its table with the DDL
/// LiteRecord generated (read from `sqlite_master`), so both sides have the same table and the
/// same index to maintain.
enum ItemModel {
    /// LiteRecord's model insert: every column, the `nil` key bound as NULL.
    static let insert = """
        INSERT INTO "items" ("id", "name", "score", "ratio", "flag", "created", "tags") \
        VALUES (?, ?, ?, ?, ?, ?, ?)
        """
    /// LiteRecord's `find(_:id:)`.
    static let find = #"SELECT * FROM "items" WHERE "id" = ?"#
    /// LiteRecord's `update(_:)`: the non-key columns, then the key.
    static let update = """
        UPDATE "items" SET "name" = ?, "score" = ?, "ratio" = ?, "flag" = ?, "created" = ?, \
        "tags" = ? WHERE "id" = ?
        """
    /// The statements LiteRecord's `transaction` runs (immediate is its default kind).
    static let begin = "BEGIN IMMEDIATE TRANSACTION"
    static let commit = "COMMIT TRANSACTION"
    /// The columns of `SELECT *`, in the order the C side reads them.
    static let columns = ["id", "name", "score", "ratio", "flag", "created", "tags"]
    /// The whole table as text, row by row in key order, every value `quote`d (so the storage
    /// class shows and REALs are exact): both sides must store exactly the same values.
    static let dump = """
        SELECT count(*) || char(10) || ifnull(group_concat(line, char(10)), '') FROM (SELECT quote(id) \
        || ',' || quote(name) || ',' || quote(score) || ',' || quote(ratio) || ',' || quote(flag) || ',' \
        || quote(created) || ',' || quote(tags) AS line FROM items ORDER BY id)
        """
    /// Every table and index of the schema, to compare the two sides' DDL.
    static let schemaDump = """
        SELECT group_concat(line, char(10)) FROM (SELECT type || ' ' || name || ' ' || tbl_name || ': ' \
        || ifnull(sql, '') AS line FROM sqlite_master ORDER BY type, name)
        """

    // MARK: - Rows

    private static let tagWords = ["swift", "sqlite", "orm", "fast", "json", "codable"]

    /// Deterministic models without keys: names of varying length, scores spread over
    /// `scoreBuckets` values (index × 7919 mod buckets, so equal scores are scattered over the
    /// table), dates with 0 to 4 fraction digits, 0 to 3 tags.
    ///
    /// - Parameters:
    ///   - count: How many.
    ///   - scoreBuckets: How many distinct scores.
    static func makeItems(count: Int, scoreBuckets: Int = 10_007) -> [Item] {
        (0..<count).map { index -> Item in
            let tags: [String] = (0..<(index % 4)).map { tagWords[(index + 5 * $0) % tagWords.count] }
            return Item(
                id: nil,
                name: "item-\(index)-\(String(repeating: "x", count: index % 17))",
                score: (index &* 7919) % scoreBuckets,
                ratio: Double(index) / 7.0,
                flag: index % 3 == 0,
                // From 2023-03-08 20:26:40 UTC, about a minute apart, in sixteenths of a second.
                created: Date(timeIntervalSinceReferenceDate: 700_000_000 + Double(index) * 61.0625),
                tags: tags)
        }
    }

    /// The models as stored: the keys SQLite assigns on insert, 1...count.
    static func withKeys(_ items: [Item]) -> [Item] {
        items.enumerated().map { offset, item in
            var item = item
            item.id = Int64(offset + 1)
            return item
        }
    }

    // MARK: - Tables

    /// The DDL LiteRecord generates for ``Item`` (table, then index), read from `sqlite_master`
    /// of a fresh LiteRecord database.
    static func literecordDDL() throws -> [String] {
        let database = try Database(.inMemory)
        try database.migrate(Item.self)
        let ddl = try database.fetchAll(
            String.self,
            sql: "SELECT sql FROM sqlite_master WHERE tbl_name = 'items' AND sql IS NOT NULL ORDER BY rowid")
        guard ddl.count == 2 else {
            throw FixtureError(description: "expected LiteRecord to create a table and an index, got \(ddl)")
        }
        return ddl
    }

    /// A fresh C database (in memory unless `site` says otherwise) with the table and index
    /// LiteRecord creates.
    static func makeCDatabase(ddl: [String], at site: DatabaseSite = .memory) throws -> CDatabase {
        let database = try site.openC()
        for statement in ddl { try database.execute(statement) }
        return database
    }

    /// A fresh LiteRecord database (in memory unless `site` says otherwise) whose ``Item``
    /// table exists (created by `migrate`, so no round pays for it).
    static func makeLiteRecordDatabase(at site: DatabaseSite = .memory) throws -> Database {
        let database = try site.openLiteRecord()
        try database.migrate(Item.self)
        return database
    }

    /// A C database holding `items`, inserted by the C side's insert code.
    static func filledCDatabase(
        _ items: [Item], ddl: [String], codec: CItemCodec, at site: DatabaseSite = .memory
    ) throws -> CDatabase {
        let database = try makeCDatabase(ddl: ddl, at: site)
        _ = try insertC(items, into: database, codec: codec)
        return database
    }

    /// A LiteRecord database holding `items`, inserted by LiteRecord.
    static func filledLiteRecordDatabase(_ items: [Item], at site: DatabaseSite = .memory) throws -> Database
    {
        let database = try makeLiteRecordDatabase(at: site)
        _ = try insertLiteRecord(items, into: database)
        return database
    }

    /// The C side of workload 1: every model inserted in one transaction through one prepared
    /// statement, each model's key set from `sqlite3_last_insert_rowid` as LiteRecord sets it.
    /// Kept out of line so that a profiler can tell it apart.
    ///
    /// - Returns: The sum of the assigned keys, checked by the caller.
    @inline(never)
    static func insertC(_ items: [Item], into database: CDatabase, codec: CItemCodec) throws -> Int64 {
        var keySum: Int64 = 0
        try database.execute(begin)
        let statement = try database.prepare(insert)
        for item in items {
            var item = item
            try codec.bindInsert(item, to: statement)
            try statement.run()
            try statement.reset()
            item.id = database.lastInsertRowID
            keySum &+= item.id ?? 0
        }
        try database.execute(commit)
        return keySum
    }

    /// LiteRecord's side of workload 1: `insert(&item)` for every model in one transaction.
    ///
    /// - Returns: The sum of the assigned keys, checked by the caller.
    @inline(never)
    static func insertLiteRecord(_ items: [Item], into database: Database) throws -> Int64 {
        var keySum: Int64 = 0
        try database.transaction { tx in
            for item in items {
                var item = item
                try tx.insert(&item)
                keySum &+= item.id ?? 0
            }
        }
        return keySum
    }

    /// The C side's table as ``dump`` text.
    static func dump(_ database: CDatabase) throws -> String {
        try database.text(dump) ?? ""
    }

    /// LiteRecord's table as ``dump`` text.
    static func dump(_ database: Database) throws -> String {
        try database.fetchOne(String.self, sql: SQL(dump)) ?? ""
    }

    /// Throws unless a side's table holds exactly the expected rows, naming the first
    /// difference.
    static func verify(dump actual: String, expected: String, side: Side, after operation: String) throws {
        guard actual != expected else { return }
        let actualLines = actual.split(separator: "\n", omittingEmptySubsequences: false)
        let expectedLines = expected.split(separator: "\n", omittingEmptySubsequences: false)
        var problem = "\(actualLines.first ?? "?") rows, expected \(expectedLines.first ?? "?")"
        let common = min(actualLines.count, expectedLines.count)
        if let index = (1..<max(common, 1)).first(where: { actualLines[$0] != expectedLines[$0] }) {
            problem += "; row \(index) is \(actualLines[index]), expected \(expectedLines[index])"
        }
        throw FixtureError(description: "\(side.rawValue) side's table after \(operation): \(problem)")
    }

    /// The stored bytes of every text column, row by row in key order, in hex.
    static let storedBytes = """
        SELECT group_concat(hex(name) || ',' || hex(created) || ',' || hex(tags), char(10)) \
        FROM (SELECT name, created, tags FROM items ORDER BY id)
        """

    /// Throws unless both sides' tables hold byte for byte the same text (the C side's
    /// hand-written date and JSON text must be exactly LiteRecord's).
    static func verifySameStoredBytes(_ c: CDatabase, _ literecord: Database, after operation: String) throws
    {
        let cBytes = try c.text(storedBytes)
        let literecordBytes = try literecord.fetchOne(String.self, sql: SQL(storedBytes))
        guard cBytes == literecordBytes else {
            let cLines = (cBytes ?? "").split(separator: "\n")
            let literecordLines = (literecordBytes ?? "").split(separator: "\n")
            let common = min(cLines.count, literecordLines.count)
            let index = (0..<common).first { cLines[$0] != literecordLines[$0] } ?? common
            let shown =
                index < common ? ": C \(cLines[index]), LiteRecord \(literecordLines[index]) (hex)" : ""
            throw FixtureError(
                description: "after \(operation), the two sides store different bytes (\(cLines.count) and "
                    + "\(literecordLines.count) rows; first difference at row \(index + 1)\(shown))")
        }
    }

    /// Throws unless the C side's hand-written coding writes LiteRecord's exact text for these
    /// models' dates and for JSON that needs every kind of escape.
    static func verifyHandCoding(_ items: [Item]) throws {
        try CDateText.verifyAgainstLiteRecord(items.lazy.map(\.created))
        try CStringArrayWriter.verifyAgainstLiteRecord()
    }

    /// Throws unless the two sides created the same tables and indexes.
    static func verifySameSchema(_ c: CDatabase, _ literecord: Database) throws {
        let cSchema = try c.text(schemaDump)
        let literecordSchema = try literecord.fetchOne(String.self, sql: SQL(schemaDump))
        guard cSchema == literecordSchema else {
            throw FixtureError(
                description: "the two sides' schemas differ: C \(cSchema ?? "none"), LiteRecord "
                    + "\(literecordSchema ?? "none")")
        }
    }

    /// Throws unless a prepared `SELECT *` returns the columns the C side reads, in its order.
    static func verifyColumns(_ statement: CStatement) throws {
        guard statement.columnNames == columns else {
            throw FixtureError(
                description:
                    "`\(statement.sql)` returns \(statement.columnNames), the C side reads \(columns)")
        }
    }

    // MARK: - LiteRecord's SQL

    /// The SQL LiteRecord runs while `body` runs, as its trace hook reports it.
    static func traceSQL(_ database: Database, _ body: () throws -> Void) throws -> [String] {
        let log = Mutex<[String]>([])
        database.trace { sql in log.withLock { $0.append(sql) } }
        defer { database.trace(nil) }
        try body()
        return log.withLock { $0 }
    }

    /// Throws unless LiteRecord ran exactly the statements the C side runs.
    static func verifyTrace(_ traced: [String], expected: [String], operation: String) throws {
        guard traced == expected else {
            throw FixtureError(
                description: "LiteRecord's \(operation) runs \(traced.map { "`\($0)`" }), the C side "
                    + "runs \(expected.map { "`\($0)`" })")
        }
    }
}

/// The C side's coding of an ``Item``: values bound and read column by column.
///
/// ``Coding/handWritten`` (the yardstick of the design targets) formats and parses the date
/// from the bytes (``CDateText``) and writes and parses the tags by hand (``CStringArrayWriter``,
/// ``CStringArrayParser``), with one reused byte buffer. ``Coding/foundation`` is the older,
/// weaker C side kept as an extra row: the date through LiteRecord's public `DateStorage.text`,
/// the tags through one `JSONEncoder` and one `JSONDecoder` made once. Both store the same text
/// as LiteRecord (the encoder has the output formatting of LiteRecord's JSON columns).
final class CItemCodec {
    /// How the date and the tags are converted.
    enum Coding: Sendable {
        case handWritten
        case foundation
    }

    let coding: Coding
    let encoder: JSONEncoder
    let decoder = JSONDecoder()
    private var tagsWriter = CStringArrayWriter()

    init(_ coding: Coding = .handWritten) {
        self.coding = coding
        encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    }

    /// Binds a model to ``ItemModel/insert``: the key (NULL when `nil`), then the other columns.
    @inline(__always)
    func bindInsert(_ item: Item, to statement: CStatement) throws {
        if let id = item.id {
            try statement.bind(id, at: 1)
        } else {
            try statement.bindNull(at: 1)
        }
        try bindValues(item, to: statement, from: 2)
    }

    /// Binds a model to ``ItemModel/update``: the non-key columns, then the key.
    @inline(__always)
    func bindUpdate(_ item: Item, to statement: CStatement) throws {
        guard let id = item.id else {
            throw FixtureError(description: "C side: cannot update an item without a key")
        }
        try bindValues(item, to: statement, from: 1)
        try statement.bind(id, at: 7)
    }

    /// Binds name, score, ratio, flag, created and tags to six parameters from `first`.
    @inline(__always)
    private func bindValues(_ item: Item, to statement: CStatement, from first: Int32) throws {
        try statement.bind(item.name, at: first)
        try statement.bind(Int64(item.score), at: first + 1)
        try statement.bind(item.ratio, at: first + 2)
        try statement.bind(Int64(item.flag ? 1 : 0), at: first + 3)
        switch coding {
        case .handWritten:
            // A C programmer's `char text[40]` on the stack; SQLite copies it.
            try withUnsafeTemporaryAllocation(of: UInt8.self, capacity: CDateText.capacity) { buffer in
                guard let base = buffer.baseAddress else { return }
                let count = try CDateText.write(item.created.timeIntervalSinceReferenceDate, into: base)
                try statement.bindText(UnsafeRawBufferPointer(start: base, count: count), at: first + 4)
            }
            tagsWriter.write(item.tags)
            try tagsWriter.bytes.withUnsafeBytes { try statement.bindText($0, at: first + 5) }
        case .foundation:
            guard case .text(let created) = try DateStorage.text.databaseValue(for: item.created) else {
                throw FixtureError(description: "C side: DateStorage.text did not make text")
            }
            try statement.bind(created, at: first + 4)
            let tags = try encoder.encode(item.tags)
            try tags.withUnsafeBytes { try statement.bindText($0, at: first + 5) }
        }
    }

    /// Reads the current row of a `SELECT *` on the items table (``ItemModel/columns``).
    @inline(__always)
    func read(_ statement: CStatement) throws -> Item {
        let created: Date
        let tags: [String]
        switch coding {
        case .handWritten:
            created = Date(timeIntervalSinceReferenceDate: try CDateText.read(statement.textBytes(at: 5)))
            tags = try CStringArrayParser.parse(statement.textBytes(at: 6))
        case .foundation:
            created = try DateStorage.text.date(from: .text(statement.string(at: 5)))
            tags = try decoder.decode([String].self, from: Data(statement.textBytes(at: 6)))
        }
        return Item(
            id: statement.isNull(at: 0) ? nil : statement.int64(at: 0),
            name: statement.string(at: 1),
            score: Int(statement.int64(at: 2)),
            ratio: statement.double(at: 3),
            flag: statement.int64(at: 4) != 0,
            created: created,
            tags: tags)
    }
}

/// SplitMix64: a small, fast, seeded generator, so both sides and every run use the same
/// "random" keys and values.
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
