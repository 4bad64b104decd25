import Foundation
import LiteRecord
import Testing

private struct CRUDPlayer: Model, Equatable {
    var id: Int64?
    var name: String
    var score: Int
    var note: String?

    static let schema = Schema<CRUDPlayer>(table: "players", primaryKey: \.id, unique: [\.name])
}

/// An `Int?` rowid key.
private struct CRUDCounter: Model, Equatable {
    var id: Int?
    var value: Int

    static let schema = Schema<CRUDCounter>(table: "counters")
}

/// A `String` key chosen by the caller.
private struct CRUDTag: Model, Equatable {
    var code: String
    var label: String

    static let schema = Schema<CRUDTag>(table: "tags", primaryKey: \.code)
}

/// A `UUID` key chosen by the caller, found by the default schema (`id`).
private struct CRUDToken: Model, Equatable {
    var id: UUID
    var owner: String
}

/// A composite key.
private struct CRUDMembership: Model, Equatable {
    var teamID: Int
    var playerID: Int
    var role: String

    static let schema = Schema<CRUDMembership>(table: "memberships", primaryKey: [\.teamID, \.playerID])
}

/// No primary key at all.
private struct CRUDLogLine: Model, Equatable {
    var message: String

    static let schema = Schema<CRUDLogLine>(table: "log_lines")
}

/// Encodes its columns in another order than its table's.
private struct CRUDReordered: Model, Equatable {
    var id: Int64?
    var name: String
    var score: Int

    static let schema = Schema<CRUDReordered>(table: "reordered")

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(score, forKey: .score)
        try container.encode(name, forKey: .name)
        try container.encodeIfPresent(id, forKey: .id)
    }
}

/// Encodes one column twice.
private struct CRUDTwice: Model, Equatable {
    var id: Int64?
    var name: String

    static let schema = Schema<CRUDTwice>(table: "twice")

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(id, forKey: .id)
        try container.encode(name, forKey: .name)
        try container.encode(name, forKey: .name)
    }
}

private struct CRUDAbort: Error {}

@Suite struct ModelCRUDTests {
    // MARK: - Helpers

    private func player(_ name: String, _ score: Int = 0, id: Int64? = nil) -> CRUDPlayer {
        CRUDPlayer(id: id, name: name, score: score, note: nil)
    }

    private func names(_ db: some DatabaseContext) throws -> [String] {
        try db.fetchAll(String.self, sql: "SELECT name FROM players ORDER BY id")
    }

    private func rowCount(_ db: some DatabaseContext, _ table: String = "players") throws -> Int? {
        try db.firstValue(Int.self, sql: "SELECT count(*) FROM \(identifier: table)")
    }

    // MARK: - Insert

    @Test func insertSetsInt64AndIntRowIDKeys() throws {
        let db = try Database(.inMemory)
        var alice = player("Alice", 10)
        var bob = player("Bob", 20)
        try db.insert(&alice)
        try db.insert(&bob)
        #expect(alice.id == 1)
        #expect(bob.id == 2)
        #expect(try db.firstValue(String.self, sql: "SELECT name FROM players WHERE id = \(2)") == "Bob")

        var counter = CRUDCounter(id: nil, value: 5)
        try db.insert(&counter)
        #expect(counter.id == 1)
        var chosen = CRUDCounter(id: 40, value: 6)  // a key set by the caller is kept
        try db.insert(&chosen)
        #expect(chosen.id == 40)
        #expect(try db.fetchAll(CRUDCounter.self) == [CRUDCounter(id: 1, value: 5), chosen])
    }

    @Test func insertWithCallerChosenKeys() throws {
        let db = try Database(.inMemory)
        try db.insert(CRUDTag(code: "red", label: "Red team"))
        #expect(try db.find(CRUDTag.self, id: "red") == CRUDTag(code: "red", label: "Red team"))
        #expect(
            try db.firstValue(String.self, sql: "SELECT label FROM tags WHERE code = 'red'") == "Red team")

        let duplicate = try #require(throws: DatabaseError.self) {
            try db.insert(CRUDTag(code: "red", label: "again"))
        }
        #expect(duplicate.resultCode == .constraintPrimaryKey)
        #expect(duplicate.message.contains("tags.code"))

        let token = CRUDToken(id: UUID(), owner: "Alice")
        try db.insert(token)
        #expect(try db.find(CRUDToken.self, id: token.id) == token)
        #expect(try db.exists(CRUDToken.self, id: token.id))
        #expect(try !db.exists(CRUDToken.self, id: UUID()))
    }

    @Test func insertContentsOfInsertsAllInOneTransaction() throws {
        let db = try Database(.inMemory)
        let log = EventLog<String>()
        db.trace { log.append($0) }
        let inserted = try db.insert(contentsOf: [player("A", 1), player("B", 2), player("C", 3)])
        db.trace(nil)
        #expect(inserted.map(\.id) == [1, 2, 3])
        #expect(try db.fetchAll(CRUDPlayer.self) == inserted)
        #expect(log.events.filter { $0.hasPrefix("BEGIN") }.count == 1)
        #expect(log.events.filter { $0.hasPrefix("COMMIT") }.count == 1)
    }

    @Test func insertContentsOfInsertsNothingWhenOneFails() throws {
        let db = try Database(.inMemory)
        var zed = player("Zed")
        try db.insert(&zed)
        let error = try #require(throws: DatabaseError.self) {
            try db.insert(contentsOf: [player("A"), player("B"), player("Zed"), player("C")])
        }
        #expect(error.resultCode == .constraintUnique)
        #expect(error.message.contains("players.name"))
        #expect(try names(db) == ["Zed"])
        #expect(!db.isInsideTransaction)
    }

    @Test func insertContentsOfThatFailsOnAFreshDatabaseLeavesTheModelUsable() throws {
        let db = try Database(.inMemory)
        #expect(throws: DatabaseError.self) {
            try db.insert(contentsOf: [player("A"), player("B"), player("A")])
        }
        // The rollback took the new table with it; the next use creates it again.
        #expect(try db.firstValue(Int.self, sql: "SELECT count(*) FROM sqlite_master") == 0)
        #expect(try db.count(CRUDPlayer.self) == 0)
        var carl = player("Carl")
        try db.insert(&carl)
        #expect(try names(db) == ["Carl"])
    }

    // MARK: - Update and save

    @Test func updateWritesByPrimaryKey() throws {
        let db = try Database(.inMemory)
        var alice = player("Alice", 10)
        var bob = player("Bob", 20)
        try db.insert(&alice)
        try db.insert(&bob)
        alice.score = 15
        alice.note = "promoted"
        try db.update(alice)
        let row = try #require(try db.fetchOne(Row.self, sql: "SELECT score, note FROM players WHERE id = 1"))
        #expect(try row.value(Int.self, named: "score") == 15)
        #expect(try row.value(String.self, named: "note") == "promoted")
        #expect(try db.find(CRUDPlayer.self, id: 2) == bob)  // the other row is untouched
    }

    @Test func updateOfMissingRowIsAnErrorAndInsertsNothing() throws {
        let db = try Database(.inMemory)
        let error = try #require(throws: PersistenceError.self) {
            try db.update(player("Ghost", 1, id: 99))
        }
        #expect(error.isRowNotFound)
        #expect(error.table == "players")
        #expect(error.message.contains("99"))
        #expect(try rowCount(db) == 0)

        let unsaved = try #require(throws: PersistenceError.self) { try db.update(player("New")) }
        #expect(unsaved.isRowNotFound)
        #expect(try rowCount(db) == 0)
    }

    @Test func saveInsertsThenUpdatesByPrimaryKey() throws {
        let db = try Database(.inMemory)
        var alice = player("Alice", 10)
        try db.save(&alice)
        #expect(alice.id == 1)
        #expect(try rowCount(db) == 1)

        alice.score = 99
        try db.save(&alice)
        #expect(alice.id == 1)
        #expect(try rowCount(db) == 1)
        #expect(try db.firstValue(Int.self, sql: "SELECT score FROM players WHERE id = 1") == 99)

        var chosen = player("Carl", 5, id: 50)  // a set key that no row has yet: inserted
        try db.save(&chosen)
        #expect(try db.find(CRUDPlayer.self, id: 50) == chosen)

        var tag = CRUDTag(code: "red", label: "Red")
        try db.save(&tag)
        tag.label = "Crimson"
        try db.save(&tag)
        #expect(try db.fetchAll(CRUDTag.self) == [CRUDTag(code: "red", label: "Crimson")])

        var clash = player("Alice", 1, id: 7)  // another key, but a name that is taken
        let error = try #require(throws: DatabaseError.self) { try db.save(&clash) }
        #expect(error.message.contains("players.name"))
        #expect(try rowCount(db) == 2)
    }

    // MARK: - Delete and read

    @Test func deleteReportsWhetherARowWent() throws {
        let db = try Database(.inMemory)
        var alice = player("Alice")
        var bob = player("Bob")
        try db.insert(&alice)
        try db.insert(&bob)
        #expect(try db.delete(alice))
        #expect(try !db.delete(alice))
        #expect(try db.delete(CRUDPlayer.self, id: 2))
        #expect(try !db.delete(CRUDPlayer.self, id: 2))
        #expect(try rowCount(db) == 0)
    }

    @Test func findExistsCountAndFetchAll() throws {
        let db = try Database(.inMemory)
        #expect(try db.count(CRUDPlayer.self) == 0)
        #expect(try db.fetchAll(CRUDPlayer.self) == [])
        var players = [player("A", 1), player("B", 2), player("C", 3)]
        for index in players.indices { try db.insert(&players[index]) }
        #expect(try db.count(CRUDPlayer.self) == 3)
        #expect(try db.fetchAll(CRUDPlayer.self) == players)
        #expect(try db.find(CRUDPlayer.self, id: 2) == players[1])
        #expect(try db.find(CRUDPlayer.self, id: 4) == nil)
        #expect(try db.exists(CRUDPlayer.self, id: 3))
        #expect(try !db.exists(CRUDPlayer.self, id: 4))
    }

    @Test func compositeKeyFindUpdateAndDelete() throws {
        let db = try Database(.inMemory)
        try db.insert(CRUDMembership(teamID: 1, playerID: 2, role: "captain"))
        try db.insert(CRUDMembership(teamID: 1, playerID: 3, role: "member"))
        try db.insert(CRUDMembership(teamID: 2, playerID: 2, role: "member"))
        #expect(try db.find(CRUDMembership.self, key: [1, 3])?.role == "member")
        #expect(try db.find(CRUDMembership.self, key: [3, 1]) == nil)
        try db.update(CRUDMembership(teamID: 2, playerID: 2, role: "coach"))
        #expect(
            try db.firstValue(
                String.self, sql: "SELECT role FROM memberships WHERE teamID = 2 AND playerID = 2")
                == "coach")
        #expect(try db.delete(CRUDMembership.self, key: [1, 2]))
        #expect(try !db.delete(CRUDMembership.self, key: [1, 2]))
        #expect(try db.count(CRUDMembership.self) == 2)

        let error = try #require(throws: PersistenceError.self) {
            _ = try db.find(CRUDMembership.self, id: 1)
        }
        #expect(error.message.contains("2 column(s)"))
        #expect(error.message.contains("teamID, playerID"))
    }

    // MARK: - Transactions

    @Test func everyOperationWorksInsideATransaction() throws {
        let db = try Database(.inMemory)
        let seen = try db.transaction { tx in
            var alice = player("Alice", 1)
            try tx.insert(&alice)
            try tx.insert(contentsOf: [player("Bob", 2), player("Cid", 3)])
            alice.score = 11
            try tx.update(alice)
            var dee = player("Dee", 4)
            try tx.save(&dee)
            #expect(try tx.delete(CRUDPlayer.self, id: 2))
            #expect(try tx.exists(CRUDPlayer.self, id: 1))
            #expect(try tx.find(CRUDPlayer.self, id: 1)?.score == 11)
            #expect(try tx.count(CRUDPlayer.self) == 3)
            return try tx.fetchAll(CRUDPlayer.self).map(\.name)
        }
        #expect(seen == ["Alice", "Cid", "Dee"])
        #expect(try names(db) == ["Alice", "Cid", "Dee"])
        #expect(try db.firstValue(Int.self, sql: "SELECT score FROM players WHERE name = 'Alice'") == 11)
    }

    @Test func transactionThatThrowsRollsEveryOperationBack() throws {
        let db = try Database(.inMemory)
        var alice = player("Alice", 1)
        var bob = player("Bob", 2)
        try db.insert(&alice)
        try db.insert(&bob)
        let before = try db.fetchAll(CRUDPlayer.self)
        #expect(throws: CRUDAbort.self) {
            try db.transaction { tx in
                var cid = player("Cid", 3)
                try tx.insert(&cid)
                try tx.insert(contentsOf: [player("Dee"), player("Eve")])
                var changed = alice
                changed.score = 100
                try tx.update(changed)
                try tx.save(&changed)
                #expect(try tx.delete(bob))
                #expect(try tx.count(CRUDPlayer.self) == 4)
                throw CRUDAbort()
            }
        }
        #expect(try db.count(CRUDPlayer.self) == 2)
        #expect(try db.fetchAll(CRUDPlayer.self) == before)
    }

    @Test func failedInsertInsideTransactionLeavesNothingBehind() throws {
        let db = try Database(.inMemory)
        try db.transaction { tx in
            var alice = player("Alice", 1)
            try tx.insert(&alice)
            var again = player("Alice", 2)
            #expect(throws: DatabaseError.self) { try tx.insert(&again) }
            #expect(again.id == nil)  // no key was assigned for the failed row
            var bob = player("Bob", 3)
            try tx.insert(&bob)
        }
        #expect(try names(db) == ["Alice", "Bob"])
        #expect(try db.fetchAll(Int.self, sql: "SELECT score FROM players ORDER BY id") == [1, 3])
    }

    // MARK: - Bad input

    @Test func uniqueViolationNamesTableAndColumn() throws {
        let db = try Database(.inMemory)
        var first = player("Alice")
        try db.insert(&first)
        var second = player("Alice")
        let error = try #require(throws: DatabaseError.self) { try db.insert(&second) }
        #expect(error.resultCode == .constraintUnique)
        #expect(error.message.contains("players.name"))
        #expect(error.description.contains("players.name"))
        #expect(second.id == nil)
        #expect(try rowCount(db) == 1)
    }

    @Test func notNullViolationsNameTableAndColumn() throws {
        let db = try Database(.inMemory)
        try db.migrate(CRUDPlayer.self)
        let error = try #require(throws: DatabaseError.self) {
            try db.execute(sql: "INSERT INTO players (name, score) VALUES (NULL, 1)")
        }
        #expect(error.resultCode == .constraintNotNull)
        #expect(error.message.contains("players.name"))

        // A table made by another tool may hold NULL where the model has a non-optional property.
        try db.execute(sql: "CREATE TABLE log_lines (message TEXT)")
        try db.execute(sql: "INSERT INTO log_lines (message) VALUES ('ok'), (NULL)")
        let decoding = try #require(throws: RowDecodingError.self) { _ = try db.fetchAll(CRUDLogLine.self) }
        #expect(decoding.isNullValue)
        #expect(decoding.column == "message")
        #expect(decoding.description.contains("CRUDLogLine.message"))
        #expect(decoding.sql?.contains("log_lines") == true)
    }

    /// The cached statements are built for the table's column order: a model that encodes
    /// another order is still written column by column, on every run, not only the first.
    @Test func modelEncodingAnotherColumnOrderIsWrittenByName() throws {
        let db = try Database(.inMemory)
        var first = CRUDReordered(id: nil, name: "a", score: 1)
        var second = CRUDReordered(id: nil, name: "b", score: 2)
        try db.insert(&first)
        try db.insert(&second)
        first.score = 10
        second.name = "c"
        try db.update(first)
        try db.update(second)
        #expect(try db.fetchAll(CRUDReordered.self) == [first, second])
    }

    @Test func modelEncodingAColumnTwiceWritesNothing() throws {
        let db = try Database(.inMemory)
        try db.migrate(CRUDTwice.self)
        for _ in 0..<2 {
            var model = CRUDTwice(id: nil, name: "a")
            #expect(throws: EncodingError.self) { try db.insert(&model) }
        }
        #expect(try rowCount(db, "twice") == 0)
    }

    @Test func modelWithoutPrimaryKeyCannotBeUsedByKey() throws {
        let db = try Database(.inMemory)
        let line = CRUDLogLine(message: "hello")
        try db.insert(line)
        #expect(try db.fetchAll(CRUDLogLine.self) == [line])
        let attempts: [(String, () throws -> Void)] = [
            ("update", { try db.update(line) }),
            ("delete", { _ = try db.delete(line) }),
            ("delete by id", { _ = try db.delete(CRUDLogLine.self, id: 1) }),
            ("find", { _ = try db.find(CRUDLogLine.self, id: 1) }),
            ("exists", { _ = try db.exists(CRUDLogLine.self, id: 1) }),
        ]
        for (name, attempt) in attempts {
            let error = try #require(throws: PersistenceError.self, "\(name)") { try attempt() }
            #expect(error.message.contains("CRUDLogLine has no primary key"), "\(name)")
            #expect(error.message.contains("primaryKey:"), "\(name)")
            #expect(error.table == "log_lines")
            #expect(!error.isRowNotFound)
        }
        #expect(try db.fetchAll(CRUDLogLine.self) == [line])
    }
}
