import Foundation
import LiteRecord
import Testing

// MARK: - Models whose key paths resolve

/// snake_case columns for an existing database; key paths name the renamed columns.
private struct ResolvedSnakeMember: Model, Equatable {
    var id: Int64?
    var userID: Int
    var joinedAt: Date
    var displayName: String
    var nickname: String?
    static let schema = Schema<ResolvedSnakeMember>(
        table: "snake_members", unique: [\.userID], indexes: [[\.joinedAt, \.displayName]]
    )
    .columnNaming(.snakeCase)
    .column(\.nickname, named: "Nick Name")
}

/// PascalCase columns, as in many older schemas.
private struct ResolvedPascalOrder: Model, Equatable {
    var orderID: Int
    var customerName: String
    var shippedAt: Date?
    static let schema = Schema<ResolvedPascalOrder>(
        table: "PascalOrders", primaryKey: \.orderID, indexes: [[\.customerName]]
    )
    .columnNaming(.pascalCase)
}

/// Custom coding keys rename columns; key paths follow the properties to the renamed columns.
private struct ResolvedRenamedUser: Model, Equatable {
    var id: Int64?
    var userName: String
    var bio: String?
    enum CodingKeys: String, CodingKey {
        case id
        case userName = "user_name"
        case bio = "about me"
    }
    static let schema = Schema<ResolvedRenamedUser>(unique: [\.userName], indexes: [[\.bio, \.userName]])
        .collation(.nocase, for: \.userName)
}

/// Collation, defaults and a per-column date storage.
private struct ResolvedTunedEntry: Model, Equatable {
    var id: Int64?
    var name: String
    var level: Int
    var note: String
    var ratio: Double
    var created: Date
    var updated: Date
    static let schema = Schema<ResolvedTunedEntry>(table: "tuned", unique: [\.name])
        .collation(.nocase, for: \.name)
        .defaultValue(1, for: \.level)
        .defaultValue("it's new", for: \.note)
        .defaultValue(0.5, for: \.ratio)
        .dateStorage(.unixSeconds, for: \.created)
}

// MARK: - Models whose key paths do not resolve

private struct ResolvedStats: Codable, Equatable, Sendable {
    var wins: Int
    var losses: Int
}

private struct ResolvedComputedUnique: Model {
    var id: Int64?
    var first: String
    var last: String
    var fullName: String { first + " " + last }
    static let schema = Schema<ResolvedComputedUnique>(unique: [\.fullName])
}

private struct ResolvedComputedIndex: Model {
    var id: Int64?
    var score: Int
    var doubled: Int { score * 2 }
    static let schema = Schema<ResolvedComputedIndex>(indexes: [[\.score, \.doubled]])
}

private struct ResolvedNestedIndex: Model {
    var id: Int64?
    var stats: ResolvedStats
    static let schema = Schema<ResolvedNestedIndex>(indexes: [[\.stats.wins]])
}

private struct ResolvedExcludedKey: Model {
    var id: Int64?
    var name: String
    var cache: Int = 0
    enum CodingKeys: String, CodingKey { case id, name }
    static let schema = Schema<ResolvedExcludedKey>(unique: [\.cache])
}

private struct ResolvedComputedKey: Model {
    var name: String
    var key: String { name.lowercased() }
    static let schema = Schema<ResolvedComputedKey>(primaryKey: \.key)
}

private struct ResolvedComputedCollation: Model {
    var id: Int64?
    var name: String
    var upper: String { name.uppercased() }
    static let schema = Schema<ResolvedComputedCollation>().collation(.nocase, for: \.upper)
}

private struct ResolvedUnstorableDefault: Model {
    var id: Int64?
    var big: UInt64
    static let schema = Schema<ResolvedUnstorableDefault>().defaultValue(UInt64.max, for: \.big)
}

private struct ResolvedNaNDefault: Model {
    var id: Int64?
    var ratio: Double
    static let schema = Schema<ResolvedNaNDefault>().defaultValue(Double.nan, for: \.ratio)
}

/// A class: key paths cannot name its columns, so it is not a model.
private final class ResolvedClassModel: Model, @unchecked Sendable {
    var id: Int64?
    var name: String
    init(id: Int64?, name: String) {
        self.id = id
        self.name = name
    }
    static let schema = Schema<ResolvedClassModel>(primaryKey: \.id, unique: [\.name])
}

// MARK: - Tests

@Suite struct KeyPathResolutionTests {
    private func columnNames(_ db: Database, _ table: String) throws -> [String] {
        try db.fetchAll(String.self, sql: "SELECT name FROM pragma_table_xinfo(\(table)) ORDER BY cid")
    }

    private func tableCount(_ db: Database) throws -> Int? {
        try db.firstValue(Int.self, sql: "SELECT count(*) FROM sqlite_master")
    }

    // MARK: Naming

    @Test func snakeCaseNamesColumnsForWritesReadsKeysAndIndexes() throws {
        let db = try Database(.inMemory)
        let joined = Date(timeIntervalSince1970: 1_700_000_000.25)
        var member = ResolvedSnakeMember(
            id: nil, userID: 7, joinedAt: joined, displayName: "Ann", nickname: "annie")
        try db.insert(&member)
        #expect(
            try columnNames(db, "snake_members") == [
                "id", "user_id", "joined_at", "display_name", "Nick Name",
            ])
        #expect(try createSQL(db, "snake_members").contains(#"UNIQUE ("user_id")"#))
        #expect(
            try indexColumns(db, "snake_members_on_joined_at_display_name") == ["joined_at", "display_name"])

        let row = try #require(try db.fetchOne(Row.self, sql: "SELECT * FROM snake_members"))
        #expect(try row.value(Int.self, named: "user_id") == 7)
        #expect(try row.value(String.self, named: "joined_at") == "2023-11-14 22:13:20.25")
        #expect(try row.value(String.self, named: "Nick Name") == "annie")

        member.displayName = "Anna"
        member.nickname = nil
        try db.update(member)
        #expect(try db.firstValue(String.self, sql: "SELECT display_name FROM snake_members") == "Anna")
        #expect(
            try db.firstValue(Int.self, sql: #"SELECT count(*) FROM snake_members WHERE "Nick Name" IS NULL"#)
                == 1)
        try db.execute(
            sql: """
                INSERT INTO snake_members (user_id, joined_at, display_name, "Nick Name")
                VALUES (8, '2024-01-02', 'Bo', 'b')
                """)
        let all = try db.fetchAll(ResolvedSnakeMember.self)
        #expect(all.count == 2)
        #expect(all.first == member)
        #expect(all.last?.userID == 8)
        #expect(all.last?.joinedAt == Date(timeIntervalSince1970: 1_704_153_600))
        #expect(all.last?.nickname == "b")
        let duplicate = #expect(throws: DatabaseError.self) {
            try db.insert(ResolvedSnakeMember(id: nil, userID: 8, joinedAt: joined, displayName: "X"))
        }
        #expect(duplicate?.resultCode == .constraintUnique)
        #expect(duplicate?.message.contains("snake_members.user_id") == true)
    }

    @Test func pascalCaseNamesColumnsAndTheKey() throws {
        let db = try Database(.inMemory)
        try db.insert(ResolvedPascalOrder(orderID: 10_248, customerName: "VINET", shippedAt: nil))
        #expect(try columnNames(db, "PascalOrders") == ["OrderID", "CustomerName", "ShippedAt"])
        #expect(try createSQL(db, "PascalOrders").contains(#""OrderID" INTEGER PRIMARY KEY"#))
        #expect(try indexColumns(db, "PascalOrders_on_CustomerName") == ["CustomerName"])
        try db.update(ResolvedPascalOrder(orderID: 10_248, customerName: "TOMSP", shippedAt: nil))
        #expect(try db.firstValue(String.self, sql: "SELECT CustomerName FROM PascalOrders") == "TOMSP")
        #expect(try db.find(ResolvedPascalOrder.self, id: 10_248)?.customerName == "TOMSP")
        #expect(try db.delete(ResolvedPascalOrder.self, id: 10_248))
    }

    @Test func keyPathsOnRenamedPropertiesResolveToTheirCodingKeyColumns() throws {
        let db = try Database(.inMemory)
        var user = ResolvedRenamedUser(id: nil, userName: "Alice", bio: "hi")
        try db.insert(&user)
        #expect(try columnNames(db, "resolvedRenamedUser") == ["id", "user_name", "about me"])
        let sql = try createSQL(db, "resolvedRenamedUser")
        #expect(sql.contains(#""user_name" TEXT NOT NULL COLLATE "NOCASE""#))
        #expect(sql.contains(#"UNIQUE ("user_name")"#))
        #expect(
            try indexColumns(db, "resolvedRenamedUser_on_about me_user_name") == ["about me", "user_name"])
        #expect(try db.find(ResolvedRenamedUser.self, id: user.id!) == user)
        let duplicate = #expect(throws: DatabaseError.self) {
            try db.insert(ResolvedRenamedUser(id: nil, userName: "ALICE", bio: nil))
        }
        #expect(duplicate?.resultCode == .constraintUnique)
        #expect(duplicate?.message.contains("resolvedRenamedUser.user_name") == true)
    }

    // MARK: Collation, defaults, date storage

    @Test func collationDefaultsAndDateStorageAppearInTheTable() throws {
        let db = try Database(.inMemory)
        let when = Date(timeIntervalSince1970: 1_700_000_000.5)
        var entry = ResolvedTunedEntry(
            id: nil, name: "Alice", level: 3, note: "n", ratio: 2, created: when, updated: when)
        try db.insert(&entry)
        let sql = try createSQL(db, "tuned")
        #expect(sql.contains(#""name" TEXT NOT NULL COLLATE "NOCASE""#))
        #expect(sql.contains(#""level" INTEGER NOT NULL DEFAULT 1"#))
        #expect(sql.contains(#""note" TEXT NOT NULL DEFAULT 'it''s new'"#))
        #expect(sql.contains(#""ratio" REAL NOT NULL DEFAULT (0.5)"#))
        #expect(sql.contains(#""created" REAL NOT NULL"#))
        #expect(sql.contains(#""updated" TEXT NOT NULL"#))
        let defaults = try db.fetchAll(
            String.self,
            sql: "SELECT dflt_value FROM pragma_table_xinfo('tuned') WHERE dflt_value IS NOT NULL")
        #expect(defaults == ["1", "'it''s new'", "0.5"])

        // Stored as REAL for `created` only; both read back exactly here.
        #expect(try db.firstValue(String.self, sql: "SELECT typeof(created) FROM tuned") == "real")
        #expect(try db.firstValue(Double.self, sql: "SELECT created FROM tuned") == 1_700_000_000.5)
        #expect(try db.firstValue(String.self, sql: "SELECT updated FROM tuned") == "2023-11-14 22:13:20.5")
        #expect(try db.find(ResolvedTunedEntry.self, id: entry.id!) == entry)

        // The defaults fill rows written without those columns.
        try db.execute(sql: "INSERT INTO tuned (name, created, updated) VALUES ('Bob', 0, '1970-01-01')")
        let bob = try #require(try db.fetchAll(ResolvedTunedEntry.self).last)
        #expect(bob.level == 1)
        #expect(bob.note == "it's new")
        #expect(bob.ratio == 0.5)
        #expect(bob.created == Date(timeIntervalSince1970: 0))

        // NOCASE: "alice" is the same name as "Alice".
        let duplicate = #expect(throws: DatabaseError.self) {
            try db.insert(
                ResolvedTunedEntry(
                    id: nil, name: "alice", level: 1, note: "", ratio: 0, created: when, updated: when))
        }
        #expect(duplicate?.resultCode == .constraintUnique)
        #expect(duplicate?.message.contains("tuned.name") == true)
        #expect(try db.fetchAll(String.self, sql: "SELECT name FROM tuned WHERE name = 'ALICE'") == ["Alice"])
    }

    @Test func defaultsThatCannotBeWrittenAreErrorsAtFirstUse() throws {
        let db = try Database(.inMemory)
        let unstorable = try #require(
            schemaError { try db.insert(ResolvedUnstorableDefault(id: nil, big: 1)) })
        #expect(
            unstorable.message.contains(#"the default for \ResolvedUnstorableDefault.big cannot be stored"#))
        #expect(unstorable.message.contains("18446744073709551615"))
        let nan = try #require(schemaError { try db.migrate(ResolvedNaNDefault.self) })
        #expect(nan.message.contains(#"the default for \ResolvedNaNDefault.ratio cannot be stored"#))
        #expect(nan.message.contains("NaN"))
        #expect(try tableCount(db) == 0)
    }

    // MARK: Key paths that are not columns

    @Test func computedPropertyInUniqueIsAnErrorAtFirstUseNamingIt() throws {
        let db = try Database(.inMemory)
        for _ in 0..<2 {  // not cached as a success
            let error = try #require(
                schemaError { try db.insert(ResolvedComputedUnique(id: nil, first: "A", last: "B")) })
            #expect(error.message.contains(#"\ResolvedComputedUnique.<computed"#))
            #expect(error.message.contains("(String)>"))
            #expect(error.message.contains("in the unique constraints of ResolvedComputedUnique"))
            #expect(error.message.contains("is not a stored property"))
        }
        #expect(try tableCount(db) == 0)
    }

    @Test func computedPropertyInAnIndexIsAnErrorNamingIt() throws {
        let db = try Database(.inMemory)
        let error = try #require(schemaError { try db.migrate(ResolvedComputedIndex.self) })
        #expect(error.message.contains(#"\ResolvedComputedIndex.<computed"#))
        #expect(error.message.contains("(Int)>"))
        #expect(error.message.contains("in the indexes of ResolvedComputedIndex is not a stored property"))
        #expect(try tableCount(db) == 0)
        let fetchError = try #require(schemaError { _ = try db.fetchAll(ResolvedComputedIndex.self) })
        #expect(fetchError.message == error.message)
    }

    @Test func computedPropertiesAsKeyOrCollationAreErrorsToo() throws {
        let db = try Database(.inMemory)
        let key = try #require(schemaError { _ = try db.count(ResolvedComputedKey.self) })
        #expect(key.message.contains("in the primary key of ResolvedComputedKey is not a stored property"))
        let collation = try #require(schemaError { try db.migrate(ResolvedComputedCollation.self) })
        #expect(
            collation.message.contains(
                "in the collations of ResolvedComputedCollation is not a stored property"))
        #expect(try tableCount(db) == 0)
    }

    @Test func nestedKeyPathInAnIndexIsRejected() throws {
        let db = try Database(.inMemory)
        let error = try #require(
            schemaError {
                try db.insert(ResolvedNestedIndex(id: nil, stats: ResolvedStats(wins: 1, losses: 0)))
            })
        #expect(
            error.message.contains(#"\ResolvedNestedIndex.stats.wins in the indexes of ResolvedNestedIndex"#))
        #expect(error.message.contains("points inside a property"))
        #expect(error.message.contains(#"name the property itself (\.stats)"#))
        #expect(try tableCount(db) == 0)
    }

    @Test func propertyLeftOutOfCodingKeysIsRejected() throws {
        let db = try Database(.inMemory)
        let error = try #require(schemaError { try db.insert(ResolvedExcludedKey(id: nil, name: "a")) })
        #expect(error.message.contains(#"\ResolvedExcludedKey.cache in the unique constraints"#))
        #expect(error.message.contains("property cache has no coding key, so it has no column"))
        #expect(try tableCount(db) == 0)
    }

    @Test func aClassModelIsASchemaErrorNotACrash() throws {
        let db = try Database(.inMemory)
        let model = ResolvedClassModel(id: nil, name: "x")
        let insert = try #require(schemaError { try db.insert(model) })
        #expect(insert.message.contains("ResolvedClassModel is not a struct"))
        #expect(insert.message.contains("a Model must be a struct"))
        let fetch = try #require(schemaError { _ = try db.fetchAll(ResolvedClassModel.self) })
        #expect(fetch.message == insert.message)
        #expect(try tableCount(db) == 0)
    }
}
