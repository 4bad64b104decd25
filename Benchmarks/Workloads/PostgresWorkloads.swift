import CLibPQ
import LiteRecord
import LiteRecordPostgres

/// Tracker issue 22: DESIGN.md's workloads 1–3 (insert, fetch all, find by key) on a PostgreSQL
/// server, LiteRecordPostgres against hand-written libpq calls in the same run.
///
/// Both sides talk to the server named by `LITERECORD_POSTGRES_URL` (the workloads are skipped
/// with a message when it is not set), each on its own connection, and store and read the same
/// rows (checked). The C side is what a careful libpq programmer writes for each job (tracker
/// issue 32): inserts through a statement prepared once; `insert(contentsOf:)` against one
/// `COPY FROM STDIN` of text rows written by hand; `fetchAll` against `PQexecParams` with binary
/// results decoded by hand; `find` against a prepared statement with a binary key and binary
/// results. No Foundation coder on the C side: dates and JSON are written and read by hand.
enum PostgresWorkloads {
    static let workloads: [Workload] = [insert, insertBatch, fetchAll, findByKey] + PostgresCounter.workloads

    static let group = WorkloadGroup(
        slug: "postgres",
        description: "workloads 1–3 on PostgreSQL, LiteRecordPostgres vs libpq (tracker issue 22)",
        workloads: workloads,
        notes: { results in
            DesignTargets.notes(results)
                + (results.isEmpty
                    ? []
                    : [
                        "postgres: C sides are hand-written libpq (prepared statements, COPY, binary "
                            + "results); the server's own work and the socket are in both medians"
                    ])
        })

    /// Whether the workloads can run: a server URL is set.
    static var isAvailable: Bool { PostgresItemModel.url != nil }

    /// Splits a selection into what can run and the PostgreSQL workloads skipped for want of a
    /// server.
    ///
    /// - Parameter selected: The selected workloads.
    /// - Returns: The runnable workloads, and the slugs of those skipped.
    static func partition(_ selected: [(group: WorkloadGroup, workload: Workload)])
        -> (runnable: [(group: WorkloadGroup, workload: Workload)], skipped: [String])
    {
        guard !isAvailable else { return (selected, []) }
        let skipped = selected.filter { $0.group.slug == group.slug }.map(\.workload.slug)
        return (selected.filter { $0.group.slug != group.slug }, skipped)
    }

    /// The message printed for skipped workloads.
    static func skipMessage(_ skipped: [String]) -> String {
        "\(skipped.joined(separator: ", ")): skipped, \(PostgresItemModel.urlVariable) is not set "
            + "(to run them: \(PostgresItemModel.howToStart))"
    }

    // MARK: - Insert

    /// `insert(&item)` for N models in one transaction; the C side sends the same `BEGIN`, one
    /// `INSERT ... RETURNING "id"` per model, `COMMIT`.
    static let insert = Workload(
        slug: "postgres-insert",
        description:
            "insert N PostgresItem models (text date, jsonb tags, index on score) in one transaction",
        defaultSize: 10_000,
        setup: { context in
            let server = try PostgresItemModel.Server()
            let items = PostgresItemModel.makeItems(count: context.size)
            let codec = CPostgresItemCodec()
            // The reference: C's inserts; LiteRecord's must store the very same table.
            let cKeys = try PostgresItemModel.insertC(items, into: server.c, codec: codec)
            let expected = try server.fingerprint()
            try server.truncate()
            let literecordKeys = try PostgresItemModel.insertLiteRecord(items, into: server.literecord)
            try verify(try server.fingerprint(), expected: expected, side: .literecord, after: "inserts")
            guard
                try server.literecord.query(PostgresItem.self).order({ $0.id.ascending }).fetchAll()
                    == PostgresItemModel.withKeys(items)
            else {
                throw FixtureError(description: "LiteRecord does not read back the models it inserted")
            }
            let keySum = Int64(items.count) * Int64(items.count + 1) / 2
            guard cKeys == keySum, literecordKeys == keySum else {
                throw FixtureError(
                    description: "generated keys sum to \(cKeys) (C), \(literecordKeys), not \(keySum)")
            }
            return (server: server, items: items, codec: codec, expected: expected, keySum: keySum)
        },
        c: { fixture, _ in
            try fixture.server.truncate()
            var keySum: Int64 = 0
            let elapsed = try Stopwatch.measure {
                keySum = try PostgresItemModel.insertC(
                    fixture.items, into: fixture.server.c, codec: fixture.codec)
            }
            try verify(keySum, fixture.keySum, side: .c)
            try verify(
                try fixture.server.fingerprint(), expected: fixture.expected, side: .c, after: "inserts")
            return elapsed
        },
        literecord: { fixture, _ in
            try fixture.server.truncate()
            var keySum: Int64 = 0
            let elapsed = try Stopwatch.measure {
                keySum = try PostgresItemModel.insertLiteRecord(
                    fixture.items, into: fixture.server.literecord)
            }
            try verify(keySum, fixture.keySum, side: .literecord)
            try verify(
                try fixture.server.fingerprint(), expected: fixture.expected, side: .literecord,
                after: "inserts")
            return elapsed
        })

    // MARK: - Insert many

    /// `insert(contentsOf:)` of N models; the C side sends them in one `COPY FROM STDIN` of text
    /// rows it writes by hand (and gets no keys back, which LiteRecord must return).
    static let insertBatch = Workload(
        slug: "postgres-insert-batch",
        description: "insert(contentsOf:) N PostgresItem models; C: one COPY FROM STDIN of hand-written rows",
        defaultSize: 100_000,
        setup: { context in
            let server = try PostgresItemModel.Server()
            let items = PostgresItemModel.makeItems(count: context.size)
            let codec = CPostgresItemCodec()
            // The reference: C's one-by-one inserts; both measured sides must store the same table.
            _ = try PostgresItemModel.insertC(items, into: server.c, codec: codec)
            let expected = try server.fingerprint()
            let keySum = Int64(items.count) * Int64(items.count + 1) / 2
            return (server: server, items: items, codec: codec, expected: expected, keySum: keySum)
        },
        c: { fixture, _ in
            try fixture.server.truncate()
            var copied = 0
            let elapsed = try Stopwatch.measure {
                copied = try PostgresItemModel.copyC(
                    fixture.items, into: fixture.server.c, codec: fixture.codec)
            }
            guard copied == fixture.items.count else {
                throw FixtureError(description: "C side copied \(copied) rows, not \(fixture.items.count)")
            }
            try verify(
                try fixture.server.fingerprint(), expected: fixture.expected, side: .c, after: "COPY")
            return elapsed
        },
        literecord: { fixture, _ in
            try fixture.server.truncate()
            var keySum: Int64 = 0
            let elapsed = try Stopwatch.measure {
                keySum = try PostgresItemModel.insertBatchLiteRecord(
                    fixture.items, into: fixture.server.literecord)
            }
            try verify(keySum, fixture.keySum, side: .literecord)
            try verify(
                try fixture.server.fingerprint(), expected: fixture.expected, side: .literecord,
                after: "insert(contentsOf:)")
            return elapsed
        })

    // MARK: - Fetch all

    /// `query(PostgresItem.self).fetchAll()` on a table of N rows; the C side runs the same
    /// `SELECT *` with `PQexecParams` asking for binary results, and decodes every field into the
    /// same models by hand.
    static let fetchAll = Workload(
        slug: "postgres-fetch-all",
        description: "query(PostgresItem.self).fetchAll() on a table of N rows",
        defaultSize: 100_000,
        setup: { context in
            let fixture = try filledTable(size: context.size)
            return (server: fixture.server, codec: fixture.codec, expected: fixture.expected)
        },
        c: { fixture, _ in
            var items: [PostgresItem] = []
            let elapsed = try Stopwatch.measure {
                items = try fetchAllC(fixture.server.c, fixture.codec)
            }
            try verify(inKeyOrder(items), fixture.expected, side: .c)
            return elapsed
        },
        literecord: { fixture, _ in
            var items: [PostgresItem] = []
            let elapsed = try Stopwatch.measure {
                items = try fetchAllLiteRecord(fixture.server.literecord)
            }
            try verify(inKeyOrder(items), fixture.expected, side: .literecord)
            return elapsed
        })

    /// The C side's measured work. Kept out of line so that a profiler can tell it apart.
    @inline(never)
    static func fetchAllC(_ connection: CPostgresConnection, _ codec: CPostgresItemCodec) throws
        -> [PostgresItem]
    {
        try connection.queryBinary(PostgresItemModel.selectAll) { try codec.readAll($0) }
    }

    /// LiteRecord's measured work.
    @inline(never)
    static func fetchAllLiteRecord(_ database: PostgresDatabase) throws -> [PostgresItem] {
        try database.query(PostgresItem.self).fetchAll()
    }

    // MARK: - Find by key

    /// `find(PostgresItem.self, id:)` for min(N, 10,000) seeded random keys; the C side prepares
    /// the same `SELECT ... WHERE "id" = $1 LIMIT 1` once (its parameter an `int8`) and runs it
    /// per key with the key in binary and binary results.
    static let findByKey = Workload(
        slug: "postgres-find-by-key",
        description: "find(PostgresItem.self, id:) for min(N, 10,000) seeded random keys in a table of N",
        unit: "lookup",
        defaultSize: 100_000,
        operations: FindByKey.lookups,
        setup: { context in
            let fixture = try filledTable(size: context.size)
            var generator = SeededGenerator(seed: 3)
            let keys = (0..<FindByKey.lookups(context.size)).map { _ in
                Int64.random(in: 1...Int64(context.size), using: &generator)
            }
            return (
                server: fixture.server, codec: fixture.codec, keys: keys,
                expected: keys.map { fixture.expected[Int($0) - 1] }
            )
        },
        c: { fixture, _ in
            var items: [PostgresItem] = []
            let elapsed = try Stopwatch.measure {
                items = try findC(fixture.keys, fixture.server.c, fixture.codec)
            }
            try verify(items, fixture.expected, side: .c)
            return elapsed
        },
        literecord: { fixture, _ in
            var items: [PostgresItem] = []
            let elapsed = try Stopwatch.measure {
                items = try findLiteRecord(fixture.keys, fixture.server.literecord)
            }
            try verify(items, fixture.expected, side: .literecord)
            return elapsed
        })

    /// The C side's measured work. Kept out of line so that a profiler can tell it apart.
    @inline(never)
    static func findC(_ keys: [Int64], _ connection: CPostgresConnection, _ codec: CPostgresItemCodec) throws
        -> [PostgresItem]
    {
        var items: [PostgresItem] = []
        items.reserveCapacity(keys.count)
        let name = try connection.preparedName(PostgresItemModel.find, types: [20])
        var key: Int64 = 0
        var length: Int32 = 8
        var format: Int32 = 1
        try withUnsafeMutableBytes(of: &key) { keyBytes in
            var value: UnsafePointer<CChar>? = UnsafePointer(
                keyBytes.baseAddress?.assumingMemoryBound(to: CChar.self))
            for next in keys {
                keyBytes.storeBytes(of: next.bigEndian, as: Int64.self)
                try connection.queryPrepared(
                    name, values: &value, lengths: &length, formats: &format, count: 1, resultFormat: 1
                ) { result in
                    if PQntuples(result) > 0 { items.append(try codec.read(result, row: 0)) }
                }
            }
        }
        return items
    }

    /// LiteRecord's measured work.
    @inline(never)
    static func findLiteRecord(_ keys: [Int64], _ database: PostgresDatabase) throws -> [PostgresItem] {
        var items: [PostgresItem] = []
        items.reserveCapacity(keys.count)
        for key in keys {
            if let item = try database.find(PostgresItem.self, id: key) { items.append(item) }
        }
        return items
    }

    // MARK: - Fixtures and checks

    /// A `SELECT` without `ORDER BY` returns rows in whatever order the server scans them (the
    /// heap is not kept in insertion order), so a round's rows are compared in key order,
    /// sorted outside the measured part.
    private static func inKeyOrder(_ items: [PostgresItem]) -> [PostgresItem] {
        items.sorted { ($0.id ?? 0) < ($1.id ?? 0) }
    }

    /// A table of `size` rows inserted by the C side, which LiteRecord must read back exactly.
    private static func filledTable(size: Int) throws -> (
        server: PostgresItemModel.Server, codec: CPostgresItemCodec, expected: [PostgresItem]
    ) {
        let server = try PostgresItemModel.Server()
        try server.verifyColumns()
        let items = PostgresItemModel.makeItems(count: size)
        let codec = CPostgresItemCodec()
        _ = try PostgresItemModel.insertC(items, into: server.c, codec: codec)
        return (server, codec, PostgresItemModel.withKeys(items))
    }

    private static func verify(_ items: [PostgresItem], _ expected: [PostgresItem], side: Side) throws {
        guard items != expected else { return }
        var problem = "\(items.count) models, expected \(expected.count)"
        if let index = (0..<min(items.count, expected.count)).first(where: { items[$0] != expected[$0] }) {
            problem += "; model \(index) is \(items[index]), expected \(expected[index])"
        }
        throw FixtureError(description: "\(side.rawValue) side read \(problem)")
    }

    private static func verify(_ keySum: Int64, _ expected: Int64, side: Side) throws {
        guard keySum != expected else { return }
        throw FixtureError(
            description: "\(side.rawValue) side's generated keys sum to \(keySum), not \(expected)")
    }

    private static func verify(_ fingerprint: String, expected: String, side: Side, after operation: String)
        throws
    {
        guard fingerprint != expected else { return }
        throw FixtureError(
            description:
                "\(side.rawValue) side's table after its \(operation): \(fingerprint), expected \(expected)")
    }
}
