import Foundation
import LiteRecord
import LiteRecordTestSupport
import Testing

/// A model type that was never written reads as an empty table wherever a read cannot create
/// its table (a reader, a read closure, a read-only database), instead of "no such table".
@Suite("Reading a model whose table does not exist yet", .offCooperativePool)
struct MissingTableReadTests {
    struct Gadget: Model, Equatable {
        var id: Int64?
        var name: String
        var weight: Double
        var tags: [String]
    }

    struct GadgetName: Decodable, Equatable, Sendable {
        var name: String
    }

    /// Every model read, inside one read closure; each result must be empty.
    private static func readEverything(_ db: Connection) throws -> [String] {
        var found: [String] = []
        func note(_ label: String, _ isEmpty: Bool) { if !isEmpty { found.append(label) } }
        let query = db.query(Gadget.self).where { $0.weight > 1 && $0.tags.contains("x") }
        note("fetchAll", try query.fetchAll().isEmpty)
        note("fetchOne", try query.fetchOne() == nil)
        note("count", try query.count() == 0)
        note("exists", try query.exists() == false)
        note("sum", try query.sum { $0.weight } == 0)
        note("max", try query.max { $0.weight } == nil)
        note("average", try query.average { $0.weight } == nil)
        note("select", try query.select(GadgetName.self).fetchAll().isEmpty)
        var visited = 0
        // swift-format-ignore: ReplaceForEachWithForLoop
        try query.forEach { _ in visited += 1 }
        note("forEach", visited == 0)
        note("db.fetchAll", try db.fetchAll(Gadget.self).isEmpty)
        note("db.count", try db.count(Gadget.self) == 0)
        note("db.find", try db.find(Gadget.self, id: 1) == nil)
        note("db.exists", try db.exists(Gadget.self, id: 1) == false)
        return found
    }

    private static func readSynchronously(_ db: Database) throws -> [String] {
        try db.read { try readEverything($0) }
    }

    private static func tableCount(_ db: Database) throws -> Int {
        try db.fetchOne(Int.self, sql: "SELECT count(*) FROM sqlite_master WHERE name = 'gadget'") ?? -1
    }

    @Test func readClosuresOnReadersReadAnEmptyTableAndCreateNothing() async throws {
        try await withTemporaryDirectory { dir in
            let db = try Database(path: dir.file("readers.sqlite"))
            #expect(db.readsInParallel)
            let everything = try await db.read { try Self.readEverything($0) }
            #expect(everything == [])
            let gadgets = try await db.read { try $0.query(Gadget.self).fetchAll() }
            #expect(gadgets == [])
            #expect(try Self.readSynchronously(db) == [])
            #expect(try Self.tableCount(db) == 0)
            // Raw SQL naming the missing table is still an error.
            let error = #expect(throws: DatabaseError.self) {
                try db.read { try $0.fetchAll(Row.self, sql: "SELECT * FROM gadget") }
            }
            #expect(error?.message.contains("no such table") == true)
            try await db.insert(Gadget(id: nil, name: "a", weight: 2, tags: ["x"]))
            let gadgetCount = try await db.read { try $0.query(Gadget.self).count() }
            #expect(gadgetCount == 1)
        }
    }

    @Test func aReadOnTheOnlyConnectionReadsEmptyAndAWriteAfterItCreatesTheTable() throws {
        let db = try Database(.inMemory)
        #expect(try db.read { try Self.readEverything($0) } == [])
        #expect(try Self.tableCount(db) == 0)
        // The read must not leave the writer believing the table is there.
        try db.insert(Gadget(id: nil, name: "a", weight: 2, tags: ["x"]))
        #expect(try db.read { try $0.count(Gadget.self) } == 1)
    }

    @Test func aReadOnlyDatabaseReadsAMissingModelTableAsEmpty() throws {
        try withTemporaryDirectory { dir in
            let path = dir.file("readonly.sqlite")
            try Database(path: path).execute(sql: "CREATE TABLE other(x INTEGER)")
            var configuration = Configuration()
            configuration.readOnly = true
            let db = try Database(path: path, configuration: configuration)
            #expect(try db.count(Gadget.self) == 0)
            #expect(try db.fetchAll(Gadget.self) == [])
            #expect(try db.find(Gadget.self, id: 1) == nil)
            #expect(try db.exists(Gadget.self, id: 1) == false)
            let heavy = try db.query(Gadget.self).where { $0.weight > 1 }.fetchAll()
            #expect(heavy == [])
            let heaviest = try db.query(Gadget.self).max { $0.weight }
            #expect(heaviest == nil)
            let everything = try db.read { try Self.readEverything($0) }
            #expect(everything == [])
            // A model without a primary key is still told so.
            #expect(throws: PersistenceError.self) { try db.find(Keyless.self, id: 1) }
        }
    }

    struct Widget: Model {
        var id: Int64?
        var name: String
        var color: String?
    }

    @Test func aReadOnTheWriterDoesNotKeepTheNextWriteFromGrowingTheTable() throws {
        let db = try Database(.inMemory)
        try db.execute(sql: "CREATE TABLE widget(id INTEGER PRIMARY KEY, name TEXT NOT NULL)")
        try db.execute(sql: "INSERT INTO widget(name) VALUES ('old')")
        // The read cannot add the new column; the write after it must.
        #expect(try db.read { try $0.count(Widget.self) } == 1)
        try db.insert(Widget(id: nil, name: "new", color: "red"))
        #expect(try db.fetchAll(Widget.self).map(\.color) == [nil, "red"])
    }

    struct Keyless: Model {
        var name: String
    }

    @Test func aMissingColumnOfATableThatExistsStillThrows() throws {
        try withTemporaryDirectory { dir in
            let path = dir.file("columns.sqlite")
            try Database(path: path).execute(
                sql: """
                    CREATE TABLE gadget(id INTEGER PRIMARY KEY, name TEXT);
                    INSERT INTO gadget(name) VALUES ('old');
                    """)
            var configuration = Configuration()
            configuration.readOnly = true
            let db = try Database(path: path, configuration: configuration)
            #expect(try db.count(Gadget.self) == 1)
            let error = #expect(throws: RowDecodingError.self) { try db.query(Gadget.self).fetchAll() }
            #expect(error?.isMissingColumn == true)
            #expect(error?.column == "weight")
            #expect(throws: RowDecodingError.self) { try db.read { try $0.fetchAll(Gadget.self) } }
        }
    }

    @Test func anObservationOfAMissingTableSeesItsFirstRows() async throws {
        try await withTemporaryDirectory { dir in
            let db = try Database(path: dir.file("observed.sqlite"))
            var counts = db.observe { try $0.count(Gadget.self) }.makeAsyncIterator()
            #expect(try await counts.next() == 0)
            #expect(try Self.tableCount(db) == 0)
            try await db.insert(Gadget(id: nil, name: "a", weight: 2, tags: []))
            #expect(try await counts.next() == 1)
            var names = db.observe { try $0.query(Gadget.self).select(GadgetName.self).fetchAll() }
                .makeAsyncIterator()
            #expect(try await names.next() == [GadgetName(name: "a")])
        }
    }

    @Test func aSynchronousObservationOfAMissingTableSeesItsFirstRows() throws {
        let db = try Database(.inMemory)
        let seen = Locked<[Int]>([])
        let sawFirst = Latch()
        let sawOne = Latch()
        let token = db.observe(
            { try $0.count(Gadget.self) },
            onChange: { count in
                seen.withLock { $0.append(count) }
                sawFirst.open()
                if count == 1 { sawOne.open() }
            })
        // The first value comes from a background thread; write once it has been read (a
        // loaded machine can take seconds to run that thread).
        #expect(sawFirst.wait())
        try db.insert(Gadget(id: nil, name: "a", weight: 2, tags: []))
        #expect(sawOne.wait())
        #expect(seen.withLock { $0 }.first == 0)
        token.cancel()
    }
}
