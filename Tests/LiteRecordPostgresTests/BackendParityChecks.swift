import Foundation
import LiteRecord
import Testing

// One source of checks for every backend: each function takes the library's `ModelContext` (and
// the `ParityBackend` it runs on, for messages) and is run by `SQLiteParityTests`,
// `SQLiteFileParityTests` and `PostgresParityTests`. Where PostgreSQL differs (text cannot hold
// NUL), the check says so and asserts each backend's own documented behaviour.

enum ParityTeam: String, Codable, Sendable, CaseIterable { case red, blue }

struct ParityStats: Codable, Equatable, Sendable {
    var wins: Int
    var losses: Int
    var ratio: Double
}

struct ParityRecord: Model, Equatable {
    var id: Int64?
    var name: String
    var score: Int
    var ratio: Double
    var flag: Bool
    var bonus: Int?
    var nickname: String?
    var maybe: Bool?
    var team: ParityTeam?
    var joinedAt: Date
    var leftAt: Date?
    var payload: Data
    var tags: [String]
    var stats: ParityStats
    var uuid: UUID
    var big: Int64

    static let schema = Schema<ParityRecord>(
        table: "parity_records", unique: [\.name], indexes: [[\.score], [\.team, \.score]])
}

extension ParityRecord {
    static func random(_ index: Int, using generator: inout some RandomNumberGenerator) -> ParityRecord {
        let teams: [ParityTeam?] = [.red, .blue, nil]
        return ParityRecord(
            id: nil, name: "player \(index) \(Int.random(in: 0..<1000, using: &generator))",
            score: Int.random(in: -50...150, using: &generator),
            ratio: Double.random(in: -2...2, using: &generator),
            flag: Bool.random(using: &generator),
            bonus: Bool.random(using: &generator) ? Int.random(in: 0...10, using: &generator) : nil,
            nickname: Bool.random(using: &generator) ? ["ace", "Bee", "cat", "ace2"][index % 4] : nil,
            maybe: [true, false, nil][Int.random(in: 0...2, using: &generator)],
            team: teams[Int.random(in: 0...2, using: &generator)],
            joinedAt: Date(timeIntervalSinceReferenceDate: Double.random(in: -1e9...1e9, using: &generator)),
            leftAt: Bool.random(using: &generator) ? Date(timeIntervalSinceReferenceDate: 12.345_678) : nil,
            payload: Data(
                (0..<Int.random(in: 0...40, using: &generator)).map { _ in
                    UInt8.random(in: 0...255, using: &generator)
                }),
            tags: Bool.random(using: &generator) ? ["pro", "mvp"] : ["rookie"],
            stats: ParityStats(
                wins: Int.random(in: 0...9, using: &generator),
                losses: Int.random(in: 0...9, using: &generator),
                ratio: Double.random(in: 0...1, using: &generator)),
            uuid: UUID(), big: Int64.random(in: Int64.min...Int64.max, using: &generator))
    }
}

/// A seeded generator, so that a failure can be replayed.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A number in `0..<bound`.
    mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(bound)) }

    /// One of `items`, chosen by the next number.
    mutating func pick<T>(_ items: [T]) -> T { items[below(items.count)] }
}

/// Thrown to abandon a transaction.
struct Abandon: Error {}

enum ParityChecks {
    /// Every kind of value survives insert → find and a query, exactly (a `Date()` included);
    /// update, save (as insert and as update) and delete behave alike.
    static func modelRoundTrip(_ db: some ModelContext, _ backend: ParityBackend) throws {
        var generator = SplitMix64(state: 7)
        var records: [ParityRecord] = []
        for index in 0..<20 {
            var record = ParityRecord.random(index, using: &generator)
            if index == 0 { record.joinedAt = Date() }  // full precision, as Date() gives it
            if index == 1 { (record.big, record.ratio) = (Int64.max, .greatestFiniteMagnitude) }
            if index == 2 { (record.big, record.ratio) = (Int64.min, -0.000_000_123_456_789) }
            try db.insert(&record)
            #expect(record.id != nil)
            records.append(record)
        }
        #expect(Set(records.compactMap(\.id)).count == records.count)
        for record in records {
            let found = try db.find(ParityRecord.self, id: #require(record.id))
            #expect(found == record, "\(backend.name)")
        }
        let all = try db.query(ParityRecord.self).order { $0.id.ascending }.fetchAll()
        #expect(all == records)

        var changed = records[3]
        changed.score += 1000
        changed.nickname = nil
        changed.tags = ["it's", "\"quoted\""]
        try db.update(changed)
        #expect(try db.find(ParityRecord.self, id: #require(changed.id)) == changed)

        var saved = ParityRecord.random(99, using: &generator)
        try db.save(&saved)  // nil key: an insert that sets the key
        #expect(saved.id != nil)
        saved.score = 4242
        try db.save(&saved)  // an update by key
        #expect(try db.find(ParityRecord.self, id: #require(saved.id))?.score == 4242)
        #expect(try db.fetchOne(Int64.self, sql: "SELECT count(*) FROM parity_records") == 21)

        #expect(try db.delete(saved))
        #expect(try !db.delete(saved))
        #expect(try db.find(ParityRecord.self, id: #require(saved.id)) == nil)

        var missing = records[4]
        missing.id = 987_654
        #expect {
            try db.update(missing)
        } throws: { error in
            (error as? PersistenceError)?.isRowNotFound == true
        }

        // A key chosen by the caller, then a generated one: no collision.
        var chosen = ParityRecord.random(500, using: &generator)
        chosen.id = 10_000
        try db.insert(&chosen)
        var next = ParityRecord.random(501, using: &generator)
        try db.insert(&next)
        #expect(try #require(next.id) > 10_000)
    }

    /// Quotes, comment and statement syntax, keywords, emoji, a large text and blob: stored and
    /// read back unchanged, never executed. NUL: SQLite stores it in text; PostgreSQL text cannot
    /// hold it, so the write fails with `.mismatch` and nothing is written.
    static func hostileInput(_ db: some ModelContext, _ backend: ParityBackend) throws {
        var generator = SplitMix64(state: 11)
        let hostile = [
            "O'Brien", "\"; DROP TABLE parity_records; --", "'); DELETE FROM parity_records; --", "?", "$1",
            "$$ dollar $$", "\\x00ff", "SELECT", "-- comment", "/* c */", "😀 emoji ü", "a\nb\r\nc\t",
            String(repeating: "long text ", count: 100_000),
        ]
        for (index, text) in hostile.enumerated() {
            var record = ParityRecord.random(index, using: &generator)
            // Short enough for a unique index (PostgreSQL's B-tree holds keys up to ~2.7 kB).
            record.name = String(text.prefix(100)) + " #\(index)"
            record.nickname = text
            record.tags = [text, "?"]
            record.payload =
                Data([0, 39, 34, 63, 0, 255]) + Data(repeating: 0, count: index == 0 ? 2_000_000 : 3)
            try db.insert(&record)
            let found = try db.find(ParityRecord.self, id: #require(record.id))
            #expect(found == record, "\(backend.name): \(text.prefix(40))")
            let byName = try db.query(ParityRecord.self).where { $0.nickname == text }.fetchAll()
            #expect(byName.map(\.id) == [record.id])
        }
        #expect(
            try db.fetchOne(Int64.self, sql: "SELECT count(*) FROM parity_records") == Int64(hostile.count))

        var withNUL = ParityRecord.random(100, using: &generator)
        withNUL.name = "nul\u{0}inside"
        if backend.isSQLite {
            try db.insert(&withNUL)
            #expect(try db.find(ParityRecord.self, id: #require(withNUL.id))?.name == "nul\u{0}inside")
        } else {
            #expect {
                try db.insert(&withNUL)
            } throws: { error in
                let error = error as? DatabaseError
                return error?.resultCode == .mismatch && error?.message.contains("NUL") == true
            }
            #expect(withNUL.id == nil)
            #expect(
                try db.fetchOne(Int64.self, sql: "SELECT count(*) FROM parity_records")
                    == Int64(hostile.count))
        }
    }

    /// A NaN bound as a raw SQL parameter is refused before anything runs, on both backends
    /// (SQLite stored NULL for it, PostgreSQL NaN), as a `Double` NaN in a model already is.
    static func nanParameterIsRefused(_ db: some ModelContext, _ backend: ParityBackend) throws {
        try db.execute(sql: "CREATE TABLE nan_values (x DOUBLE PRECISION)")
        let nan = DatabaseValue.real(.nan)
        let forms: [SQL] = [
            SQL("INSERT INTO nan_values (x) VALUES (?)", arguments: [nan]),
            "INSERT INTO nan_values (x) VALUES (\(nan))",
            SQL(
                "INSERT INTO nan_values (x) VALUES (1.5); INSERT INTO nan_values (x) VALUES (?)",
                arguments: [nan]),
        ]
        for sql in forms where backend.isSQLite || !sql.text.contains(";") {
            let error = try #require(throws: ValueConversionError.self, "\(backend.name): \(sql.text)") {
                try db.execute(sql: sql)
            }
            #expect(error.description.contains("parameter 1 is NaN"))
        }
        // Nothing was written, not even the script's first statement.
        #expect(try db.fetchOne(Int64.self, sql: "SELECT count(*) FROM nan_values") == 0)
        try db.execute(sql: "INSERT INTO nan_values (x) VALUES (\(2.5))")
        #expect(try db.fetchOne(Int64.self, sql: "SELECT count(*) FROM nan_values") == 1)
    }

    /// Constraint violations throw a `DatabaseError` of the same kind on both backends.
    static func constraintErrors(_ db: some ModelContext, _ backend: ParityBackend) throws {
        var generator = SplitMix64(state: 3)
        var first = ParityRecord.random(1, using: &generator)
        try db.insert(&first)
        var duplicate = ParityRecord.random(2, using: &generator)
        duplicate.name = first.name
        expectError(.constraintUnique) { try db.insert(&duplicate) }
        #expect(duplicate.id == nil)

        try db.execute(sql: "CREATE TABLE parents (id INTEGER PRIMARY KEY)")
        try db.execute(
            sql:
                """
                CREATE TABLE children (id INTEGER PRIMARY KEY, parent_id INTEGER REFERENCES parents(id),
                    n INTEGER NOT NULL CHECK (n > 0))
                """)
        try db.execute(sql: "INSERT INTO parents (id) VALUES (\(1))")
        try db.execute(sql: "INSERT INTO children (id, parent_id, n) VALUES (\(1), \(1), \(5))")
        expectError(.constraintForeignKey) {
            try db.execute(sql: "INSERT INTO children (id, parent_id, n) VALUES (\(2), \(99), \(5))")
        }
        expectError(.constraintNotNull) {
            try db.execute(sql: "INSERT INTO children (id, parent_id, n) VALUES (\(3), \(1), \(nil as Int?))")
        }
        expectError(.constraintCheck) {
            try db.execute(sql: "INSERT INTO children (id, parent_id, n) VALUES (\(4), \(1), \(-1))")
        }
        expectError(.constraintPrimaryKey) {
            try db.execute(sql: "INSERT INTO children (id, parent_id, n) VALUES (\(1), \(1), \(5))")
        }
        #expect(try db.fetchOne(Int64.self, sql: "SELECT count(*) FROM children") == 1)
    }

    /// A transaction that throws leaves the database as before; one that returns commits;
    /// a nested transaction (savepoint) that throws undoes only its own work.
    static func transactions(_ db: some ModelContext, _ backend: ParityBackend) throws {
        var generator = SplitMix64(state: 5)
        var kept = ParityRecord.random(1, using: &generator)
        try db.insert(&kept)
        #expect(throws: Abandon.self) {
            try db.transaction { tx in
                var record = ParityRecord.random(2, using: &generator)
                try tx.insert(&record)
                var changed = kept
                changed.score = -999
                try tx.update(changed)
                throw Abandon()
            }
        }
        #expect(try db.find(ParityRecord.self, id: #require(kept.id)) == kept)
        #expect(try db.fetchOne(Int64.self, sql: "SELECT count(*) FROM parity_records") == 1)

        try db.transaction { tx in
            var outer = ParityRecord.random(3, using: &generator)
            try tx.insert(&outer)
            try? tx.transaction { inner in
                var dropped = ParityRecord.random(4, using: &generator)
                try inner.insert(&dropped)
                throw Abandon()
            }
        }
        #expect(try db.fetchOne(Int64.self, sql: "SELECT count(*) FROM parity_records") == 2)
    }

    /// Many threads inserting and reading at once: every row lands once, with its own key.
    static func concurrency(_ db: some ModelDatabase, _ backend: ParityBackend) throws {
        let count = 48
        let failures = FailureList()
        DispatchQueue.concurrentPerform(iterations: count) { index in
            do {
                var generator = SplitMix64(state: UInt64(index))
                var record = ParityRecord.random(index, using: &generator)
                record.name = "concurrent \(index)"
                try db.insert(&record)
                let found = try db.find(ParityRecord.self, id: #require(record.id))
                if found != record { failures.append("row \(index) read back differently") }
            } catch {
                failures.append("\(index): \(error)")
            }
        }
        #expect(failures.all.isEmpty)
        #expect(try db.fetchOne(Int64.self, sql: "SELECT count(*) FROM parity_records") == Int64(count))
        #expect(
            try db.fetchOne(Int64.self, sql: "SELECT count(DISTINCT id) FROM parity_records") == Int64(count))
    }
}

/// Expects `body` to throw a `DatabaseError` of `code`.
func expectError(
    _ code: ResultCode, sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> Void
) {
    #expect(sourceLocation: sourceLocation) {
        try body()
    } throws: { error in
        (error as? DatabaseError)?.resultCode == code
    }
}

/// Messages collected from several threads.
final class FailureList: @unchecked Sendable {
    // @unchecked Sendable: `messages` is only touched under `lock`.
    private let lock = NSLock()
    private var messages: [String] = []
    func append(_ message: String) {
        lock.lock()
        messages.append(message)
        lock.unlock()
    }
    var all: [String] {
        lock.lock()
        defer { lock.unlock() }
        return messages
    }
}
