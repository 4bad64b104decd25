import Foundation
import LiteRecord
import LiteRecordPostgres
import LiteRecordTestSupport
import Testing

// Prepared statements cached per connection (issue 32, item 3): a statement that comes back is
// prepared once and reused, and whatever drops prepared statements on the server (the pool's
// `DISCARD ALL`, a caller's `DEALLOCATE`, a new connection) or changes what they return (a
// column added to a table read by `SELECT *`) leaves every operation working.

struct PreparedCounter: Model, Equatable {
    var id: Int64?
    var label: String
    var count: Int
    static let schema = Schema<PreparedCounter>(table: "prepared_counters")
}

/// Serialized: its tests terminate backends and count the server's prepared statements, and
/// each holds three connections.
@Suite(
    .enabled(if: PostgresTestServer.isAvailable, PostgresTestServer.skipMessage), .offCooperativePool,
    .serialized)
struct PostgresPreparedStatementTests {
    /// A database with one connection (so every operation shares its prepared statements) and
    /// three counters.
    static func database() throws -> (pg: PostgresDatabase, application: String, admin: PostgresDatabase) {
        let (pg, application, admin) = try PostgresPoolTests.database(maximumConnections: 1)
        for index in 1...3 {
            var counter = PreparedCounter(id: nil, label: "counter \(index)", count: index * 10)
            try pg.insert(&counter)
        }
        return (pg, application, admin)
    }

    /// LiteRecord's prepared statements on the connection, by their SQL text.
    static func prepared(_ pg: PostgresDatabase) throws -> [String] {
        try pg.fetchAll(
            String.self,
            sql:
                "SELECT statement FROM pg_prepared_statements WHERE name LIKE 'literecord%' ORDER BY statement"
        )
    }

    static func findsAll(_ pg: PostgresDatabase) throws -> [PreparedCounter?] {
        try (1...3).map { try pg.find(PreparedCounter.self, id: Int64($0)) }
    }

    static let expected = (1...3).map {
        PreparedCounter(id: Int64($0), label: "counter \($0)", count: $0 * 10)
    }

    @Test func aStatementThatComesBackIsPreparedOnceAndReused() throws {
        let (pg, _, _) = try Self.database()
        for _ in 0..<5 {
            #expect(try Self.findsAll(pg) == Self.expected)
        }
        let statements = try Self.prepared(pg)
        let finds = statements.filter { $0.contains(#"FROM "prepared_counters" WHERE "id" = $1"#) }
        #expect(finds.count == 1, "prepared: \(statements)")
        // Inserts with a nil key share one statement too: three inserts, one prepared.
        let inserts = statements.filter { $0.hasPrefix(#"INSERT INTO "prepared_counters""#) }
        #expect(inserts.count == 1, "prepared: \(statements)")
        // Run once, never prepared.
        #expect(try pg.fetchOne(Int.self, sql: "SELECT 40 + \(2)") == 42)
        #expect(try !Self.prepared(pg).contains { $0.contains("40 +") })
    }

    @Test func theSessionResetDropsThemAndTheyArePreparedAgain() throws {
        let (pg, _, _) = try Self.database()
        #expect(try Self.findsAll(pg) == Self.expected)
        #expect(try Self.findsAll(pg) == Self.expected)
        // A temporary table makes the pool run DISCARD ALL when the connection comes back.
        try pg.execute(sql: "CREATE TEMP TABLE scratch (x int)")
        #expect(try Self.prepared(pg).isEmpty)
        #expect(try Self.findsAll(pg) == Self.expected)
        #expect(try Self.findsAll(pg) == Self.expected)
        #expect(try Self.prepared(pg).filter { $0.contains(#"WHERE "id" = $1"#) }.count == 1)
    }

    @Test func aCallersDeallocateOrDiscardLeavesEveryOperationWorking() throws {
        let (pg, _, _) = try Self.database()
        #expect(try Self.findsAll(pg) == Self.expected)
        #expect(try Self.findsAll(pg) == Self.expected)
        try pg.execute(sql: "DEALLOCATE ALL")
        #expect(try Self.findsAll(pg) == Self.expected)
        try pg.transaction { tx in
            try tx.execute(sql: "DEALLOCATE ALL")
            #expect(try tx.find(PreparedCounter.self, id: Int64(2)) == Self.expected[1])
        }
        try pg.execute(sql: "DISCARD ALL")
        #expect(try Self.findsAll(pg) == Self.expected)
        var counter = PreparedCounter(id: nil, label: "counter 4", count: 40)
        try pg.insert(&counter)
        #expect(try pg.find(PreparedCounter.self, id: counter.id ?? 0) == counter)
    }

    @Test func aColumnAddedUnderAPreparedSelectStarIsReadOutsideATransaction() throws {
        let (pg, _, admin) = try Self.database()
        let select: SQL = "SELECT * FROM prepared_counters WHERE id = \(Int64(1))"
        #expect(try pg.fetchRows(sql: select).first?.columnNames == ["id", "label", "count"])
        #expect(try pg.fetchRows(sql: select).first?.columnNames == ["id", "label", "count"])
        // Another connection changes the table: the plan's result type changed (SQLSTATE 0A000).
        let schema = try Self.schema(of: pg)
        try admin.execute(sql: "ALTER TABLE \(identifier: schema).prepared_counters ADD extra int DEFAULT 7")
        let row = try #require(try pg.fetchRows(sql: select).first)
        #expect(row.columnNames == ["id", "label", "count", "extra"])
        #expect(try row.value(Int.self, named: "extra") == 7)
        #expect(try row.value(String.self, named: "label") == "counter 1")
    }

    @Test func aColumnAddedUnderAPreparedSelectStarRunsTheTransactionAgain() throws {
        let (pg, _, admin) = try Self.database()
        let select: SQL = "SELECT * FROM prepared_counters WHERE id = \(Int64(1))"
        #expect(try pg.fetchRows(sql: select).count == 1)
        #expect(try pg.fetchRows(sql: select).count == 1)
        let schema = try Self.schema(of: pg)
        try admin.execute(sql: "ALTER TABLE \(identifier: schema).prepared_counters ADD extra int DEFAULT 7")
        var attempts = 0
        let columns = try pg.transaction { tx in
            attempts += 1
            return try tx.fetchRows(sql: select).first?.columnNames
        }
        #expect(columns == ["id", "label", "count", "extra"])
        #expect(attempts == 2)
    }

    @Test func anAbortedTransactionLeavesThePreparedStatementsWorking() throws {
        let (pg, _, _) = try Self.database()
        #expect(try Self.findsAll(pg) == Self.expected)
        let error = #expect(throws: DatabaseError.self) {
            try pg.transaction { tx in
                _ = try? tx.execute(
                    sql: "INSERT INTO prepared_counters (id, label, count) VALUES (1, 'again', 0)")
                // Second use of the find, in the aborted transaction: refused as before.
                _ = try tx.find(PreparedCounter.self, id: Int64(1))
            }
        }
        #expect(error?.sqlState == "25P02")
        #expect(try Self.findsAll(pg) == Self.expected)
        #expect(try Self.findsAll(pg) == Self.expected)
        #expect(try pg.count(PreparedCounter.self) == 3)
    }

    @Test func aNewConnectionPreparesItsOwn() throws {
        let (pg, application, admin) = try Self.database()
        #expect(try Self.findsAll(pg) == Self.expected)
        #expect(try Self.findsAll(pg) == Self.expected)
        #expect(try PostgresPoolTests.terminate(application, from: admin) == 1)
        #expect(try Self.findsAll(pg) == Self.expected)
        #expect(try Self.findsAll(pg) == Self.expected)
        #expect(try Self.prepared(pg).filter { $0.contains(#"WHERE "id" = $1"#) }.count == 1)
    }

    @Test func binaryResultsReadTheValuesTextResultsRead() throws {
        let (pg, _, _) = try Self.database()
        try pg.execute(
            sql: """
                CREATE TABLE kinds (k int, i2 int2, i4 int4, i8 int8, f4 float4, f8 float8, b bool,
                    bytes bytea, t text, v varchar(9), c char(4), j json, jb jsonb, n numeric)
                """)
        try pg.execute(
            sql: """
                INSERT INTO kinds VALUES
                (1, -32768, -2147483648, -9223372036854775808, 1.1, -0.0, true, '\\x00ff', 'é ☃', 'v', 'ab',
                    '{"a": [1, 2]}', '{"b": "x", "a": 1}', 12.50),
                (2, 32767, 2147483647, 9223372036854775807, 'NaN', 'Infinity', false, '', '', '', '',
                    '[]', '[]', 0),
                (3, 0, 0, 0, 0, 'NaN', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
                (4, 1, 2, 3, -1e30, 0.1, true, '\\x01', 'x', 'y', 'z', '1', '"s"', -1)
                """)
        // The first run is unprepared (text results); the next ones run prepared, every column
        // of the second query in binary.
        let all: SQL = "SELECT * FROM kinds WHERE k > \(0) ORDER BY k"
        let numbers: SQL =
            "SELECT k, i2, i4, i8, f8, b, bytes, t, v, c, j, jb FROM kinds WHERE k > \(0) ORDER BY k"
        for sql in [all, numbers] {
            let text = try pg.fetchRows(sql: sql)
            for _ in 0..<2 {
                let again = try pg.fetchRows(sql: sql)
                #expect(again.map(\.columnNames) == text.map(\.columnNames))
                #expect(again.count == 4)
                for (row, expected) in zip(again, text) {
                    for index in 0..<row.count {
                        // NaN is not equal to itself: compared by bits.
                        let value = try row.value(at: index)
                        let reference = try expected.value(at: index)
                        if case .real(let a) = value, case .real(let b) = reference {
                            #expect(a.bitPattern == b.bitPattern, "\(row.columnNames[index]): \(a) \(b)")
                        } else {
                            #expect(value == reference, "\(row.columnNames[index])")
                        }
                    }
                }
            }
        }
        let first = try #require(try pg.fetchRows(sql: numbers).first)
        #expect(try first.value(Int64.self, named: "i8") == Int64.min)
        #expect(try first.value(Data.self, named: "bytes") == Data([0, 255]))
        #expect(try first.value(String.self, named: "t") == "é ☃")
        #expect(try first.value(String.self, named: "c") == "ab  ")
        #expect(try first.value(String.self, named: "jb") == #"{"a": 1, "b": "x"}"#)
        #expect(try first.value(Bool.self, named: "b") == true)
    }

    static func batch(_ range: ClosedRange<Int>) -> [PreparedCounter] {
        range.map { PreparedCounter(id: nil, label: "batch \($0)", count: $0) }
    }

    @Test func insertContentsOfSendsPipelinesAndSetsEveryKey() throws {
        let (pg, _, _) = try Self.database()
        // More models than one pipeline holds (256).
        let inserted = try pg.insert(contentsOf: Self.batch(1...600))
        #expect(inserted.map(\.id) == (4...603).map { Int64($0) })
        #expect(inserted.map(\.label) == Self.batch(1...600).map(\.label))
        let stored = try pg.query(PreparedCounter.self).where { $0.count < 1000 }.order { $0.id.ascending }
            .fetchAll()
        #expect(stored == Self.expected + inserted)
        // The connection left pipeline mode: plain statements still run.
        #expect(try pg.fetchOne(Int.self, sql: "SELECT 40 + \(2)") == 42)
    }

    @Test func aFailureInAPipelineIsTheSameErrorAndWritesNothing() throws {
        let (pg, _, _) = try Self.database()
        try pg.execute(sql: "CREATE UNIQUE INDEX prepared_counters_label ON prepared_counters (label)")
        var duplicate = PreparedCounter(id: nil, label: "counter 2", count: 0)
        let single = #expect(throws: DatabaseError.self) { try pg.insert(&duplicate) }
        // The duplicate in the middle of the second pipeline.
        var models = Self.batch(1...600)
        models[300] = duplicate
        let batch = #expect(throws: DatabaseError.self) { try pg.insert(contentsOf: models) }
        #expect(batch?.resultCode == .constraintUnique)
        #expect(batch?.resultCode == single?.resultCode)
        #expect(batch?.message == single?.message)
        #expect(batch?.sqlState == "23505")
        #expect(try pg.count(PreparedCounter.self) == 3)
        // In a transaction: the savepoint is rolled back, the rest of the transaction goes on.
        let kept = try pg.transaction { tx -> Int in
            var before = PreparedCounter(id: nil, label: "before", count: 1)
            try tx.insert(&before)
            let error = #expect(throws: DatabaseError.self) { try tx.insert(contentsOf: models) }
            #expect(error?.resultCode == .constraintUnique)
            _ = try tx.insert(contentsOf: Self.batch(1...10))
            return try tx.count(PreparedCounter.self)
        }
        #expect(kept == 3 + 1 + 10)
        #expect(try pg.count(PreparedCounter.self) == 14)
        #expect(try Self.findsAll(pg) == Self.expected)
    }

    /// The schema the database's connections use (`PostgresPoolTests.database` makes one).
    static func schema(of pg: PostgresDatabase) throws -> String {
        try #require(try pg.fetchOne(String.self, sql: "SELECT current_schema()"))
    }
}
