import Foundation
import LiteRecord
import Testing

// MARK: - Models

private enum ProbedMood: String, Codable, Sendable { case happy, grumpy }
private enum ProbedPriority: Int, Codable, Sendable {
    case low = 10
    case high = 20
}
private struct ProbedAddress: Codable, Equatable, Sendable {
    var street: String
    var zip: Int?
}

/// Every kind of property the probe must read from the type alone.
private struct ProbedEverything: Model, Equatable {
    var id: Int64?
    var mood: ProbedMood
    var maybeMood: ProbedMood?
    var priority: ProbedPriority
    var maybePriority: ProbedPriority?
    var created: Date
    var deleted: Date?
    var token: UUID
    var homepage: URL
    var price: Decimal
    var address: ProbedAddress
    var oldAddress: ProbedAddress?
    var tags: [String]
    var counts: [String: Int]
    var flags: Set<Int>
    var active: Bool
    var ratio: Double
    var photo: Data
    var note: String?
}

/// An enum with associated values, between two other properties: a JSON column.
private enum ProbedShape: Codable, Equatable, Sendable {
    case circle(radius: Double)
    case label(text: String)
}
private struct ProbedDrawing: Model, Equatable {
    var id: Int64?
    var shape: ProbedShape
    var maybeShape: ProbedShape?
    var title: String
}

/// The same, with renamed keys: the columns after `shape` cannot be guessed.
private struct ProbedRenamedDrawing: Model {
    var id: Int64?
    var shape: ProbedShape
    var title: String
    enum CodingKeys: String, CodingKey {
        case id = "ID"
        case shape = "Shape"
        case title = "Title"
    }
}

/// Validates in `init(from:)`: an empty name or a negative score is rejected.
private struct ProbedValidated: Model, Equatable {
    struct Invalid: Error {}
    var id: Int64?
    var name: String
    var score: Int
    var mood: ProbedMood

    init(id: Int64?, name: String, score: Int, mood: ProbedMood) {
        (self.id, self.name, self.score, self.mood) = (id, name, score, mood)
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decodeIfPresent(Int64.self, forKey: .id)
        name = try container.decode(String.self, forKey: .name)
        score = try container.decode(Int.self, forKey: .score)
        mood = try container.decode(ProbedMood.self, forKey: .mood)
        guard !name.isEmpty, score >= 0 else { throw Invalid() }
    }

    static let schema = Schema<ProbedValidated>(unique: [\.name], indexes: [[\.mood, \.score]])
}

/// Rejects the probe's large marker numbers (a score is 0...100), renames its columns and decodes
/// them in another order than it declares its properties.
private struct ProbedStrict: Model, Equatable {
    struct OutOfRange: Error {}
    var id: Int64?
    var name: String
    var score: Int
    var level: Int
    enum CodingKeys: String, CodingKey {
        case id
        case name = "player_name"
        case score = "points"
        case level = "tier"
    }

    init(id: Int64?, name: String, score: Int, level: Int) {
        (self.id, self.name, self.score, self.level) = (id, name, score, level)
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        level = try container.decode(Int.self, forKey: .level)
        score = try container.decode(Int.self, forKey: .score)
        name = try container.decode(String.self, forKey: .name)
        id = try container.decodeIfPresent(Int64.self, forKey: .id)
        guard (0...100).contains(score), (1...5).contains(level) else { throw OutOfRange() }
    }

    static let schema = Schema<ProbedStrict>(unique: [\.name], indexes: [[\.score], [\.level]])
}

/// Validates after decoding every property, in a way no placeholder passes.
private struct ProbedPrefixed: Model, Equatable {
    struct NotPrefixed: Error {}
    var id: Int64?
    var handle: String

    init(id: Int64?, handle: String) {
        (self.id, self.handle) = (id, handle)
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decodeIfPresent(Int64.self, forKey: .id)
        handle = try container.decode(String.self, forKey: .handle)
        guard handle.hasPrefix("@") else { throw NotPrefixed() }
    }
}

/// Rejects everything before reading a single key.
private struct ProbedRejectsEverything: Model {
    struct Refused: Error, CustomStringConvertible {
        var description: String { "refused by ProbedRejectsEverything" }
    }
    var id: Int64?
    var name: String

    init(id: Int64?, name: String) {
        (self.id, self.name) = (id, name)
    }

    init(from decoder: any Decoder) throws { throw Refused() }
}

/// Counts how often its `init(from:)` runs, to show the type is probed once per process.
private struct ProbedCounted: Model {
    static let decodes = EventLog<Int>()
    var id: Int64?
    var name: String

    init(id: Int64?, name: String) {
        (self.id, self.name) = (id, name)
    }

    init(from decoder: any Decoder) throws {
        ProbedCounted.decodes.append(1)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decodeIfPresent(Int64.self, forKey: .id)
        name = try container.decode(String.self, forKey: .name)
    }
}

private struct ProbedColumnInfo: Decodable, Equatable {
    var name: String
    var type: String
    var notnull: Int
}

// MARK: - Tests

@Suite struct TableProbingTests {
    private func columns(_ db: Database, _ table: String) throws -> [ProbedColumnInfo] {
        try db.fetchAll(
            ProbedColumnInfo.self,
            sql: "SELECT name, type, \"notnull\" FROM pragma_table_xinfo(\(table)) ORDER BY cid")
    }

    private static let everything = ProbedEverything(
        id: nil, mood: .grumpy, maybeMood: nil, priority: .high, maybePriority: .low,
        created: Date(timeIntervalSince1970: 1_700_000_000.125), deleted: nil, token: UUID(),
        homepage: URL(string: "https://example.com/a?b=c")!, price: Decimal(string: "12.34")!,
        address: ProbedAddress(street: "Main", zip: nil),
        oldAddress: ProbedAddress(street: "Old", zip: 75_001),
        tags: ["b", "a"], counts: ["z": 1, "a": 2], flags: [3], active: true, ratio: 0.25,
        photo: Data([0, 1, 255]), note: nil)

    // MARK: Columns read from the type

    @Test func everyKindOfPropertyGetsItsDeclaredTypeAndNullability() throws {
        let db = try Database(.inMemory)
        try db.migrate(ProbedEverything.self)
        let expected: [(String, String, Int)] = [
            ("id", "INTEGER", 0), ("mood", "TEXT", 1), ("maybeMood", "TEXT", 0), ("priority", "INTEGER", 1),
            ("maybePriority", "INTEGER", 0), ("created", "TEXT", 1), ("deleted", "TEXT", 0),
            ("token", "TEXT", 1),
            ("homepage", "TEXT", 1), ("price", "TEXT", 1), ("address", "TEXT", 1), ("oldAddress", "TEXT", 0),
            ("tags", "TEXT", 1), ("counts", "TEXT", 1), ("flags", "TEXT", 1), ("active", "INTEGER", 1),
            ("ratio", "REAL", 1), ("photo", "BLOB", 1), ("note", "TEXT", 0),
        ]
        #expect(
            try columns(db, "probedEverything")
                == expected.map { ProbedColumnInfo(name: $0, type: $1, notnull: $2) })
        let sql = try createSQL(db, "probedEverything")
        #expect(sql.hasPrefix(#"CREATE TABLE "probedEverything" ("#))
        #expect(sql.contains(#""id" INTEGER PRIMARY KEY,"#))
        #expect(sql.contains(#""maybeMood" TEXT,"#))
        #expect(sql.contains(#""mood" TEXT NOT NULL,"#))
    }

    @Test func valuesAreStoredInTheirDeclaredForms() throws {
        let db = try Database(.inMemory)
        var model = Self.everything
        try db.insert(&model)
        let row = try #require(try db.fetchOne(Row.self, sql: "SELECT * FROM probedEverything"))
        #expect(try row.value(named: "mood") == .text("grumpy"))
        #expect(try row.value(named: "maybeMood") == .null)
        #expect(try row.value(named: "priority") == .integer(20))
        #expect(try row.value(named: "maybePriority") == .integer(10))
        #expect(try row.value(named: "created") == .text("2023-11-14 22:13:20.125"))
        #expect(try row.value(named: "token") == .text(model.token.uuidString))
        #expect(try row.value(named: "homepage") == .text("https://example.com/a?b=c"))
        #expect(try row.value(named: "price") == .text("12.34"))
        #expect(try row.value(named: "address") == .text(#"{"street":"Main"}"#))
        #expect(try row.value(named: "oldAddress") == .text(#"{"street":"Old","zip":75001}"#))
        #expect(try row.value(named: "tags") == .text(#"["b","a"]"#))
        #expect(try row.value(named: "counts") == .text(#"{"a":2,"z":1}"#))
        #expect(try row.value(named: "flags") == .text("[3]"))
        #expect(try row.value(named: "active") == .integer(1))
        #expect(try row.value(named: "photo") == .blob(Data([0, 1, 255])))
        #expect(try db.find(ProbedEverything.self, id: model.id!) == model)
    }

    // MARK: Types whose decoding rejects placeholders

    @Test func enumWithAssociatedValuesIsAJSONColumn() throws {
        let db = try Database(.inMemory)
        var drawing = ProbedDrawing(id: nil, shape: .circle(radius: 2), maybeShape: nil, title: "sun")
        try db.insert(&drawing)
        #expect(
            try columns(db, "probedDrawing") == [
                ProbedColumnInfo(name: "id", type: "INTEGER", notnull: 0),
                ProbedColumnInfo(name: "shape", type: "TEXT", notnull: 1),
                ProbedColumnInfo(name: "maybeShape", type: "TEXT", notnull: 0),
                ProbedColumnInfo(name: "title", type: "TEXT", notnull: 1),
            ])
        #expect(
            try db.firstValue(String.self, sql: "SELECT shape FROM probedDrawing")
                == #"{"circle":{"radius":2}}"#)
        #expect(try db.find(ProbedDrawing.self, id: drawing.id!) == drawing)
    }

    @Test func renamedKeysAfterAPropertyWithoutPlaceholderAreAnErrorNotAGuess() throws {
        let db = try Database(.inMemory)
        let error = try #require(
            schemaError {
                try db.insert(ProbedRenamedDrawing(id: nil, shape: .label(text: "x"), title: "t"))
            })
        #expect(error.message.contains("cannot read the columns of ProbedRenamedDrawing"))
        #expect(error.message.contains(#"cannot make a placeholder ProbedShape for "Shape""#))
        #expect(try db.firstValue(Int.self, sql: "SELECT count(*) FROM sqlite_master") == 0)
    }

    @Test func validatingInitFromStillGetsItsTable() throws {
        let db = try Database(.inMemory)
        var model = ProbedValidated(id: nil, name: "Ann", score: 0, mood: .happy)
        try db.insert(&model)
        #expect(
            try columns(db, "probedValidated").map(\.name) == ["id", "name", "score", "mood"])
        #expect(try createSQL(db, "probedValidated").contains(#"UNIQUE ("name")"#))
        #expect(try indexColumns(db, "probedValidated_on_mood_score") == ["mood", "score"])
        #expect(try db.find(ProbedValidated.self, id: model.id!) == model)
        // The validation still applies to stored data.
        try db.execute(sql: "UPDATE probedValidated SET score = -1")
        #expect(throws: ProbedValidated.Invalid.self) { _ = try db.find(ProbedValidated.self, id: model.id!) }
    }

    @Test func renamedKeysDecodedOutOfOrderMapToTheRightProperties() throws {
        let db = try Database(.inMemory)
        var model = ProbedStrict(id: nil, name: "Ann", score: 42, level: 3)
        try db.insert(&model)
        let names = try columns(db, "probedStrict").map(\.name)
        #expect(Set(names) == ["id", "player_name", "points", "tier"])
        #expect(try createSQL(db, "probedStrict").contains(#"UNIQUE ("player_name")"#))
        #expect(try indexColumns(db, "probedStrict_on_points") == ["points"])
        #expect(try indexColumns(db, "probedStrict_on_tier") == ["tier"])
        #expect(try db.firstValue(Int.self, sql: "SELECT points FROM probedStrict") == 42)
        #expect(try db.find(ProbedStrict.self, id: model.id!) == model)
        let duplicate = #expect(throws: DatabaseError.self) {
            try db.insert(ProbedStrict(id: nil, name: "Ann", score: 1, level: 1))
        }
        #expect(duplicate?.message.contains("probedStrict.player_name") == true)
    }

    @Test func validationThatRejectsEveryPlaceholderAfterReadingEveryKeyStillGetsItsTable() throws {
        let db = try Database(.inMemory)
        try db.insert(ProbedPrefixed(id: nil, handle: "@ann"))
        #expect(try columns(db, "probedPrefixed").map(\.name) == ["id", "handle"])
        #expect(try db.fetchAll(ProbedPrefixed.self) == [ProbedPrefixed(id: 1, handle: "@ann")])
    }

    @Test func aTypeRejectingEveryDecodingIsASchemaErrorNamingIt() throws {
        let db = try Database(.inMemory)
        let error = try #require(
            schemaError { try db.insert(ProbedRejectsEverything(id: nil, name: "x")) })
        #expect(error.message.contains("cannot read the columns of ProbedRejectsEverything"))
        #expect(error.message.contains("refused by ProbedRejectsEverything"))
        #expect(try db.firstValue(Int.self, sql: "SELECT count(*) FROM sqlite_master") == 0)
    }

    // MARK: Caching

    @Test func theTableIsCreatedOncePerDatabaseAndTheTypeProbedOncePerProcess() throws {
        try withTemporaryDirectory { directory in
            let first = try Database(path: directory.file("first.sqlite"))
            let second = try Database(path: directory.file("second.sqlite"))
            let firstLog = EventLog<String>()
            let secondLog = EventLog<String>()
            first.trace { firstLog.append($0) }
            second.trace { secondLog.append($0) }

            var model = ProbedCounted(id: nil, name: "a")
            try first.insert(&model)
            var other = ProbedCounted(id: nil, name: "b")
            try second.insert(&other)
            let probes = ProbedCounted.decodes.events.count
            #expect(probes > 0)
            for log in [firstLog, secondLog] {
                let creates = log.events.filter { $0.hasPrefix("CREATE TABLE") }
                #expect(creates.count == 1)
                #expect(creates.first?.contains(#""probedCounted""#) == true)
                log.removeAll()
            }

            for index in 0..<20 {
                var next = ProbedCounted(id: nil, name: "n\(index)")
                try first.insert(&next)
                try second.insert(&next)
            }
            try first.update(model)
            #expect(try first.count(ProbedCounted.self) == 21)
            #expect(try second.count(ProbedCounted.self) == 21)
            #expect(ProbedCounted.decodes.events.count == probes)  // not probed again
            // Later calls run only their own statement: the table is not looked up again.
            for log in [firstLog, secondLog] {
                let others = log.events.filter {
                    !$0.hasPrefix(#"INSERT INTO "probedCounted""#)
                        && !$0.hasPrefix(#"UPDATE "probedCounted""#)
                        && !$0.hasPrefix(#"SELECT count(*) FROM "probedCounted""#)
                }
                #expect(others == [])
                #expect(log.events.count >= 21)
            }

            // A database opened later finds the table there and does not create it again.
            let reopened = try Database(path: directory.file("first.sqlite"))
            let reopenedLog = EventLog<String>()
            reopened.trace { reopenedLog.append($0) }
            #expect(try reopened.count(ProbedCounted.self) == 21)
            let reopenedCreations = reopenedLog.events.filter { $0.hasPrefix("CREATE") }
            #expect(reopenedCreations.isEmpty)
        }
    }
}
