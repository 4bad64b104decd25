import Foundation
import LiteRecord

/// DESIGN.md's eager-loading workload: N parents with 10 children each, every parent loaded
/// with its children.
///
/// Both sides load `[(Shelf, [Volume])]` from one in-memory database each, built in setup with
/// LiteRecord's DDL (the children's foreign key and its index). LiteRecord:
/// `query(Shelf.self).including(all: Volume.self).fetchAll()`. C: the statements LiteRecord
/// runs for it, checked in setup through the trace hook: `BEGIN DEFERRED TRANSACTION`, the
/// parents' `SELECT *`, the children's `SELECT * ... WHERE "shelfID" IN (SELECT value FROM
/// json_each(?))` bound to the JSON array of the parents' keys, `COMMIT TRANSACTION`; each row
/// read column by column into the same structs, children grouped by key into their parent's
/// array through a dictionary. One measurement runs `loads` such loads; both sides keep a digest.
enum EagerLoading {
    /// Children per parent.
    static let childrenPerParent = 10
    /// Loads per measurement.
    static let loads = 20

    struct Shelf: Model, Equatable {
        var id: Int64?
        var name: String
        static let schema = Schema<Shelf>(table: "shelves")
    }

    struct Volume: Model, Equatable {
        var id: Int64?
        var shelfID: Int64
        var title: String
        var year: Int
        static let schema = Schema<Volume>(table: "volumes")
            .foreignKey(\.shelfID, references: Shelf.self, onDelete: .cascade)
    }

    static let begin = "BEGIN DEFERRED TRANSACTION"
    static let parents = #"SELECT * FROM "shelves""#
    static let children = #"SELECT * FROM "volumes" WHERE "shelfID" IN (SELECT value FROM json_each(?))"#
    static let commit = "COMMIT TRANSACTION"

    /// What both sides compute from a load.
    struct Digest: Equatable {
        var parents = 0
        var children = 0
        var keySum: Int64 = 0
        var yearSum = 0

        mutating func add(_ shelves: [(Shelf, [Volume])]) {
            parents += shelves.count
            for (shelf, volumes) in shelves {
                keySum &+= shelf.id ?? 0
                children += volumes.count
                for volume in volumes where volume.shelfID == shelf.id { yearSum += volume.year }
            }
        }
    }

    final class Fixture {
        let c: CDatabase
        let literecord: Database
        let begin: CStatement
        let parents: CStatement
        let children: CStatement
        let commit: CStatement
        var expected = Digest()

        init(c: CDatabase, literecord: Database) throws {
            self.c = c
            self.literecord = literecord
            self.begin = try c.prepare(EagerLoading.begin)
            self.parents = try c.prepare(EagerLoading.parents)
            self.children = try c.prepare(EagerLoading.children)
            self.commit = try c.prepare(EagerLoading.commit)
        }
    }

    static let workload = Workload(
        slug: "eager-loading",
        description: "query(Shelf.self).including(all: Volume.self).fetchAll(), N parents × 10 children, "
            + "\(loads) loads",
        unit: "load",
        defaultSize: 1_000,
        quickSize: 1_000,
        operations: { _ in loads },
        setup: makeFixture,
        c: runC,
        literecord: runLiteRecord)

    // MARK: - Setup

    @Sendable
    static func makeFixture(_ context: SetupContext) throws -> Fixture {
        let literecord = try Database(.inMemory)
        try literecord.migrate(Shelf.self)
        try literecord.migrate(Volume.self)
        var random = SeededGenerator(seed: 16)
        try literecord.transaction { tx in
            for index in 0..<context.size {
                var shelf = Shelf(id: nil, name: "Shelf \(index)")
                try tx.insert(&shelf)
                for child in 0..<childrenPerParent {
                    var volume = Volume(
                        id: nil, shelfID: shelf.id ?? 0, title: "Volume \(index)-\(child)",
                        year: Int.random(in: 1450...2025, using: &random))
                    try tx.insert(&volume)
                }
            }
        }
        // The C side's database: LiteRecord's DDL, then the same rows copied as they are stored.
        let ddl = try literecord.fetchAll(
            String.self, sql: "SELECT sql FROM sqlite_master WHERE sql IS NOT NULL ORDER BY rowid")
        let c = try CDatabase(path: ":memory:")
        for statement in ddl { try c.execute(statement) }
        try c.execute("BEGIN")
        let insertShelf = try c.prepare(#"INSERT INTO "shelves" ("id", "name") VALUES (?, ?)"#)
        for shelf in try literecord.query(Shelf.self).fetchAll() {
            try insertShelf.bind(shelf.id ?? 0, at: 1)
            try insertShelf.bind(shelf.name, at: 2)
            try insertShelf.run()
            try insertShelf.reset()
        }
        let insertVolume = try c.prepare(
            #"INSERT INTO "volumes" ("id", "shelfID", "title", "year") VALUES (?, ?, ?, ?)"#)
        for volume in try literecord.query(Volume.self).fetchAll() {
            try insertVolume.bind(volume.id ?? 0, at: 1)
            try insertVolume.bind(volume.shelfID, at: 2)
            try insertVolume.bind(volume.title, at: 3)
            try insertVolume.bind(Int64(volume.year), at: 4)
            try insertVolume.run()
            try insertVolume.reset()
        }
        try c.execute("COMMIT")

        let fixture = try Fixture(c: c, literecord: literecord)
        // LiteRecord must run the C side's SQL, and both must load the same shelves.
        let traced = try ItemModel.traceSQL(literecord) { _ = try loadLiteRecord(literecord) }
        try ItemModel.verifyTrace(
            traced.map { $0.trimmingCharacters(in: .whitespaces) },
            expected: [begin, parents, children, commit], operation: "including(all:)")
        let expected = try loadLiteRecord(literecord)
        let loaded = try loadC(fixture)
        guard expected.count == context.size, expected.allSatisfy({ $0.1.count == childrenPerParent }),
            expected.map(\.0) == loaded.map(\.0), expected.map(\.1) == loaded.map(\.1)
        else {
            throw FixtureError(description: "the C side's load differs from LiteRecord's including(all:)")
        }
        for _ in 0..<loads { fixture.expected.add(expected) }
        return fixture
    }

    // MARK: - C

    @Sendable
    private static func runC(_ fixture: Fixture, _ context: RoundContext) throws -> Duration {
        var digest = Digest()
        let elapsed = try Stopwatch.measure {
            for _ in 0..<loads { digest.add(try loadC(fixture)) }
        }
        try verify(digest, fixture: fixture, side: .c)
        return elapsed
    }

    /// One load by hand: parents, their keys as a JSON array, children grouped by key.
    @inline(never)
    static func loadC(_ fixture: Fixture) throws -> [(Shelf, [Volume])] {
        try fixture.begin.run()
        try fixture.begin.reset()
        var shelves: [(Shelf, [Volume])] = []
        var positions: [Int64: Int] = [:]
        var keys = "["
        let parents = fixture.parents
        while try parents.step() {
            let id = parents.int64(at: 0)
            shelves.append((Shelf(id: id, name: parents.string(at: 1)), []))
            if positions.updateValue(shelves.count - 1, forKey: id) == nil {
                if keys.utf8.count > 1 { keys += "," }
                keys += String(id)
            }
        }
        try parents.reset()
        keys += "]"
        if !positions.isEmpty {
            let children = fixture.children
            try children.bind(keys, at: 1)
            while try children.step() {
                let volume = Volume(
                    id: children.int64(at: 0), shelfID: children.int64(at: 1), title: children.string(at: 2),
                    year: Int(children.int64(at: 3)))
                if let position = positions[volume.shelfID] { shelves[position].1.append(volume) }
            }
            try children.reset()
        }
        try fixture.commit.run()
        try fixture.commit.reset()
        return shelves
    }

    // MARK: - LiteRecord

    @Sendable
    private static func runLiteRecord(_ fixture: Fixture, _ context: RoundContext) throws -> Duration {
        var digest = Digest()
        let elapsed = try Stopwatch.measure {
            for _ in 0..<loads { digest.add(try loadLiteRecord(fixture.literecord)) }
        }
        try verify(digest, fixture: fixture, side: .literecord)
        return elapsed
    }

    @inline(never)
    static func loadLiteRecord(_ database: Database) throws -> [(Shelf, [Volume])] {
        try database.query(Shelf.self).including(all: Volume.self).fetchAll()
    }

    private static func verify(_ digest: Digest, fixture: Fixture, side: Side) throws {
        guard digest != fixture.expected else { return }
        throw FixtureError(
            description: "\(side.rawValue) side loaded \(digest.parents) parents and \(digest.children) "
                + "children, expected \(fixture.expected.parents) and \(fixture.expected.children)")
    }
}

/// The nested eager-loading workload: N parents × 10 children × 3 grandchildren, every parent
/// loaded with its children, each child with its grandchildren.
///
/// LiteRecord: `query(Shelf.self).including(all: Volume.self) { $0.including(all: Note.self) }
/// .fetchAll()`, `[(Shelf, [(Volume, [Note])])]`. C: the statements LiteRecord runs for it,
/// checked in setup through the trace hook: `BEGIN`, the parents' `SELECT *`, the children's
/// `SELECT * ... IN (SELECT value FROM json_each(?))` bound to the parents' keys, the
/// grandchildren's bound to the children's keys, `COMMIT`; rows read column by column into the
/// same structs and grouped by key through dictionaries into the same nested arrays.
enum NestedEagerLoading {
    /// Grandchildren per child.
    static let notesPerVolume = 3
    /// Loads per measurement.
    static let loads = 10

    typealias Shelf = EagerLoading.Shelf
    typealias Volume = EagerLoading.Volume

    struct Note: Model, Equatable {
        var id: Int64?
        var volumeID: Int64
        var text: String
        var stars: Int
        static let schema = Schema<Note>(table: "notes")
            .foreignKey(\.volumeID, references: Volume.self, onDelete: .cascade)
    }

    typealias Tree = [(Shelf, [(Volume, [Note])])]

    static let notes = #"SELECT * FROM "notes" WHERE "volumeID" IN (SELECT value FROM json_each(?))"#

    /// What both sides compute from a load.
    struct Digest: Equatable {
        var parents = 0
        var children = 0
        var grandchildren = 0
        var starSum = 0

        mutating func add(_ tree: Tree) {
            parents += tree.count
            for (shelf, volumes) in tree {
                for (volume, notes) in volumes where volume.shelfID == shelf.id {
                    children += 1
                    for note in notes where note.volumeID == volume.id {
                        grandchildren += 1
                        starSum += note.stars
                    }
                }
            }
        }
    }

    final class Fixture {
        let literecord: Database
        let begin: CStatement
        let parents: CStatement
        let children: CStatement
        let grandchildren: CStatement
        let commit: CStatement
        var expected = Digest()

        init(c: CDatabase, literecord: Database) throws {
            self.literecord = literecord
            self.begin = try c.prepare(EagerLoading.begin)
            self.parents = try c.prepare(EagerLoading.parents)
            self.children = try c.prepare(EagerLoading.children)
            self.grandchildren = try c.prepare(NestedEagerLoading.notes)
            self.commit = try c.prepare(EagerLoading.commit)
        }
    }

    static let workload = Workload(
        slug: "eager-loading-nested",
        description:
            "query(Shelf.self).including(all: Volume.self) { $0.including(all: Note.self) }.fetchAll(), "
            + "N parents × 10 children × 3 grandchildren, \(loads) loads",
        unit: "load",
        defaultSize: 1_000,
        quickSize: 1_000,
        operations: { _ in loads },
        setup: makeFixture,
        c: runC,
        literecord: runLiteRecord)

    static let group = WorkloadGroup(
        slug: "relations",
        description: "Nested eager loading (three levels, one statement per level) vs the same C statements",
        workloads: [workload],
        notes: { results in results.map(DesignTargets.costs) })

    // MARK: - Setup

    @Sendable
    static func makeFixture(_ context: SetupContext) throws -> Fixture {
        let literecord = try Database(.inMemory)
        try literecord.migrate(Shelf.self)
        try literecord.migrate(Volume.self)
        try literecord.migrate(Note.self)
        var random = SeededGenerator(seed: 17)
        try literecord.transaction { tx in
            for index in 0..<context.size {
                var shelf = Shelf(id: nil, name: "Shelf \(index)")
                try tx.insert(&shelf)
                for child in 0..<EagerLoading.childrenPerParent {
                    var volume = Volume(
                        id: nil, shelfID: shelf.id ?? 0, title: "Volume \(index)-\(child)",
                        year: Int.random(in: 1450...2025, using: &random))
                    try tx.insert(&volume)
                    for grandchild in 0..<notesPerVolume {
                        var note = Note(
                            id: nil, volumeID: volume.id ?? 0, text: "Note \(grandchild)",
                            stars: Int.random(in: 1...5, using: &random))
                        try tx.insert(&note)
                    }
                }
            }
        }
        // The C side's database: LiteRecord's DDL, then the same rows copied as they are stored.
        let ddl = try literecord.fetchAll(
            String.self, sql: "SELECT sql FROM sqlite_master WHERE sql IS NOT NULL ORDER BY rowid")
        let c = try CDatabase(path: ":memory:")
        for statement in ddl { try c.execute(statement) }
        try c.execute("BEGIN")
        let insertShelf = try c.prepare(#"INSERT INTO "shelves" ("id", "name") VALUES (?, ?)"#)
        for shelf in try literecord.query(Shelf.self).fetchAll() {
            try insertShelf.bind(shelf.id ?? 0, at: 1)
            try insertShelf.bind(shelf.name, at: 2)
            try insertShelf.run()
            try insertShelf.reset()
        }
        let insertVolume = try c.prepare(
            #"INSERT INTO "volumes" ("id", "shelfID", "title", "year") VALUES (?, ?, ?, ?)"#)
        for volume in try literecord.query(Volume.self).fetchAll() {
            try insertVolume.bind(volume.id ?? 0, at: 1)
            try insertVolume.bind(volume.shelfID, at: 2)
            try insertVolume.bind(volume.title, at: 3)
            try insertVolume.bind(Int64(volume.year), at: 4)
            try insertVolume.run()
            try insertVolume.reset()
        }
        let insertNote = try c.prepare(
            #"INSERT INTO "notes" ("id", "volumeID", "text", "stars") VALUES (?, ?, ?, ?)"#)
        for note in try literecord.query(Note.self).fetchAll() {
            try insertNote.bind(note.id ?? 0, at: 1)
            try insertNote.bind(note.volumeID, at: 2)
            try insertNote.bind(note.text, at: 3)
            try insertNote.bind(Int64(note.stars), at: 4)
            try insertNote.run()
            try insertNote.reset()
        }
        try c.execute("COMMIT")

        let fixture = try Fixture(c: c, literecord: literecord)
        // LiteRecord must run the C side's SQL, and both must load the same tree.
        let traced = try ItemModel.traceSQL(literecord) { _ = try loadLiteRecord(literecord) }
        try ItemModel.verifyTrace(
            traced.map { $0.trimmingCharacters(in: .whitespaces) },
            expected: [
                EagerLoading.begin, EagerLoading.parents, EagerLoading.children, notes, EagerLoading.commit,
            ],
            operation: "including(all:) { $0.including(all:) }")
        let expected = try loadLiteRecord(literecord)
        let loaded = try loadC(fixture)
        let complete = expected.allSatisfy { shelf in
            shelf.1.count == EagerLoading.childrenPerParent
                && shelf.1.allSatisfy { $0.1.count == notesPerVolume }
        }
        let sameVolumes = expected.map { $0.1.map(\.0) } == loaded.map { $0.1.map(\.0) }
        let sameNotes = expected.map { $0.1.map(\.1) } == loaded.map { $0.1.map(\.1) }
        guard expected.count == context.size, complete, expected.map(\.0) == loaded.map(\.0), sameVolumes,
            sameNotes
        else {
            throw FixtureError(description: "the C side's load differs from LiteRecord's nested including")
        }
        for _ in 0..<loads { fixture.expected.add(expected) }
        return fixture
    }

    // MARK: - C

    @Sendable
    private static func runC(_ fixture: Fixture, _ context: RoundContext) throws -> Duration {
        var digest = Digest()
        let elapsed = try Stopwatch.measure {
            for _ in 0..<loads { digest.add(try loadC(fixture)) }
        }
        try verify(digest, fixture: fixture, side: .c)
        return elapsed
    }

    /// One load by hand: parents, children bound to the parents' keys, grandchildren bound to
    /// the children's keys, each level grouped by key into the level above.
    @inline(never)
    static func loadC(_ fixture: Fixture) throws -> Tree {
        try fixture.begin.run()
        try fixture.begin.reset()
        var shelves: [Shelf] = []
        var shelfPositions: [Int64: Int] = [:]
        var shelfKeys = "["
        let parents = fixture.parents
        while try parents.step() {
            let id = parents.int64(at: 0)
            shelves.append(Shelf(id: id, name: parents.string(at: 1)))
            if shelfPositions.updateValue(shelves.count - 1, forKey: id) == nil {
                if shelfKeys.utf8.count > 1 { shelfKeys += "," }
                shelfKeys += String(id)
            }
        }
        try parents.reset()
        shelfKeys += "]"
        var volumes: [Volume] = []
        var volumeShelves: [Int] = []
        var volumePositions: [Int64: Int] = [:]
        var volumeKeys = "["
        if !shelfPositions.isEmpty {
            let children = fixture.children
            try children.bind(shelfKeys, at: 1)
            while try children.step() {
                let volume = Volume(
                    id: children.int64(at: 0), shelfID: children.int64(at: 1), title: children.string(at: 2),
                    year: Int(children.int64(at: 3)))
                guard let shelf = shelfPositions[volume.shelfID], let id = volume.id else { continue }
                volumes.append(volume)
                volumeShelves.append(shelf)
                if volumePositions.updateValue(volumes.count - 1, forKey: id) == nil {
                    if volumeKeys.utf8.count > 1 { volumeKeys += "," }
                    volumeKeys += String(id)
                }
            }
            try children.reset()
        }
        volumeKeys += "]"
        var notes = [[Note]](repeating: [], count: volumes.count)
        if !volumePositions.isEmpty {
            let grandchildren = fixture.grandchildren
            try grandchildren.bind(volumeKeys, at: 1)
            while try grandchildren.step() {
                let note = Note(
                    id: grandchildren.int64(at: 0), volumeID: grandchildren.int64(at: 1),
                    text: grandchildren.string(at: 2), stars: Int(grandchildren.int64(at: 3)))
                if let position = volumePositions[note.volumeID] { notes[position].append(note) }
            }
            try grandchildren.reset()
        }
        try fixture.commit.run()
        try fixture.commit.reset()
        var tree: Tree = shelves.map { ($0, []) }
        for index in volumes.indices { tree[volumeShelves[index]].1.append((volumes[index], notes[index])) }
        return tree
    }

    // MARK: - LiteRecord

    @Sendable
    private static func runLiteRecord(_ fixture: Fixture, _ context: RoundContext) throws -> Duration {
        var digest = Digest()
        let elapsed = try Stopwatch.measure {
            for _ in 0..<loads { digest.add(try loadLiteRecord(fixture.literecord)) }
        }
        try verify(digest, fixture: fixture, side: .literecord)
        return elapsed
    }

    @inline(never)
    static func loadLiteRecord(_ database: Database) throws -> Tree {
        try database.query(Shelf.self).including(all: Volume.self) { $0.including(all: Note.self) }.fetchAll()
    }

    private static func verify(_ digest: Digest, fixture: Fixture, side: Side) throws {
        guard digest != fixture.expected else { return }
        throw FixtureError(
            description:
                "\(side.rawValue) side loaded \(digest.parents) parents, \(digest.children) children "
                + "and \(digest.grandchildren) grandchildren, expected \(fixture.expected.parents), "
                + "\(fixture.expected.children) and \(fixture.expected.grandchildren)")
    }
}
