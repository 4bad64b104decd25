import Foundation
import LiteRecord
import LiteRecordPostgres
import LiteRecordTestSupport
import Testing

// `insert(contentsOf:)` by COPY (issue 32, item 3): differential against one `insert(&model)` at a
// time, value by value as read back; the same refusals; nothing written after a failure; keys
// in order, from a sequence that concurrent writers share.

private enum CopyKind: String, Codable, CaseIterable {
    case plain
    case tab = "a\tb"
    case backslash = #"c\d"#
}

private struct CopyNested: Codable, Equatable {
    var label: String
    var values: [Int]
}

/// A property of every leaf type LiteRecord stores.
private struct CopyLeaves: Model, Equatable {
    var id: Int64?
    var text: String
    var optionalText: String?
    var int: Int
    var int8: Int8
    var int16: Int16
    var int32: Int32
    var uint8: UInt8
    var uint16: UInt16
    var uint32: UInt32
    var uint64: UInt64
    var double: Double
    var optionalDouble: Double?
    var float: Float
    var flag: Bool
    var optionalFlag: Bool?
    var date: Date
    var optionalDate: Date?
    var data: Data
    var optionalData: Data?
    var uuid: UUID
    var decimal: Decimal
    var tags: [String]
    var nested: CopyNested
    var dictionary: [String: Int]
    var kind: CopyKind
    var url: URL?
    static let schema = Schema<CopyLeaves>(table: "copy_leaves", indexes: [[\.int]])
}

/// Text that COPY's escaping must carry: its delimiters, escapes, markers, and unicode.
private let awkwardPieces = [
    "a", "é", "☃", "😀", "👩‍👩‍👧", "\t", "\n", "\r", "\r\n", "\\", "\\N", "\\.", "\\t", "\\x00", " ", "\"", "'",
    ",",
    "{", "}", "[1]", "NULL", "null", "\u{1}", "\u{7F}", "\u{FEFF}", "e\u{301}",
]

private func awkwardText(using generator: inout SplitMix64) -> String {
    let count = generator.below(6)
    return (0..<count).map { _ in awkwardPieces[generator.below(awkwardPieces.count)] }.joined()
}

private func randomLeaves(_ index: Int, using generator: inout SplitMix64) -> CopyLeaves {
    let doubles: [Double] = [
        0, -0.0, 0.1, -1.5, 1e-300, 5e-324, .greatestFiniteMagnitude, -.greatestFiniteMagnitude, .infinity,
        -.infinity, 123_456_789.012_345_6, Double(Int64.max),
    ]
    let floats: [Float] = [0, 0.1, -3.25, .greatestFiniteMagnitude, .leastNonzeroMagnitude, .infinity]
    func maybe<T>(_ value: T) -> T? { generator.below(3) == 0 ? nil : value }
    let bytes = Data((0..<generator.below(20)).map { _ in UInt8(truncatingIfNeeded: generator.next()) })
    let seconds = Double(Int64(bitPattern: generator.next()) % 6_000_000_000) / 1000
    let decimals: [Decimal] = [0, 1, Decimal(string: "-12.345")!, Decimal(string: "0.000000000000000001")!]
    return CopyLeaves(
        id: nil, text: awkwardText(using: &generator), optionalText: maybe(awkwardText(using: &generator)),
        int: Int(bitPattern: UInt(generator.next())) >> generator.below(64),
        int8: Int8(truncatingIfNeeded: generator.next()), int16: Int16(truncatingIfNeeded: generator.next()),
        int32: Int32(truncatingIfNeeded: generator.next()),
        uint8: UInt8(truncatingIfNeeded: generator.next()),
        uint16: UInt16(truncatingIfNeeded: generator.next()),
        uint32: UInt32(truncatingIfNeeded: generator.next()), uint64: generator.next() >> 1,
        double: doubles[generator.below(doubles.count)] + (generator.below(2) == 0 ? 0 : 0.25),
        optionalDouble: maybe(Double(Int64(bitPattern: generator.next())) / 7),
        float: floats[generator.below(floats.count)], flag: generator.below(2) == 0,
        optionalFlag: maybe(generator.below(2) == 0), date: Date(timeIntervalSinceReferenceDate: seconds),
        optionalDate: maybe(Date(timeIntervalSinceReferenceDate: -seconds)), data: bytes,
        optionalData: maybe(Data(bytes.reversed())), uuid: UUID(),
        decimal: decimals[generator.below(decimals.count)],
        tags: (0..<generator.below(4)).map { _ in awkwardText(using: &generator) },
        nested: CopyNested(label: awkwardText(using: &generator), values: [index, -index]),
        dictionary: [awkwardText(using: &generator): index],
        kind: CopyKind.allCases[generator.below(CopyKind.allCases.count)],
        url: maybe(URL(string: "https://example.com/\(index)?q=a%09b")!))
}

private struct CopyCounter: Model, Equatable {
    var id: Int64?
    var label: String
    var count: Int
    static let schema = Schema<CopyCounter>(table: "copy_counters", unique: [\.label])
}

/// A model with no index of its own, for a view that another tool made updatable.
private struct CopyTally: Model, Equatable {
    var id: Int64?
    var label: String
    static let schema = Schema<CopyTally>(table: "copy_tallies")
}

private func counters(_ range: ClosedRange<Int>) -> [CopyCounter] {
    range.map { CopyCounter(id: nil, label: "counter \($0)", count: $0) }
}

/// Every row of a table as the server's own text of it, in key order.
private func serverText(_ database: PostgresDatabase, table: String) throws -> [String] {
    try database.fetchAll(
        String.self, sql: SQL(verbatim: "SELECT row_to_json(t)::text FROM \"\(table)\" AS t ORDER BY id"))
}

@Suite(.enabled(if: PostgresTestServer.isAvailable, PostgresTestServer.skipMessage), .offCooperativePool)
struct PostgresCopyInsertTests {
    @Test func everyLeafTypeReadsBackAsFromSingleInserts() throws {
        for seed in 1...3 {
            var generator = SplitMix64(state: UInt64(seed))
            let models = (0..<300).map { randomLeaves($0, using: &generator) }
            // The table is created by the batch's first use, as by the first single insert.
            let copied = try PostgresTestServer.freshDatabase()
            let single = try PostgresTestServer.freshDatabase()
            let batch = try copied.insert(contentsOf: models)
            var inserted: [CopyLeaves] = []
            for model in models {
                var model = model
                try single.insert(&model)
                inserted.append(model)
            }
            #expect(batch.map(\.id) == (1...300).map { Int64($0) })
            #expect(batch == inserted)
            let copiedRows = try copied.fetchRows(sql: "SELECT * FROM copy_leaves ORDER BY id")
            let singleRows = try single.fetchRows(sql: "SELECT * FROM copy_leaves ORDER BY id")
            #expect(copiedRows.count == 300)
            for (copiedRow, singleRow) in zip(copiedRows, singleRows) {
                #expect(copiedRow == singleRow)
            }
            #expect(try serverText(copied, table: "copy_leaves") == serverText(single, table: "copy_leaves"))
            let readBack = try copied.query(CopyLeaves.self).order { $0.id.ascending }.fetchAll()
            #expect(try readBack == single.query(CopyLeaves.self).order { $0.id.ascending }.fetchAll())
            #expect(readBack == batch)
        }
    }

    @Test func textWithNULIsRefusedAsBySingleInsertsAndNothingIsWritten() throws {
        let pg = try PostgresTestServer.freshDatabase()
        try pg.migrate(CopyCounter.self)
        var refused = CopyCounter(id: nil, label: "a\u{0}b", count: 0)
        let single = #expect(throws: DatabaseError.self) { try pg.insert(&refused) }
        var models = counters(1...200)
        models[120] = refused
        let batch = #expect(throws: DatabaseError.self) { try pg.insert(contentsOf: models) }
        #expect(batch?.resultCode == .mismatch)
        #expect(batch?.resultCode == single?.resultCode)
        #expect(batch?.message == single?.message)
        #expect(try pg.count(CopyCounter.self) == 0)
    }

    /// Rows are encoded while the first ones are sent: a refusal far into the batch ends a COPY
    /// already under way, which leaves nothing and the transaction usable.
    @Test func aRefusalAfterTheFirstRowsWereSentWritesNothingAndTheTransactionGoesOn() throws {
        let pg = try PostgresTestServer.freshDatabase()
        var generator = SplitMix64(state: 11)
        let models = (0..<5000).map { randomLeaves($0, using: &generator) }
        try pg.migrate(CopyLeaves.self)
        var withNUL = models[4000]
        withNUL.text = "nul \u{0} inside"
        var tooBig = models[4500]
        tooBig.uint64 = .max
        for refused in [withNUL, tooBig] {
            var single = refused
            var singleError = ""
            do { try pg.insert(&single) } catch { singleError = "\(error)" }
            var batch = models
            batch[4000 + (refused == withNUL ? 0 : 500)] = refused
            let kept = try pg.transaction { tx -> [CopyLeaves] in
                var before = models[0]
                try tx.insert(&before)
                var batchError = ""
                do { _ = try tx.insert(contentsOf: batch) } catch { batchError = "\(error)" }
                #expect(!batchError.isEmpty)
                #expect(batchError == singleError)
                return [before] + (try tx.insert(contentsOf: models[1...100]))
            }
            #expect(try pg.query(CopyLeaves.self).order { $0.id.ascending }.fetchAll() == kept)
            try pg.execute(sql: "DELETE FROM copy_leaves")
        }
    }

    @Test func nanIsRefusedAsBySingleInsertsAndNothingIsWritten() throws {
        let pg = try PostgresTestServer.freshDatabase()
        var generator = SplitMix64(state: 5)
        var models = (0..<100).map { randomLeaves($0, using: &generator) }
        try pg.migrate(CopyLeaves.self)
        var refused = models[40]
        refused.double = .nan
        models[40] = refused
        var single = ""
        do { try pg.insert(&refused) } catch { single = "\(error)" }
        var batch = ""
        do { _ = try pg.insert(contentsOf: models) } catch { batch = "\(error)" }
        #expect(!single.isEmpty)
        #expect(batch == single)
        #expect(try pg.count(CopyLeaves.self) == 0)
    }

    @Test func constraintViolationsAreTheSameErrorsAndWriteNothing() throws {
        let pg = try PostgresTestServer.freshDatabase()
        try pg.insert(contentsOf: counters(1...3))
        try pg.execute(sql: "ALTER TABLE copy_counters ADD CONSTRAINT positive CHECK (count >= 0)")
        var duplicate = CopyCounter(id: nil, label: "counter 2", count: 0)
        var negative = CopyCounter(id: nil, label: "negative", count: -1)
        var chosenTwice = CopyCounter(id: 1, label: "chosen", count: 1)
        let failures: [(CopyCounter, ResultCode, String)] = [
            (duplicate, .constraintUnique, "23505"), (negative, .constraintCheck, "23514"),
            (chosenTwice, .constraintPrimaryKey, "23505"),
        ]
        let singles = [
            #expect(throws: DatabaseError.self) { try pg.insert(&duplicate) },
            #expect(throws: DatabaseError.self) { try pg.insert(&negative) },
            #expect(throws: DatabaseError.self) { try pg.insert(&chosenTwice) },
        ]
        for ((refused, code, state), single) in zip(failures, singles) {
            // In the middle of a batch, all of whose other keys are chosen or all generated.
            var models = counters(10...300)
            if refused.id != nil {
                models = models.enumerated().map {
                    CopyCounter(id: Int64(1000 + $0), label: $1.label, count: $1.count)
                }
            }
            models[150] = refused
            let batch = #expect(throws: DatabaseError.self) { try pg.insert(contentsOf: models) }
            #expect(batch?.resultCode == code)
            #expect(batch?.sqlState == state)
            #expect(batch?.resultCode == single?.resultCode)
            #expect(batch?.message == single?.message)
            // Named by the refused model's INSERT and values, as by the INSERT path.
            #expect(batch?.sql == single?.sql)
            #expect(batch?.arguments == single?.arguments)
            #expect(try pg.count(CopyCounter.self) == 3)
            // In a transaction: its savepoint is rolled back, the rest of the transaction goes on.
            let kept = try pg.transaction { tx -> Int in
                var before = CopyCounter(id: nil, label: "before", count: 1)
                try tx.insert(&before)
                let error = #expect(throws: DatabaseError.self) { try tx.insert(contentsOf: models) }
                #expect(error?.resultCode == code)
                #expect(error?.message == single?.message)
                _ = try tx.insert(contentsOf: counters(400...499))
                return try tx.count(CopyCounter.self)
            }
            #expect(kept == 3 + 1 + 100)
            try pg.execute(sql: "DELETE FROM copy_counters WHERE id > 3")
        }
        #expect(
            try pg.query(CopyCounter.self).order { $0.id.ascending }.fetchAll().map(\.label)
                == ["counter 1", "counter 2", "counter 3"])
    }

    @Test func chosenKeysAreCopiedAndGeneratedKeysComeAfterThem() throws {
        let pg = try PostgresTestServer.freshDatabase()
        let chosen = (1...100).map { CopyCounter(id: Int64(1000 + $0), label: "chosen \($0)", count: $0) }
        #expect(try pg.insert(contentsOf: chosen) == chosen)
        let generated = try pg.insert(contentsOf: counters(1...100))
        #expect(generated.map(\.id) == (1101...1200).map { Int64($0) })
        // Some keys chosen, some generated: each model as by a single insert.
        var mixed = counters(201...300)
        mixed[10].id = 5000
        let inserted = try pg.insert(contentsOf: mixed)
        #expect(inserted[10].id == 5000)
        #expect(inserted.filter { $0.id != 5000 }.allSatisfy { ($0.id ?? 0) > 1200 && ($0.id ?? 0) != 5000 })
        let stored = try pg.query(CopyCounter.self).order { $0.id.ascending }.fetchAll()
        #expect(stored == (chosen + generated + inserted).sorted { ($0.id ?? 0) < ($1.id ?? 0) })
    }

    // COPY stores a value given for a GENERATED ALWAYS identity column, where INSERT refuses it:
    // 63 chosen keys were refused (SQLSTATE 428C9) and 64 stored.
    @Test func chosenKeysForAnAlwaysGeneratedIdentityAreRefusedAsBySingleInserts() throws {
        let pg = try PostgresTestServer.freshDatabase()
        try pg.execute(
            sql: """
                CREATE TABLE copy_counters (
                    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                    label text NOT NULL UNIQUE,
                    count bigint NOT NULL)
                """)
        for size in [1, 63, 64, 100] {
            let chosen = (1...size).map {
                CopyCounter(id: Int64(1000 + $0), label: "chosen \($0)", count: $0)
            }
            #expect {
                try pg.insert(contentsOf: chosen)
            } throws: { error in
                (error as? DatabaseError)?.sqlState == "428C9"
            }
        }
        #expect(try pg.count(CopyCounter.self) == 0)
        // Generated keys are still taken from the identity's sequence, in order.
        let generated = try pg.insert(contentsOf: counters(1...100))
        #expect(generated.map(\.id) == (1...100).map { Int64($0) })
        #expect(try pg.query(CopyCounter.self).order { $0.id.ascending }.fetchAll() == generated)
    }

    // COPY cannot write into a view, and skips a table's rules: 64 chosen keys into an
    // updatable view failed ("cannot copy to view", SQLSTATE 42809) where 63 were stored, and a
    // rule that logs each insert missed the rows of a batch of 64.
    @Test func viewsAndTablesWithRulesTakeTheBatchAsSingleInserts() throws {
        let pg = try PostgresTestServer.freshDatabase()
        try pg.execute(
            sql: """
                CREATE TABLE copy_tally_rows (
                    id bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY, label text NOT NULL);
                CREATE VIEW copy_tallies AS SELECT id, label FROM copy_tally_rows;
                CREATE TABLE copy_log (label text NOT NULL);
                CREATE RULE log_insert AS ON INSERT TO copy_tally_rows
                    DO ALSO INSERT INTO copy_log VALUES (NEW.label);
                """)
        let chosen = (1...100).map { CopyTally(id: Int64(1000 + $0), label: "chosen \($0)") }
        #expect(try pg.insert(contentsOf: chosen) == chosen)
        #expect(try pg.query(CopyTally.self).order { $0.id.ascending }.fetchAll() == chosen)
        // The table itself, under its rule: chosen keys, then generated ones.
        try pg.execute(sql: "DROP VIEW copy_tallies; ALTER TABLE copy_tally_rows RENAME TO copy_tallies")
        try pg.execute(sql: "DELETE FROM copy_tallies; DELETE FROM copy_log")
        #expect(try pg.insert(contentsOf: chosen) == chosen)
        let generated = try pg.insert(
            contentsOf: (1...100).map { CopyTally(id: nil, label: "generated \($0)") })
        #expect(generated.allSatisfy { ($0.id ?? 0) > 1100 })
        let logged = try pg.fetchAll(String.self, sql: "SELECT label FROM copy_log ORDER BY label")
        #expect(logged == (chosen + generated).map(\.label).sorted())
    }

    @Test func writersSharingTheSequenceNeverGetTheSameKey() async throws {
        let databases = try PostgresTestServer.freshDatabases(count: 4)
        try await databases[0].migrate(CopyCounter.self)
        let batches = try await withThrowingTaskGroup(of: [[CopyCounter]].self) { group in
            for (writer, database) in databases.enumerated() {
                group.addTask {
                    var mine: [[CopyCounter]] = []
                    for round in 0..<5 {
                        let first = (writer * 5 + round) * 1000
                        mine.append(try await database.insert(contentsOf: counters(first...(first + 299))))
                    }
                    return mine
                }
            }
            return try await group.reduce(into: []) { $0 += $1 }
        }
        let keys = batches.flatMap { $0.map { $0.id ?? 0 } }
        #expect(keys.count == 4 * 5 * 300)
        #expect(Set(keys).count == keys.count)
        for batch in batches {
            // Each batch's keys increase with its models, as its INSERTs' did.
            let increasing = zip(batch, batch.dropFirst()).allSatisfy { ($0.id ?? 0) < ($1.id ?? 0) }
            #expect(increasing)
        }
        let stored = try await databases[0].query(CopyCounter.self).order { $0.id.ascending }.fetchAll()
        #expect(stored == batches.flatMap { $0 }.sorted { ($0.id ?? 0) < ($1.id ?? 0) })
    }

    @Test func rowTriggersFireAndAKeyWithoutItsOwnSequenceGoesThroughInserts() throws {
        let pg = try PostgresTestServer.freshDatabase()
        try pg.execute(
            sql: """
                CREATE SEQUENCE shared_numbers START 7;
                CREATE TABLE copy_counters (
                    id bigint PRIMARY KEY DEFAULT nextval('shared_numbers'), label text UNIQUE, count bigint NOT NULL);
                CREATE TABLE copy_audit (label text);
                CREATE FUNCTION audit() RETURNS trigger LANGUAGE plpgsql AS
                    $$ BEGIN INSERT INTO copy_audit VALUES (NEW.label); RETURN NEW; END $$;
                CREATE TRIGGER audited AFTER INSERT ON copy_counters FOR EACH ROW EXECUTE FUNCTION audit();
                CREATE TABLE copy_statements (n int);
                CREATE FUNCTION count_statement() RETURNS trigger LANGUAGE plpgsql AS
                    $$ BEGIN INSERT INTO copy_statements VALUES (1); RETURN NULL; END $$;
                CREATE TRIGGER counted AFTER INSERT ON copy_counters FOR EACH STATEMENT
                    EXECUTE FUNCTION count_statement();
                """)
        // More models than one INSERT pipeline holds (256).
        let inserted = try pg.insert(contentsOf: counters(1...600))
        #expect(inserted.map(\.id) == (7...606).map { Int64($0) })
        #expect(try pg.query(CopyCounter.self).order { $0.id.ascending }.fetchAll() == inserted)
        #expect(
            try pg.fetchAll(String.self, sql: "SELECT label FROM copy_audit ORDER BY label")
                == counters(1...600).map(\.label).sorted())
        // One INSERT statement per model.
        #expect(try pg.fetchOne(Int.self, sql: "SELECT count(*) FROM copy_statements") == 600)
        // A table whose key has a sequence of its own goes by COPY: its row trigger fires too,
        // and its statement trigger once.
        try pg.execute(sql: "DROP TABLE copy_counters; DELETE FROM copy_audit; DELETE FROM copy_statements")
        try pg.execute(
            sql: """
                CREATE TABLE copy_counters (
                    id bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY, label text UNIQUE, count bigint NOT NULL);
                CREATE TRIGGER audited AFTER INSERT ON copy_counters FOR EACH ROW EXECUTE FUNCTION audit();
                CREATE TRIGGER counted AFTER INSERT ON copy_counters FOR EACH STATEMENT
                    EXECUTE FUNCTION count_statement();
                """)
        let copied = try pg.insert(contentsOf: counters(1...600))
        #expect(copied.map(\.id) == (1...600).map { Int64($0) })
        #expect(
            try pg.fetchAll(String.self, sql: "SELECT label FROM copy_audit ORDER BY label")
                == counters(1...600).map(\.label).sorted())
        #expect(try pg.fetchOne(Int.self, sql: "SELECT count(*) FROM copy_statements") == 1)
    }

    @Test func aReadTransactionRefusesTheBatchAsASingleInsert() throws {
        let pg = try PostgresTestServer.freshDatabase()
        try pg.migrate(CopyCounter.self)
        let single = #expect(throws: DatabaseError.self) {
            try pg.read { tx in
                var one = CopyCounter(id: nil, label: "one", count: 1)
                try tx.insert(&one)
            }
        }
        let batch = #expect(throws: DatabaseError.self) {
            try pg.read { tx in try tx.insert(contentsOf: counters(1...100)) }
        }
        #expect(batch?.resultCode == .readOnly)
        #expect(batch?.message == single?.message)
        #expect(try pg.count(CopyCounter.self) == 0)
    }
}
