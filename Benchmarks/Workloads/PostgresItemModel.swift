import CLibPQ
import Foundation
import LiteRecord
import LiteRecordPostgres

/// ``Item`` on PostgreSQL: the same fields, in a table of its own name, so that the benchmark
/// never touches a table an application or a test might use on the same server.
struct PostgresItem: Model, Equatable {
    var id: Int64?
    var name: String
    var score: Int
    var ratio: Double
    var flag: Bool
    var created: Date
    var tags: [String]

    static let schema = Schema<PostgresItem>(table: "literecord_bench_items", indexes: [[\.score]])

    init(id: Int64?, name: String, score: Int, ratio: Double, flag: Bool, created: Date, tags: [String]) {
        self.id = id
        self.name = name
        self.score = score
        self.ratio = ratio
        self.flag = flag
        self.created = created
        self.tags = tags
    }

    init(_ item: Item) {
        self.init(
            id: item.id, name: item.name, score: item.score, ratio: item.ratio, flag: item.flag,
            created: item.created, tags: item.tags)
    }
}

/// What the PostgreSQL workloads share: the server, the SQL both sides run, the C side's
/// hand-written coding of a ``PostgresItem`` through libpq, and the table.
///
/// The table is created by LiteRecordPostgres (its first use of the model), and both sides
/// work on that same table, emptied with `TRUNCATE ... RESTART IDENTITY` outside the measured
/// part, so they maintain the same columns, types and index. The SQL below is the text
/// LiteRecordPostgres sends for each operation (see `PostgresContext+Models.swift` and
/// `PostgresSession+Inserts.swift`); a `SELECT` is checked against `Query.sqlDescription` in
/// setup.
enum PostgresItemModel {
    /// The environment variable naming the server; the PostgreSQL workloads are skipped without
    /// it.
    static let urlVariable = "LITERECORD_POSTGRES_URL"
    /// How to start a throwaway server for them.
    static let howToStart = "export LITERECORD_POSTGRES_URL=$(Scripts/postgres-test-server start)"

    /// The server's URL, or `nil` when the variable is not set.
    static var url: String? {
        guard let url = ProcessInfo.processInfo.environment[urlVariable], !url.isEmpty else { return nil }
        return url
    }

    static let table = "literecord_bench_items"
    /// LiteRecordPostgres's `insert(&model)` with a `nil` key: every other column, the generated
    /// key returned.
    static let insert = """
        INSERT INTO "literecord_bench_items" ("name", "score", "ratio", "flag", "created", "tags") \
        VALUES ($1,$2,$3,$4,$5,$6) RETURNING "id"
        """
    /// The C side's `COPY` of the same six columns, text format.
    static let copy = """
        COPY "literecord_bench_items" ("name", "score", "ratio", "flag", "created", "tags") FROM STDIN
        """
    /// LiteRecordPostgres's `find(_:id:)`.
    static let find = #"SELECT * FROM "literecord_bench_items" WHERE "id" = $1 LIMIT 1"#
    /// LiteRecordPostgres's `query(PostgresItem.self).fetchAll()`.
    static let selectAll = #"SELECT * FROM "literecord_bench_items""#
    /// What LiteRecordPostgres's `transaction` sends first (SERIALIZABLE is its default).
    static let begin = "BEGIN ISOLATION LEVEL SERIALIZABLE"
    static let commit = "COMMIT"
    static let truncate = #"TRUNCATE "literecord_bench_items" RESTART IDENTITY"#
    /// The columns of `SELECT *`, in the order the C side reads them, and their types' OIDs
    /// (`int8`, `text`, `int8`, `float8`, `boolean`, `text`, `jsonb`), whose binary forms it
    /// decodes.
    static let columns = ["id", "name", "score", "ratio", "flag", "created", "tags"]
    static let columnTypes: [UInt32] = [20, 25, 20, 701, 16, 25, 3802]
    /// The whole table summarized: row count and an MD5 of every value in key order, so both
    /// sides must have stored exactly the same values.
    static let fingerprint = """
        SELECT count(*)::text || ' ' || coalesce(md5(string_agg(concat_ws(',', id, name, score, \
        ratio, flag, created, tags::text), chr(10) ORDER BY id)), '') FROM "literecord_bench_items"
        """

    // MARK: - Setup

    /// Both sides' connections to the server, with an empty ``PostgresItem`` table created by
    /// LiteRecordPostgres (dropped first, so no table left by an earlier run interferes).
    final class Server {
        let c: CPostgresConnection
        let literecord: PostgresDatabase

        init() throws {
            guard let url = PostgresItemModel.url else {
                throw FixtureError(description: "\(urlVariable) is not set (\(howToStart))")
            }
            c = try CPostgresConnection(url: url)
            try c.execute(#"DROP TABLE IF EXISTS "literecord_bench_items""#)
            literecord = try PostgresDatabase(url: url)
            // The first use of the model creates its table (and the index on score).
            guard try literecord.query(PostgresItem.self).count() == 0 else {
                throw FixtureError(description: "the fresh \(table) table is not empty")
            }
            let selectAll = literecord.query(PostgresItem.self).sqlDescription
            guard selectAll == PostgresItemModel.selectAll else {
                throw FixtureError(
                    description:
                        "LiteRecord's fetchAll runs `\(selectAll)`, the C side `\(PostgresItemModel.selectAll)`"
                )
            }
        }

        /// Empties the table and restarts its key sequence, so the next inserts get 1...N.
        func truncate() throws {
            try c.execute(PostgresItemModel.truncate)
        }

        /// The table's ``PostgresItemModel/fingerprint``.
        func fingerprint() throws -> String {
            try c.query(PostgresItemModel.fingerprint) { CPostgresField.string($0, 0, 0) }
        }

        /// Throws unless the C side's `SELECT *` returns the columns it reads, in its order, with
        /// the types whose binary form it decodes.
        func verifyColumns() throws {
            let (names, types) = try c.query(PostgresItemModel.selectAll + " LIMIT 0") { result in
                (CPostgresField.columnNames(result), (0..<PQnfields(result)).map { PQftype(result, $0) })
            }
            guard names == columns, types == columnTypes else {
                throw FixtureError(
                    description: "`SELECT *` returns \(names) of types \(types), the C side reads \(columns) "
                        + "of types \(columnTypes)")
            }
        }
    }

    /// The deterministic rows of the SQLite workloads, as ``PostgresItem``s without keys.
    static func makeItems(count: Int) -> [PostgresItem] {
        ItemModel.makeItems(count: count).map(PostgresItem.init)
    }

    /// The models as stored after a truncate: keys 1...count.
    static func withKeys(_ items: [PostgresItem]) -> [PostgresItem] {
        items.enumerated().map { offset, item in
            var item = item
            item.id = Int64(offset + 1)
            return item
        }
    }

    // MARK: - Inserts

    /// The C side of `postgres-insert`: `BEGIN`, the insert prepared once (`PQprepare`), one
    /// `PQexecPrepared` per model with the six values as text (the key left to the identity
    /// column, read back from `RETURNING`), `COMMIT`. Kept out of line so that a profiler can tell
    /// it apart.
    ///
    /// - Returns: The sum of the generated keys, checked by the caller.
    @inline(never)
    static func insertC(
        _ items: [PostgresItem], into connection: CPostgresConnection, codec: CPostgresItemCodec
    )
        throws -> Int64
    {
        var keySum: Int64 = 0
        try connection.execute(begin)
        let name = try connection.preparedName(insert)
        for item in items {
            try codec.bindInsert(item)
            keySum &+= try codec.parameters.withPointers { values, count in
                try connection.queryPrepared(
                    name, values: values!, lengths: nil, formats: nil, count: count, resultFormat: 0
                ) { CPostgresField.int64($0, 0, 0) }
            }
        }
        try connection.execute(commit)
        return keySum
    }

    /// The C side of `postgres-insert-batch`: one `COPY ... FROM STDIN` of text rows written by
    /// hand, sent in 64 KiB chunks. Kept out of line so that a profiler can tell it apart.
    ///
    /// - Returns: The number of rows copied, checked by the caller.
    @inline(never)
    static func copyC(
        _ items: [PostgresItem], into connection: CPostgresConnection, codec: CPostgresItemCodec
    )
        throws -> Int
    {
        var rows = CCopyText(capacity: items.count * 96)
        for item in items { try codec.appendCopyRow(item, to: &rows) }
        return try connection.copyIn(copy, rows.bytes)
    }

    /// LiteRecord's side of `postgres-insert-batch`: `insert(contentsOf:)`.
    ///
    /// - Returns: The sum of the generated keys, checked by the caller.
    @inline(never)
    static func insertBatchLiteRecord(_ items: [PostgresItem], into database: PostgresDatabase) throws
        -> Int64
    {
        try database.insert(contentsOf: items).reduce(0) { $0 &+ ($1.id ?? 0) }
    }

    /// LiteRecord's side of `postgres-insert`: `insert(&item)` for every model in one transaction.
    ///
    /// - Returns: The sum of the generated keys, checked by the caller.
    @inline(never)
    static func insertLiteRecord(_ items: [PostgresItem], into database: PostgresDatabase) throws -> Int64 {
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
}

/// The C side's hand-written coding of a ``PostgresItem``, as a careful libpq programmer
/// writes it, with no Foundation coder and no LiteRecord code: values sent as text (integers'
/// digits and doubles' `%.17g` written by hand, the date by ``CDateText``, the tags by
/// ``CStringArrayWriter``), rows read from binary results (big-endian `int8` and `float8`, a
/// `boolean` byte, text bytes, the date parsed by ``CDateText``, the `jsonb` tags after their
/// version byte by ``CStringArrayParser``), and `COPY` rows written by ``CCopyText``.
final class CPostgresItemCodec {
    let parameters = CPostgresParameters()
    private var json = CStringArrayWriter()
    private var date = [UInt8](repeating: 0, count: CDateText.capacity)

    /// Fills ``parameters`` for ``PostgresItemModel/insert``.
    @inline(__always)
    func bindInsert(_ item: PostgresItem) throws {
        parameters.removeAll()
        parameters.append(item.name)
        parameters.append(integer: Int64(item.score))
        var ratio = CCopyText(capacity: 32)
        ratio.append(double: item.ratio)
        ratio.bytes.withUnsafeBufferPointer { parameters.append(bytes: $0) }
        parameters.append(item.flag ? "t" : "f")
        try date.withUnsafeMutableBufferPointer { buffer in
            let count = try CDateText.write(
                item.created.timeIntervalSinceReferenceDate, into: buffer.baseAddress!)
            parameters.append(bytes: UnsafeBufferPointer(rebasing: buffer[0..<count]))
        }
        json.write(item.tags)
        json.bytes.withUnsafeBufferPointer { parameters.append(bytes: $0) }
    }

    /// Appends the `COPY` text row of ``PostgresItemModel/copy`` for `item`.
    @inline(__always)
    func appendCopyRow(_ item: PostgresItem, to rows: inout CCopyText) throws {
        rows.append(string: item.name)
        rows.endField()
        rows.append(integer: Int64(item.score))
        rows.endField()
        rows.append(double: item.ratio)
        rows.endField()
        rows.append(byte: item.flag ? UInt8(ascii: "t") : UInt8(ascii: "f"))
        rows.endField()
        try date.withUnsafeMutableBufferPointer { buffer in
            let count = try CDateText.write(
                item.created.timeIntervalSinceReferenceDate, into: buffer.baseAddress!)
            rows.append(raw: UnsafeBufferPointer(rebasing: buffer[0..<count]))
        }
        rows.endField()
        json.write(item.tags)
        rows.append(text: json.bytes)
        rows.endRow()
    }

    /// Reads row `row` of a binary-format `SELECT *` result (``PostgresItemModel/columns``).
    @inline(__always)
    func read(_ result: OpaquePointer, row: Int32) throws -> PostgresItem {
        PostgresItem(
            id: CPostgresField.isNull(result, row, 0) ? nil : CPostgresBinaryField.int64(result, row, 0),
            name: String(decoding: CPostgresBinaryField.bytes(result, row, 1), as: UTF8.self),
            score: Int(CPostgresBinaryField.int64(result, row, 2)),
            ratio: CPostgresBinaryField.double(result, row, 3),
            flag: CPostgresBinaryField.bool(result, row, 4),
            created: Date(
                timeIntervalSinceReferenceDate: try CDateText.read(CPostgresBinaryField.bytes(result, row, 5))
            ),
            tags: try CStringArrayParser.parse(CPostgresBinaryField.bytes(result, row, 6, skip: 1)))
    }

    /// Reads every row of a binary-format `SELECT *` result.
    @inline(__always)
    func readAll(_ result: OpaquePointer) throws -> [PostgresItem] {
        let count = PQntuples(result)
        var items: [PostgresItem] = []
        items.reserveCapacity(Int(count))
        for row in 0..<count { items.append(try read(result, row: row)) }
        return items
    }
}
