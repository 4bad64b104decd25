import Foundation
import LiteRecord
import LiteRecordPostgres
import LiteRecordTestSupport
import Testing

// The data layer written once, against `some ModelContext` / `some ModelDatabase`, and run on
// an in-memory SQLite database, a SQLite file, and PostgreSQL: every requirement of the two
// protocols, with the values read back and the effects of SQL checked by a second query.

private struct Gamer: Model, Equatable {
    var id: Int64?
    var name: String
    var score: Int
    var team: String?
    static let schema = Schema<Gamer>(table: "mdb_gamers", unique: [\.name])
}

/// A model with a composite primary key.
private struct Membership: Model, Equatable {
    var club: String
    var member: Int64
    var role: String
    static let schema = Schema<Membership>(table: "mdb_memberships", primaryKey: [\.club, \.member])
}

/// A model without a primary key.
private struct LogLine: Model, Equatable {
    var text: String
    static let schema = Schema<LogLine>(table: "mdb_log_lines")
}

private struct Rollback: Error {}

/// A `Decodable` that is not a model: columns by name.
private struct NameScore: Decodable, Equatable, Sendable {
    var name: String
    var score: Int
}

// MARK: - The data layer, written once

private enum DataLayer {
    /// The brief's example: a count read in a transaction.
    static func total(in db: some ModelContext) throws -> Int {
        try db.transaction { tx in try tx.count(Gamer.self) }
    }

    static func writeModels(_ db: some ModelContext) throws {
        try db.migrate(Gamer.self)
        #expect(try db.count(Gamer.self) == 0)
        #expect(try db.fetchAll(Gamer.self).isEmpty)

        var alice = Gamer(id: nil, name: "Alice", score: 10, team: "red")
        try db.insert(&alice)
        let aliceID = try #require(alice.id)
        #expect(try db.find(Gamer.self, id: aliceID) == alice)
        #expect(try db.exists(Gamer.self, id: aliceID))

        // A key the caller chose.
        let chosen = Gamer(id: 100, name: "Chosen", score: 1, team: nil)
        try db.insert(chosen)
        #expect(try db.find(Gamer.self, id: 100) == chosen)

        // A batch: keys set, in order.
        let batch = try db.insert(contentsOf: [
            Gamer(id: nil, name: "Bob", score: 20, team: "blue"),
            Gamer(id: nil, name: "Carol", score: 30, team: nil),
        ])
        #expect(batch.map(\.name) == ["Bob", "Carol"])
        #expect(batch.allSatisfy { $0.id != nil })
        #expect(try db.count(Gamer.self) == 4)

        // A batch with a duplicate name writes nothing.
        let duplicateBatch = [
            Gamer(id: nil, name: "Dave", score: 1, team: nil),
            Gamer(id: nil, name: "Alice", score: 2, team: nil),
        ]
        let duplicate = #expect(throws: DatabaseError.self) { try db.insert(contentsOf: duplicateBatch) }
        #expect(duplicate?.resultCode == .constraintUnique)
        #expect(try db.count(Gamer.self) == 4)
        #expect(try db.fetchAll(Gamer.self).map(\.name).contains("Dave") == false)

        // save: an insert for a nil key, an update for an existing one.
        var erin = Gamer(id: nil, name: "Erin", score: 5, team: nil)
        try db.save(&erin)
        let erinID = try #require(erin.id)
        erin.score = 50
        try db.save(&erin)
        #expect(erin.id == erinID)
        #expect(try db.find(Gamer.self, id: erinID)?.score == 50)

        // update: the whole row.
        alice.score = 11
        alice.team = nil
        try db.update(alice)
        #expect(try db.find(Gamer.self, id: aliceID) == alice)

        // update(_:columns:): only the columns named; the others keep the row's values.
        var stale = alice
        stale.name = "Not written"
        stale.score = 99
        try db.update(stale, columns: [\.score])
        #expect(
            try db.find(Gamer.self, id: aliceID) == Gamer(id: aliceID, name: "Alice", score: 99, team: nil))

        // A missing row is an error of its kind, and nothing is inserted.
        let ghost = Gamer(id: 9_999, name: "Ghost", score: 0, team: nil)
        let notFound = #expect(throws: PersistenceError.self) { try db.update(ghost) }
        #expect(notFound?.isRowNotFound == true)
        let partialNotFound = #expect(throws: PersistenceError.self) {
            try db.update(ghost, columns: [\.score])
        }
        #expect(partialNotFound?.isRowNotFound == true)
        let ghostMessage = "no row of mdb_gamers has id = 9999; nothing was updated"
        #expect(notFound?.message == ghostMessage)
        #expect(partialNotFound?.message == ghostMessage)
        #expect(try db.exists(Gamer.self, id: 9_999) == false)

        // Deletes.
        #expect(try db.delete(chosen))
        #expect(try db.delete(chosen) == false)
        #expect(try db.delete(Gamer.self, id: erinID))
        #expect(try db.delete(Gamer.self, id: erinID) == false)
        #expect(try db.find(Gamer.self, id: erinID) == nil)

        // fetchAll in key order.
        let all = try db.fetchAll(Gamer.self)
        #expect(all.map(\.name) == ["Alice", "Bob", "Carol"])
        #expect(try total(in: db) == 3)
    }

    static func compositeKeys(_ db: some ModelContext) throws {
        try db.insert(Membership(club: "chess", member: 1, role: "captain"))
        try db.insert(Membership(club: "chess", member: 2, role: "player"))
        try db.insert(Membership(club: "go", member: 1, role: "player"))

        #expect(
            try db.find(Membership.self, key: ["chess", 2])
                == Membership(club: "chess", member: 2, role: "player"))
        #expect(try db.find(Membership.self, key: ["go", 2]) == nil)
        let wrongCount = #expect(throws: PersistenceError.self) {
            try db.find(Membership.self, key: ["chess"])
        }
        #expect(wrongCount?.message.contains("2 column(s)") == true)
        let wrongDelete = #expect(throws: PersistenceError.self) {
            try db.delete(Membership.self, key: ["chess", 1, "extra"])
        }
        #expect(wrongDelete != nil)
        #expect(try db.count(Membership.self) == 3)

        #expect(try db.delete(Membership.self, key: ["chess", 1]))
        #expect(try db.delete(Membership.self, key: ["chess", 1]) == false)
        #expect(try db.fetchAll(Membership.self).map(\.role) == ["player", "player"])
        // A composite key has no single `id`.
        let single = #expect(throws: PersistenceError.self) { try db.find(Membership.self, id: "chess") }
        #expect(single != nil)
        // Every lookup by `id` says why in the same words on every backend, and changes nothing.
        let singles = [
            #expect(throws: PersistenceError.self) { try db.find(Membership.self, id: "go") },
            #expect(throws: PersistenceError.self) { try db.exists(Membership.self, id: "go") },
            #expect(throws: PersistenceError.self) { try db.delete(Membership.self, id: "go") },
        ]
        for error in singles {
            #expect(
                error?.message.contains(
                    "primary key has 2 column(s) (club, member) but 1 value(s) were given")
                    == true, "\(String(describing: error))")
        }
        #expect(try db.count(Membership.self) == 2)
        // A model without a primary key: the same error as SQLite's, whatever the lookup.
        try db.insert(LogLine(text: "started"))
        let keyless = [
            #expect(throws: PersistenceError.self) { try db.find(LogLine.self, id: 1) },
            #expect(throws: PersistenceError.self) { try db.exists(LogLine.self, id: 1) },
            #expect(throws: PersistenceError.self) { try db.delete(LogLine.self, id: 1) },
        ]
        for error in keyless {
            #expect(
                error?.message.contains("LogLine has no primary key") == true, "\(String(describing: error))")
        }
        #expect(try db.fetchAll(LogLine.self) == [LogLine(text: "started")])
    }

    static func rawSQL(_ db: some ModelContext) throws {
        #expect(
            try db.execute(sql: "CREATE TABLE mdb_notes (id INTEGER PRIMARY KEY, body TEXT, n INTEGER)") == 0)
        #expect(
            try db.execute(sql: "INSERT INTO mdb_notes (id, body, n) VALUES (\(1), \("one"), \(10))") == 1)
        #expect(
            try db.execute(
                sql: "INSERT INTO mdb_notes (id, body, n) VALUES (?, ?, ?)", arguments: [2, "two", 20])
                == 1)
        // A `?` inside a string literal is text, not a parameter.
        #expect(
            try db.execute(sql: "INSERT INTO mdb_notes (id, body, n) VALUES (?, 'what?', 30)", arguments: [3])
                == 1)
        #expect(try db.fetchOne(String.self, sql: "SELECT body FROM mdb_notes WHERE id = \(3)") == "what?")

        // The count is of rows changed; a statement that changes none counts 0, even right
        // after one that did.
        #expect(try db.execute(sql: "UPDATE mdb_notes SET n = n + 1") == 3)
        #expect(try db.execute(sql: "SELECT * FROM mdb_notes") == 0)
        #expect(try db.execute(sql: "CREATE INDEX mdb_notes_n ON mdb_notes (n)") == 0)
        #expect(try db.execute(sql: "DELETE FROM mdb_notes WHERE id = \(-1)") == 0)

        // Argument count mismatch: a clear error, nothing written.
        let mismatch = #expect(throws: DatabaseError.self) {
            try db.execute(
                sql: "INSERT INTO mdb_notes (id, body, n) VALUES (?, ?, ?)", arguments: [4, "four"])
        }
        #expect(mismatch?.resultCode == .misuse)
        #expect(try db.fetchOne(Int.self, sql: "SELECT count(*) FROM mdb_notes") == 3)

        // Decodable fetches.
        #expect(
            try db.fetchAll(String.self, sql: "SELECT body FROM mdb_notes ORDER BY id") == [
                "one", "two", "what?",
            ])
        #expect(
            try db.fetchAll(Int.self, sql: "SELECT n FROM mdb_notes WHERE n > ? ORDER BY n", arguments: [15])
                == [21, 31])
        #expect(try db.fetchOne(Int.self, sql: "SELECT n FROM mdb_notes WHERE id = \(1)") == 11)
        #expect(try db.fetchOne(Int.self, sql: "SELECT n FROM mdb_notes WHERE id = \(42)") == nil)
        let pairs = try db.fetchAll(
            NameScore.self, sql: "SELECT body AS name, n AS score FROM mdb_notes ORDER BY id")
        #expect(
            pairs == [
                NameScore(name: "one", score: 11), NameScore(name: "two", score: 21),
                NameScore(name: "what?", score: 31),
            ])

        // Models from SQL, decoded by their schema.
        try db.insert(Gamer(id: 7, name: "Zed", score: 70, team: "green"))
        #expect(
            try db.fetchAll(Gamer.self, sql: "SELECT * FROM mdb_gamers WHERE score > \(1)") == [
                Gamer(id: 7, name: "Zed", score: 70, team: "green")
            ])
        #expect(try db.fetchOne(Gamer.self, sql: "SELECT * FROM mdb_gamers")?.name == "Zed")

        // Rows.
        let rows = try db.fetchAll(Row.self, sql: "SELECT id, body FROM mdb_notes ORDER BY id")
        #expect(try rows.map { try $0.value(String.self, named: "body") } == ["one", "two", "what?"])
        let argumentRows = try db.fetchAll(
            Row.self, sql: "SELECT id FROM mdb_notes WHERE body = ?", arguments: ["two"])
        #expect(try argumentRows.map { try $0.value(Int64.self, at: 0) } == [2])
        #expect(
            try db.fetchOne(Row.self, sql: "SELECT n FROM mdb_notes WHERE id = \(2)")?.value(Int.self, at: 0)
                == 21)
        #expect(try db.fetchOne(Row.self, sql: "SELECT n FROM mdb_notes WHERE id = \(42)") == nil)

        var seen: [Int64] = []
        try db.forEachRow(sql: "SELECT id FROM mdb_notes ORDER BY id DESC") {
            seen.append(try $0.value(Int64.self, at: 0))
        }
        #expect(seen == [3, 2, 1])
        // A throwing body stops the iteration.
        var visited = 0
        #expect(throws: Rollback.self) {
            try db.forEachRow(sql: "SELECT id FROM mdb_notes ORDER BY id") { _ in
                visited += 1
                throw Rollback()
            }
        }
        #expect(visited == 1)
    }

    static func transactions(_ db: some ModelContext) throws {
        try db.migrate(Gamer.self)
        // Commit.
        let id = try db.transaction { tx in
            var gamer = Gamer(id: nil, name: "Tx", score: 1, team: nil)
            try tx.insert(&gamer)
            return try #require(gamer.id)
        }
        #expect(try db.find(Gamer.self, id: id)?.name == "Tx")

        // Roll back: nothing of the body stays.
        #expect(throws: Rollback.self) {
            try db.transaction { tx in
                try tx.insert(Gamer(id: nil, name: "Lost", score: 0, team: nil))
                try tx.execute(sql: "UPDATE mdb_gamers SET score = 1000")
                throw Rollback()
            }
        }
        #expect(try db.fetchAll(Gamer.self).map(\.name) == ["Tx"])
        #expect(try db.find(Gamer.self, id: id)?.score == 1)

        // Nested: an inner transaction is a savepoint; its rollback keeps the outer work.
        try db.transaction { tx in
            try tx.insert(Gamer(id: nil, name: "Outer", score: 2, team: nil))
            #expect(throws: Rollback.self) {
                try tx.transaction { inner in
                    try inner.insert(Gamer(id: nil, name: "Inner", score: 3, team: nil))
                    throw Rollback()
                }
            }
            try tx.savepoint("named spot") { inner in
                try inner.insert(Gamer(id: nil, name: "Named", score: 4, team: nil))
            }
            #expect(throws: Rollback.self) {
                try tx.savepoint { inner in
                    try inner.update(Gamer(id: id, name: "Tx", score: 500, team: nil))
                    throw Rollback()
                }
            }
            let inserted = try tx.insert(contentsOf: [Gamer(id: nil, name: "Batch", score: 5, team: nil)])
            #expect(inserted.count == 1)
            #expect(try tx.count(Gamer.self) == 4)
        }
        #expect(try db.fetchAll(Gamer.self).map(\.name) == ["Tx", "Outer", "Named", "Batch"])
        #expect(try db.find(Gamer.self, id: id)?.score == 1)

        // A savepoint outside a transaction is a transaction of its own.
        try db.savepoint(nil) { tx in try tx.execute(sql: "UPDATE mdb_gamers SET score = 7 WHERE name = 'Tx'")
        }
        #expect(throws: Rollback.self) {
            try db.savepoint { tx in
                try tx.execute(sql: "DELETE FROM mdb_gamers")
                throw Rollback()
            }
        }
        #expect(try db.find(Gamer.self, id: id)?.score == 7)
        #expect(try total(in: db) == 4)
    }

    /// The synchronous `read` and `write` of a database.
    static func readsAndWrites(_ db: some ModelDatabase) throws {
        try db.write { tx in try tx.insert(Gamer(id: 1, name: "W", score: 1, team: nil)) }
        #expect(try db.read { tx in try tx.find(Gamer.self, id: 1)?.name } == "W")
        let refused = #expect(throws: DatabaseError.self) {
            try db.read { tx in try tx.execute(sql: "DELETE FROM mdb_gamers") }
        }
        #expect(refused?.resultCode == .readOnly)
        #expect(try db.count(Gamer.self) == 1)
        #expect(throws: Rollback.self) {
            try db.write { tx in
                try tx.execute(sql: "DELETE FROM mdb_gamers")
                throw Rollback()
            }
        }
        #expect(try db.count(Gamer.self) == 1)
    }

    /// Every async requirement of `ModelDatabase`.
    static func asyncOperations(_ db: some ModelDatabase) async throws {
        try await db.migrate(Gamer.self)
        var alice = Gamer(id: nil, name: "Alice", score: 1, team: nil)
        try await db.insert(&alice)
        let aliceID = try #require(alice.id)
        try await db.insert(Gamer(id: 50, name: "Fifty", score: 50, team: nil))
        let batch = try await db.insert(contentsOf: [Gamer(id: nil, name: "Bob", score: 2, team: nil)])
        let bobID = try #require(batch.first?.id)
        var carol = Gamer(id: nil, name: "Carol", score: 3, team: nil)
        try await db.save(&carol)
        #expect(carol.id != nil)
        alice.score = 10
        try await db.update(alice)
        #expect(try await db.find(Gamer.self, id: aliceID) == alice)
        var stale = alice
        stale.name = "Not written"
        stale.score = 12
        try await db.update(stale, columns: [\.score])
        alice.score = 12
        #expect(try await db.find(Gamer.self, id: aliceID) == alice)
        let noColumns = stale
        await #expect(throws: SchemaError.self) { try await db.update(noColumns, columns: []) }
        #expect(try await db.exists(Gamer.self, id: bobID))
        #expect(try await db.count(Gamer.self) == 4)
        #expect(try await db.fetchAll(Gamer.self).map(\.name) == ["Alice", "Fifty", "Bob", "Carol"])
        #expect(try await db.delete(alice))
        #expect(try await db.delete(Gamer.self, id: bobID))
        #expect(try await db.delete(Gamer.self, id: bobID) == false)
        #expect(try await db.count(Gamer.self) == 2)

        #expect(try await db.execute(sql: "UPDATE mdb_gamers SET score = score + \(1)") == 2)
        #expect(
            try await db.fetchAll(Int.self, sql: "SELECT score FROM mdb_gamers ORDER BY score") == [4, 51])
        #expect(
            try await db.fetchOne(String.self, sql: "SELECT name FROM mdb_gamers WHERE score = \(51)")
                == "Fifty")
        #expect(
            try await db.fetchOne(String.self, sql: "SELECT name FROM mdb_gamers WHERE score = \(0)") == nil)
        let rows = try await db.fetchAll(Row.self, sql: "SELECT name, score FROM mdb_gamers ORDER BY score")
        #expect(try rows.map { try $0.value(String.self, named: "name") } == ["Carol", "Fifty"])
        #expect(try rows.map { try $0.value(Int.self, named: "score") } == [4, 51])
        let fromTable = try await db.fetchAll(NameScore.self, fromTable: "mdb_gamers")
        #expect(Set(fromTable.map(\.name)) == ["Carol", "Fifty"])
        #expect(Set(fromTable.map(\.score)) == [4, 51])
        let row = try await db.fetchOne(Row.self, sql: "SELECT name FROM mdb_gamers WHERE score = \(51)")
        #expect(try row?.value(String.self, at: 0) == "Fifty")
        #expect(try await db.fetchOne(Row.self, sql: "SELECT name FROM mdb_gamers WHERE score = \(0)") == nil)

        let written = try await db.transaction { tx in
            try tx.insert(Gamer(id: 60, name: "Sixty", score: 60, team: nil))
            return try tx.count(Gamer.self)
        }
        #expect(written == 3)
        try await db.write { tx in try tx.execute(sql: "UPDATE mdb_gamers SET team = 'w' WHERE id = \(60)") }
        #expect(try await db.read { tx in try tx.find(Gamer.self, id: 60)?.team } == "w")
        await #expect(throws: Rollback.self) {
            try await db.savepoint(nil) { tx in
                try tx.execute(sql: "DELETE FROM mdb_gamers")
                throw Rollback()
            }
        }
        try await db.savepoint("async spot") { tx in try tx.delete(Gamer.self, id: 60) }
        #expect(try await db.count(Gamer.self) == 2)
        let missing = Gamer(id: 12_345, name: "Nobody", score: 0, team: nil)
        let notFound = await #expect(throws: PersistenceError.self) { try await db.update(missing) }
        #expect(notFound?.isRowNotFound == true)
        // Worded alike on every backend, naming the key.
        #expect(notFound?.message == "no row of mdb_gamers has id = 12345; nothing was updated")
    }

    /// Every async form runs off the calling task on every backend, through the protocol as
    /// through the concrete type: a task cancelled before the work starts gets
    /// `CancellationError` and writes nothing. A synchronous form that the compiler chose in
    /// its place (as it did for `fetchAll(_:fromTable:)`, the `sql:arguments:` forms and the
    /// composite-key forms, which had no async requirement) runs, writes and throws nothing.
    static func asyncFormsHonourCancellation(_ db: some ModelDatabase) async throws {
        try await db.migrate(Gamer.self)
        try await db.migrate(Membership.self)
        let kept = Gamer(id: 1, name: "Kept", score: 1, team: nil)
        let member = Membership(club: "chess", member: 1, role: "kept")
        try await db.insert(kept)
        try await db.insert(member)
        var changed = kept
        changed.score = 99
        let changedCopy = changed
        let update: SQL = "UPDATE mdb_gamers SET score = 99"
        let select: SQL = "SELECT name, score FROM mdb_gamers"
        let forms: [(name: String, run: @Sendable () async throws -> Void)] = [
            ("insert(_:)", { try await db.insert(Gamer(id: 90, name: "New", score: 0, team: nil)) }),
            (
                "insert(&_:)",
                {
                    var new = Gamer(id: nil, name: "New", score: 0, team: nil)
                    try await db.insert(&new)
                }
            ),
            (
                "insert(contentsOf:)",
                { _ = try await db.insert(contentsOf: [Gamer(id: 91, name: "N", score: 0, team: nil)]) }
            ),
            (
                "save(_:)",
                {
                    var model = changedCopy
                    try await db.save(&model)
                }
            ),
            ("update(_:)", { try await db.update(changedCopy) }),
            ("update(_:columns:)", { try await db.update(changedCopy, columns: [\Gamer.score]) }),
            ("delete(_:)", { _ = try await db.delete(kept) }),
            ("delete(_:id:)", { _ = try await db.delete(Gamer.self, id: 1) }),
            ("delete(_:key:)", { _ = try await db.delete(Membership.self, key: ["chess", 1]) }),
            ("migrate(_:)", { try await db.migrate(LogLine.self) }),
            ("execute(sql:)", { _ = try await db.execute(sql: update) }),
            (
                "execute(sql:arguments:)",
                { _ = try await db.execute(sql: "UPDATE mdb_gamers SET score = ?", arguments: [99]) }
            ),
            ("find(_:id:)", { _ = try await db.find(Gamer.self, id: 1) }),
            ("find(_:key:)", { _ = try await db.find(Membership.self, key: ["chess", 1]) }),
            ("exists(_:id:)", { _ = try await db.exists(Gamer.self, id: 1) }),
            ("fetchAll(_:)", { _ = try await db.fetchAll(Gamer.self) }),
            ("count(_:)", { _ = try await db.count(Gamer.self) }),
            ("fetchAll(_:sql:)", { _ = try await db.fetchAll(NameScore.self, sql: select) }),
            ("fetchOne(_:sql:)", { _ = try await db.fetchOne(NameScore.self, sql: select) }),
            (
                "fetchAll(_:sql:arguments:)",
                {
                    _ = try await db.fetchAll(
                        Int.self, sql: "SELECT score FROM mdb_gamers WHERE id = ?", arguments: [1])
                }
            ),
            (
                "fetchAll(_:fromTable:)",
                { _ = try await db.fetchAll(NameScore.self, fromTable: "mdb_gamers") }
            ),
            ("fetchAll(Row.self, sql:)", { _ = try await db.fetchAll(Row.self, sql: select) }),
            ("fetchOne(Row.self, sql:)", { _ = try await db.fetchOne(Row.self, sql: select) }),
            (
                "fetchAll(Row.self, sql:arguments:)",
                {
                    _ = try await db.fetchAll(
                        Row.self, sql: "SELECT name FROM mdb_gamers WHERE id = ?", arguments: [1])
                }
            ),
            ("transaction(_:)", { _ = try await db.transaction { try $0.execute(sql: update) } }),
            ("write(_:)", { _ = try await db.write { try $0.execute(sql: update) } }),
            ("read(_:)", { _ = try await db.read { try $0.count(Gamer.self) } }),
            ("savepoint(_:_:)", { _ = try await db.savepoint(nil) { try $0.execute(sql: update) } }),
        ]
        for form in forms {
            let error = await Task(executorPreference: DedicatedThreadExecutor.promptTasks) {
                () -> (any Error)? in
                withUnsafeCurrentTask { $0?.cancel() }
                do {
                    try await form.run()
                    return nil
                } catch { return error }
            }.value
            #expect(error is CancellationError, "\(form.name): \(error.map { "\($0)" } ?? "ran")")
        }
        #expect(try await db.fetchAll(Gamer.self) == [kept])
        #expect(try await db.fetchAll(Membership.self) == [member])
    }
}

// MARK: - Where it runs

/// A SQLite file database in a directory of its own, removed after `body`.
private func withSQLiteFile(_ body: (Database) throws -> Void) throws {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
        "literecord-mdb-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    try body(try Database(path: directory.appendingPathComponent("db.sqlite").path))
}

private func withSQLiteFileAsync(_ body: (Database) async throws -> Void) async throws {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
        "literecord-mdb-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    try await body(try Database(path: directory.appendingPathComponent("db.sqlite").path))
}

@Suite(.offCooperativePool) struct ModelDatabaseParitySQLiteMemoryTests {
    @Test func writeModels() throws { try DataLayer.writeModels(try Database(.inMemory)) }
    @Test func compositeKeys() throws { try DataLayer.compositeKeys(try Database(.inMemory)) }
    @Test func rawSQL() throws { try DataLayer.rawSQL(try Database(.inMemory)) }
    @Test func transactions() throws { try DataLayer.transactions(try Database(.inMemory)) }
    @Test func readsAndWrites() throws { try DataLayer.readsAndWrites(try Database(.inMemory)) }
    @Test func insideATransaction() throws {
        let db = try Database(.inMemory)
        try db.transaction { tx in
            try DataLayer.writeModels(tx)
            try DataLayer.compositeKeys(tx)
        }
    }
    @Test func asyncOperations() async throws { try await DataLayer.asyncOperations(try Database(.inMemory)) }
    @Test func asyncFormsHonourCancellation() async throws {
        try await DataLayer.asyncFormsHonourCancellation(try Database(.inMemory))
    }
}

@Suite(.offCooperativePool) struct ModelDatabaseParitySQLiteFileTests {
    @Test func writeModels() throws { try withSQLiteFile { try DataLayer.writeModels($0) } }
    @Test func compositeKeys() throws { try withSQLiteFile { try DataLayer.compositeKeys($0) } }
    @Test func rawSQL() throws { try withSQLiteFile { try DataLayer.rawSQL($0) } }
    @Test func transactions() throws { try withSQLiteFile { try DataLayer.transactions($0) } }
    @Test func readsAndWrites() throws { try withSQLiteFile { try DataLayer.readsAndWrites($0) } }
    @Test func asyncOperations() async throws {
        try await withSQLiteFileAsync { try await DataLayer.asyncOperations($0) }
    }
    @Test func asyncFormsHonourCancellation() async throws {
        try await withSQLiteFileAsync { try await DataLayer.asyncFormsHonourCancellation($0) }
    }
}

@Suite(.enabled(if: PostgresTestServer.isAvailable, PostgresTestServer.skipMessage), .offCooperativePool)
struct ModelDatabaseParityPostgresTests {
    @Test func writeModels() throws { try DataLayer.writeModels(try PostgresTestServer.freshDatabase()) }
    @Test func compositeKeys() throws { try DataLayer.compositeKeys(try PostgresTestServer.freshDatabase()) }
    @Test func rawSQL() throws { try DataLayer.rawSQL(try PostgresTestServer.freshDatabase()) }
    @Test func transactions() throws { try DataLayer.transactions(try PostgresTestServer.freshDatabase()) }
    @Test func readsAndWrites() throws {
        try DataLayer.readsAndWrites(try PostgresTestServer.freshDatabase())
    }
    @Test func insideATransaction() throws {
        let db = try PostgresTestServer.freshDatabase()
        try db.transaction { tx in
            try DataLayer.writeModels(tx)
            try DataLayer.compositeKeys(tx)
        }
    }
    @Test func asyncOperations() async throws {
        try await DataLayer.asyncOperations(try PostgresTestServer.freshDatabase())
    }
    @Test func asyncFormsHonourCancellation() async throws {
        try await DataLayer.asyncFormsHonourCancellation(try PostgresTestServer.freshDatabase())
    }
}

// MARK: - The methods PostgreSQL gained for the protocols

@Suite(.enabled(if: PostgresTestServer.isAvailable, PostgresTestServer.skipMessage), .offCooperativePool)
struct PostgresModelContextMethodTests {
    @Test func updateColumnsWritesOnlyThoseColumns() throws {
        let pg = try PostgresTestServer.freshDatabase()
        var gamer = Gamer(id: nil, name: "Ann", score: 1, team: "red")
        try pg.insert(&gamer)
        let id = try #require(gamer.id)
        // Another writer changes the team meanwhile; a partial update of the score keeps it.
        try pg.execute(sql: "UPDATE mdb_gamers SET team = 'blue' WHERE id = \(id)")
        gamer.score = 2
        gamer.name = "Not written"
        try pg.update(gamer, columns: [\.score, \.score])
        #expect(try pg.find(Gamer.self, id: id) == Gamer(id: id, name: "Ann", score: 2, team: "blue"))
        // Bad input: nothing is written.
        let snapshot = gamer
        let empty = #expect(throws: SchemaError.self) { try pg.update(snapshot, columns: []) }
        #expect(empty?.description.contains("at least one column") == true)
        let key = #expect(throws: SchemaError.self) { try pg.update(snapshot, columns: [\.id]) }
        #expect(key?.description.contains("primary key") == true)
        #expect(try pg.find(Gamer.self, id: id) == Gamer(id: id, name: "Ann", score: 2, team: "blue"))
        // The unique constraint still applies to a column written alone.
        try pg.insert(Gamer(id: nil, name: "Taken", score: 0, team: nil))
        var renamed = gamer
        renamed.name = "Taken"
        let unique = #expect(throws: DatabaseError.self) { try pg.update(renamed, columns: [\.name]) }
        #expect(unique?.resultCode == .constraintUnique)
        #expect(try pg.find(Gamer.self, id: id)?.name == "Ann")
    }

    @Test func executeWithArgumentsNumbersQuestionMarks() throws {
        let pg = try PostgresTestServer.freshDatabase()
        try pg.execute(sql: "CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT)")
        let changed = try pg.execute(
            sql: "INSERT INTO notes (id, body) VALUES (?, ?), (?, '-- not a comment ? ')",
            arguments: [1, "a?b", 2])
        #expect(changed == 2)
        #expect(
            try pg.fetchAll(String.self, sql: "SELECT body FROM notes ORDER BY id") == [
                "a?b", "-- not a comment ? ",
            ])
        // Too few, too many, named: clear errors, nothing written.
        let tooFew = #expect(throws: DatabaseError.self) {
            try pg.execute(sql: "INSERT INTO notes (id, body) VALUES (?, ?)", arguments: [3])
        }
        #expect(tooFew?.resultCode == .misuse)
        #expect(tooFew?.message == "the SQL has 2 parameters but 1 arguments were given")
        let tooMany = #expect(throws: DatabaseError.self) {
            try pg.execute(sql: "INSERT INTO notes (id, body) VALUES (?, 'x')", arguments: [3, "extra"])
        }
        #expect(tooMany?.resultCode == .misuse)
        let named = #expect(throws: DatabaseError.self) {
            try pg.execute(sql: "INSERT INTO notes (id, body) VALUES (:id, 'x')", arguments: ["id": 3])
        }
        #expect(named?.resultCode == .misuse)
        // A script with arguments: refused by the server as a whole, nothing written.
        let script = #expect(throws: DatabaseError.self) {
            try pg.execute(
                sql:
                    "INSERT INTO notes (id, body) VALUES (?, 'x'); INSERT INTO notes (id, body) VALUES (?, 'y')",
                arguments: [5, 6])
        }
        #expect(script != nil)
        #expect(try pg.fetchOne(Int.self, sql: "SELECT count(*) FROM notes") == 2)
        // The Decodable and Row forms with arguments.
        #expect(
            try pg.fetchAll(Int.self, sql: "SELECT id FROM notes WHERE body = ?", arguments: ["a?b"]) == [1])
        let rows = try pg.fetchAll(Row.self, sql: "SELECT body FROM notes WHERE id = ?", arguments: [2])
        #expect(try rows.map { try $0.value(String.self, at: 0) } == ["-- not a comment ? "])
    }

    @Test func forEachRowStreamsAndLetsTheTransactionGoOn() throws {
        let pg = try PostgresTestServer.freshDatabase()
        try pg.execute(sql: "CREATE TABLE numbers AS SELECT generate_series(1, 1200) AS n")
        var total = 0
        var count = 0
        try pg.forEachRow(sql: "SELECT n FROM numbers ORDER BY n") { row in
            total += try row.value(Int.self, at: 0)
            count += 1
        }
        #expect(count == 1200)
        #expect(total == 1200 * 1201 / 2)
        // Inside a transaction: the body writes between rows, and a body that throws stops the
        // iteration without aborting the transaction.
        try pg.transaction { tx in
            try tx.forEachRow(sql: "SELECT n FROM numbers WHERE n <= \(3) ORDER BY n") { row in
                try tx.execute(
                    sql: "INSERT INTO numbers (n) VALUES (\(try row.value(Int.self, at: 0) + 10_000))")
            }
            var seen = 0
            #expect(throws: Rollback.self) {
                try tx.forEachRow(sql: "SELECT n FROM numbers") { _ in
                    seen += 1
                    throw Rollback()
                }
            }
            #expect(seen == 1)
        }
        #expect(
            try pg.fetchAll(Int.self, sql: "SELECT n FROM numbers WHERE n > 10000 ORDER BY n") == [
                10_001, 10_002, 10_003,
            ])
        // A cursor runs only a query: a write that returns rows is refused, and writes nothing.
        let notAQuery = #expect(throws: DatabaseError.self) {
            try pg.forEachRow(sql: "INSERT INTO numbers (n) VALUES (\(-1)) RETURNING n") { _ in }
        }
        #expect(notAQuery != nil)
        #expect(try pg.fetchOne(Int.self, sql: "SELECT count(*) FROM numbers WHERE n = \(-1)") == 0)
        // A statement that fails is an error of its kind.
        let missing = #expect(throws: DatabaseError.self) {
            try pg.forEachRow(sql: "SELECT * FROM no_such_table") { _ in }
        }
        #expect(missing != nil)
    }

    @Test func findAndDeleteByCompositeKey() throws {
        let pg = try PostgresTestServer.freshDatabase()
        // No table yet: nothing found, and the read creates none.
        #expect(try pg.find(Membership.self, key: ["chess", 1]) == nil)
        try pg.insert(Membership(club: "chess", member: 1, role: "captain"))
        try pg.insert(Membership(club: "chess", member: 2, role: "player"))
        #expect(try pg.find(Membership.self, key: ["chess", 1])?.role == "captain")
        #expect(try pg.find(Membership.self, key: ["chess", 3]) == nil)
        // Bad input: the number of values is checked before anything runs.
        let wrong = #expect(throws: PersistenceError.self) { try pg.delete(Membership.self, key: [1]) }
        #expect(wrong?.message.contains("but 1 value(s) were given") == true)
        #expect(try pg.count(Membership.self) == 2)
        #expect(try pg.delete(Membership.self, key: ["chess", 2]))
        #expect(try pg.fetchAll(Membership.self) == [Membership(club: "chess", member: 1, role: "captain")])
        // A single-column key works through `key:` too.
        try pg.insert(Gamer(id: 5, name: "Five", score: 5, team: nil))
        #expect(try pg.find(Gamer.self, key: [5])?.name == "Five")
        #expect(try pg.delete(Gamer.self, key: [5]))
        #expect(try pg.exists(Gamer.self, id: 5) == false)
    }
}
