import Foundation
import LiteRecord
import LiteRecordTestSupport
import Testing

// Differential test of issue #30's class, "relations compare keys as `where` does": parents
// and children written by the `sqlite3` shell, as another tool would, with UUID keys in upper
// case, lower case or as 16 bytes, and integer keys stored as REAL (5.0). Every relation API
// (including all/one, nested, through a junction, where(Parent.self), where(any:)) is compared
// with the truth computed in Swift from plain fetchAll's of each table.

private struct RKOwner: Model, Equatable {
    var id: UUID
    var name: String
    static let schema = Schema<RKOwner>(table: "rk_owners")
}

private struct RKPet: Model, Equatable {
    var id: Int64?
    var ownerId: UUID?
    var name: String
    static let schema = Schema<RKPet>(table: "rk_pets").foreignKey(\.ownerId, references: RKOwner.self)
}

private struct RKTag: Model, Equatable {
    var id: UUID
    var label: String
    static let schema = Schema<RKTag>(table: "rk_tags")
}

private struct RKPetTag: Model, Equatable {
    var id: Int64?
    var petId: Int64
    var tagId: UUID
    static let schema = Schema<RKPetTag>(table: "rk_pet_tags")
        .foreignKey(\.petId, references: RKPet.self)
        .foreignKey(\.tagId, references: RKTag.self)
}

private struct RKBox: Model, Equatable {
    var id: Int64?
    var label: String
    static let schema = Schema<RKBox>(table: "rk_boxes")
}

private struct RKItem: Model, Equatable {
    var id: Int64?
    var boxId: Int64?
    var name: String
    static let schema = Schema<RKItem>(table: "rk_items").foreignKey(\.boxId, references: RKBox.self)
}

/// A note of a pet, searchable: `matching` inside `including` is refused, not ignored.
private struct RKNote: Model, Equatable {
    var id: Int64?
    var ownerId: UUID
    var body: String
    static let schema = Schema<RKNote>(table: "rk_notes")
        .foreignKey(\.ownerId, references: RKOwner.self)
        .fullTextSearch(on: [\.body])
}

/// A UUID as SQL text in a random spelling another tool uses: upper case, lower case, 16 bytes.
private func spelled(_ uuid: UUID, _ generator: inout SeededGenerator) -> String {
    switch Int.random(in: 0..<3, using: &generator) {
    case 0: "'\(uuid.uuidString)'"
    case 1: "'\(uuid.uuidString.lowercased())'"
    default: "X'\(uuid.uuidString.replacingOccurrences(of: "-", with: ""))'"
    }
}

@Suite struct RelationKeySpellingTests {
    /// Builds a file written by the shell; keys in random spellings, some dangling or NULL.
    private func makeFile(seed: UInt64, in directory: TemporaryDirectory) throws -> String {
        var generator = SeededGenerator(seed: seed)
        let path = directory.file("spellings-\(seed).sqlite")
        var script = """
            CREATE TABLE rk_owners (id PRIMARY KEY, name TEXT NOT NULL);
            CREATE TABLE rk_pets (id INTEGER PRIMARY KEY, ownerId, name TEXT NOT NULL);
            CREATE INDEX rk_pets_owner ON rk_pets (ownerId);
            CREATE TABLE rk_tags (id PRIMARY KEY, label TEXT NOT NULL);
            CREATE TABLE rk_pet_tags (id INTEGER PRIMARY KEY, petId INTEGER NOT NULL, tagId NOT NULL);
            CREATE TABLE rk_boxes (id INTEGER PRIMARY KEY, label TEXT NOT NULL);
            CREATE TABLE rk_items (id INTEGER PRIMARY KEY, boxId, name TEXT NOT NULL);

            """
        let owners = (0..<12).map { _ in UUID() }
        let tags = (0..<6).map { _ in UUID() }
        for (index, owner) in owners.enumerated() {
            script += "INSERT INTO rk_owners VALUES (\(spelled(owner, &generator)), 'owner\(index % 4)');\n"
        }
        for (index, tag) in tags.enumerated() {
            script += "INSERT INTO rk_tags VALUES (\(spelled(tag, &generator)), 'tag\(index)');\n"
        }
        let petCount = 40
        for index in 0..<petCount {
            let choice = Int.random(in: 0..<(owners.count + 2), using: &generator)
            let owner =
                choice < owners.count
                ? spelled(owners[choice], &generator)
                : (choice == owners.count ? "NULL" : spelled(UUID(), &generator))
            script += "INSERT INTO rk_pets VALUES (\(index + 1), \(owner), 'pet\(index % 5)');\n"
        }
        for _ in 0..<60 {
            let pet = Int.random(in: 1...petCount, using: &generator)
            let tag = tags.randomElement(using: &generator)!
            script += "INSERT INTO rk_pet_tags (petId, tagId) VALUES (\(pet), \(spelled(tag, &generator)));\n"
        }
        for index in 1...8 { script += "INSERT INTO rk_boxes VALUES (\(index), 'box\(index % 3)');\n" }
        for index in 0..<40 {
            let box = Int.random(in: 1...10, using: &generator)
            let key = Bool.random(using: &generator) ? "\(box)" : "\(box).0"
            script += "INSERT INTO rk_items (boxId, name) VALUES (\(key), 'item\(index % 4)');\n"
        }
        try SQLiteShell.write(path, script)
        // The shell stored what it was told: the keys really are in several forms.
        let forms = try SQLiteShell.output(path, "SELECT DISTINCT typeof(ownerId) FROM rk_pets ORDER BY 1;")
        #expect(forms.contains("blob") && forms.contains("text"))
        let boxForms = try SQLiteShell.output(path, "SELECT DISTINCT typeof(boxId) FROM rk_items ORDER BY 1;")
        #expect(boxForms.contains("real") && boxForms.contains("integer"))
        return path
    }

    @Test(arguments: [1, 2, 3] as [UInt64])
    func everyRelationAPIAgreesWithSwift(seed: UInt64) throws {
        try withTemporaryDirectory { directory in
            let path = try makeFile(seed: seed, in: directory)
            let db = try Database(.file(path))
            let owners = try db.fetchAll(RKOwner.self)
            let pets = try db.fetchAll(RKPet.self)
            let tags = try db.fetchAll(RKTag.self)
            let petTags = try db.fetchAll(RKPetTag.self)
            let boxes = try db.fetchAll(RKBox.self)
            let items = try db.fetchAll(RKItem.self)
            try #require(owners.count == 12 && pets.count == 40 && items.count == 40)

            func petIDs(of owner: RKOwner) -> [Int64] {
                pets.filter { $0.ownerId == owner.id }.compactMap(\.id).sorted()
            }
            func tagIDs(of pet: RKPet) -> [UUID] {
                petTags.filter { $0.petId == pet.id }.map(\.tagId).filter { id in
                    tags.contains { $0.id == id }
                }
                .sorted { $0.uuidString < $1.uuidString }
            }

            // including(all:): every child under its parent, whatever the spellings.
            let loaded = try db.query(RKOwner.self).including(all: RKPet.self).fetchAll()
            #expect(loaded.count == owners.count)
            for (owner, children) in loaded {
                #expect(children.compactMap(\.id).sorted() == petIDs(of: owner), "owner \(owner.id)")
            }
            // including(one:): the parent of each child.
            for (pet, owner) in try db.query(RKPet.self).including(one: RKOwner.self).fetchAll() {
                let expected = owners.first { $0.id == pet.ownerId }?.id
                #expect(owner?.id == expected, "pet \(pet.id ?? -1)")
            }
            // where(Parent.self) and where(any:), one name at a time.
            for name in ["owner0", "owner1", "owner2", "owner3"] {
                let expected = pets.filter { pet in
                    owners.contains { $0.id == pet.ownerId && $0.name == name }
                }
                let found = try db.query(RKPet.self).where(RKOwner.self) { $0.name == name }.fetchAll()
                #expect(found.compactMap(\.id).sorted() == expected.compactMap(\.id).sorted(), "\(name)")
            }
            for name in ["pet0", "pet1", "pet2", "pet3", "pet4"] {
                let expected = owners.filter { owner in
                    pets.contains { $0.ownerId == owner.id && $0.name == name }
                }
                let found = try db.query(RKOwner.self).where(any: RKPet.self) { $0.name == name }.fetchAll()
                #expect(Set(found.map(\.id)) == Set(expected.map(\.id)), "\(name)")
                let counted = try db.query(RKOwner.self).where(any: RKPet.self) { $0.name == name }.count()
                #expect(counted == expected.count)
            }
            // through: a junction whose keys to the tags are spelled in any form.
            for (pet, related) in try db.query(RKPet.self).including(all: RKTag.self, through: RKPetTag.self)
                .fetchAll()
            {
                let relatedIDs = related.map(\.id).sorted { $0.uuidString < $1.uuidString }
                #expect(relatedIDs == tagIDs(of: pet))
            }
            // Nested: owners, their pets, the pets' tags; one level narrowed by a condition.
            let tree = try db.query(RKOwner.self)
                .including(all: RKPet.self) {
                    $0.where { $0.name != "pet0" }.including(all: RKTag.self, through: RKPetTag.self)
                }
                .fetchAll()
            for (owner, children) in tree {
                let expected = pets.filter { $0.ownerId == owner.id && $0.name != "pet0" }
                let childIDs = children.map(\.0.id).compactMap { $0 }.sorted()
                #expect(childIDs == expected.compactMap(\.id).sorted())
                for (pet, related) in children {
                    let relatedIDs = related.map(\.id).sorted { $0.uuidString < $1.uuidString }
                    #expect(relatedIDs == tagIDs(of: pet))
                }
            }

            // Integer keys stored as REAL (5.0): grouped and matched as 5.
            for (box, children) in try db.query(RKBox.self).including(all: RKItem.self).fetchAll() {
                let expected = items.filter { $0.boxId == box.id }.compactMap(\.id).sorted()
                #expect(children.compactMap(\.id).sorted() == expected, "box \(box.id ?? -1)")
            }
            for (item, box) in try db.query(RKItem.self).including(one: RKBox.self).fetchAll() {
                let expected = boxes.first { $0.id == item.boxId }?.id
                #expect(box?.id == expected)
            }
            for name in ["item0", "item3"] {
                let expected = boxes.filter { box in items.contains { $0.boxId == box.id && $0.name == name }
                }
                let found = try db.query(RKBox.self).where(any: RKItem.self) { $0.name == name }.fetchAll()
                #expect(found.map(\.id) == expected.map(\.id))
            }
            let inBox0 = try db.query(RKItem.self).where(RKBox.self) { $0.label == "box0" }.fetchAll()
            let expectedInBox0 = items.filter { item in
                boxes.contains { $0.id == item.boxId && $0.label == "box0" }
            }
            #expect(inBox0.compactMap(\.id).sorted() == expectedInBox0.compactMap(\.id).sorted())
        }
    }

    /// The statement shapes that compare UUID keys in every spelling still look each key up in
    /// the foreign key's index: the key list of an eager load, and `where(any:)`'s `EXISTS`.
    @Test func uuidKeyComparisonsUseTheIndex() throws {
        try withTemporaryDirectory { directory in
            let path = try makeFile(seed: 9, in: directory)
            let db = try Database(.file(path))
            let list = try db.fetchAll(
                Row.self,
                sql: """
                    EXPLAIN QUERY PLAN SELECT * FROM rk_pets WHERE ownerId IN (SELECT value FROM json_each(\("[]"))
                    UNION ALL SELECT lower(value) FROM json_each(\("[]"))
                    UNION ALL SELECT literecord_uuid(value) FROM json_each(\("[]")))
                    """)
            #expect("\(list)".contains("rk_pets_owner"), "\(list)")
            let exists = try db.fetchAll(
                Row.self,
                sql: """
                    EXPLAIN QUERY PLAN SELECT * FROM rk_owners WHERE EXISTS (SELECT 1 FROM rk_pets AS r WHERE
                    r.ownerId IN (literecord_uuid_text(rk_owners.id), lower(literecord_uuid_text(rk_owners.id)),
                    literecord_uuid(rk_owners.id)) AND r.name = 'pet1')
                    """)
            #expect("\(exists)".contains("rk_pets_owner"), "\(exists)")
        }
    }

    /// Integer keys stored as REAL (5.0) by another tool, alone (no UUID in the file): the
    /// item under its box, the box of the item, both filters.
    @Test func integerKeysStoredAsRealAreMatched() throws {
        try withTemporaryDirectory { directory in
            let path = directory.file("real-keys.sqlite")
            try SQLiteShell.write(
                path,
                """
                CREATE TABLE rk_boxes (id INTEGER PRIMARY KEY, label TEXT NOT NULL);
                CREATE TABLE rk_items (id INTEGER PRIMARY KEY, boxId, name TEXT NOT NULL);
                INSERT INTO rk_boxes VALUES (5, 'five');
                INSERT INTO rk_items VALUES (1, 5, 'integer'), (2, 5.0, 'real');
                """)
            let db = try Database(.file(path))
            let inFive = try db.query(RKItem.self).where { $0.boxId == 5 }.count()
            #expect(inFive == 2)
            let loaded = try db.query(RKBox.self).including(all: RKItem.self).fetchAll()
            let loadedNames = loaded.map { $0.1.map(\.name).sorted() }
            #expect(loadedNames == [["integer", "real"]])
            let one = try db.query(RKItem.self).order { $0.id }.including(one: RKBox.self).fetchAll()
            let labels = one.map { $0.1?.label }
            #expect(labels == ["five", "five"])
            let whose = try db.query(RKItem.self).where(RKBox.self) { $0.label == "five" }.count()
            #expect(whose == 2)
            let withAny = try db.query(RKBox.self).where(any: RKItem.self) { $0.name == "real" }.count()
            #expect(withAny == 1)
        }
    }

    /// The issue's first example: a parent written in lower case, a child inserted by
    /// LiteRecord, every relation API sees both children.
    @Test func aChildInsertedByLiteRecordJoinsTheOtherToolsChildren() throws {
        try withTemporaryDirectory { directory in
            let path = directory.file("owners.sqlite")
            let owner = UUID()
            let lower = owner.uuidString.lowercased()
            try SQLiteShell.write(
                path,
                """
                CREATE TABLE rk_owners (id PRIMARY KEY, name TEXT NOT NULL);
                CREATE TABLE rk_pets (id INTEGER PRIMARY KEY, ownerId, name TEXT NOT NULL);
                INSERT INTO rk_owners VALUES ('\(lower)', 'Ann');
                INSERT INTO rk_pets VALUES (1, '\(lower)', 'old');
                """)
            let db = try Database(.file(path))
            var pet = RKPet(id: nil, ownerId: owner, name: "new")
            try db.insert(&pet)
            let byValue = try db.query(RKPet.self).where { $0.ownerId == owner }.count()
            #expect(byValue == 2)
            let loaded = try db.query(RKOwner.self).including(all: RKPet.self).fetchAll()
            let loadedNames = loaded.map { $0.1.map(\.name).sorted() }
            #expect(loadedNames == [["new", "old"]])
            let one = try db.query(RKPet.self).including(one: RKOwner.self).fetchAll()
            let ownerNames = one.map { $0.1?.name }
            #expect(ownerNames == ["Ann", "Ann"])
            let whose = try db.query(RKPet.self).where(RKOwner.self) { $0.name == "Ann" }.count()
            #expect(whose == 2)
            let withAny = try db.query(RKOwner.self).where(any: RKPet.self) { $0.name == "new" }.count()
            #expect(withAny == 1)
        }
    }

    /// A declared `REFERENCES` to a parent stored in lower case or as 16 bytes: the child
    /// LiteRecord inserts takes the parent's spelling, so the foreign key holds.
    @Test(arguments: ["lower", "blob"])
    func anInsertedChildSatisfiesTheForeignKeyOfAParentInAnotherSpelling(form: String) throws {
        try withTemporaryDirectory { directory in
            let path = directory.file("fk-\(form).sqlite")
            let owner = UUID()
            let stored =
                form == "lower"
                ? "'\(owner.uuidString.lowercased())'"
                : "X'\(owner.uuidString.replacingOccurrences(of: "-", with: ""))'"
            try SQLiteShell.write(
                path,
                """
                CREATE TABLE rk_owners (id PRIMARY KEY, name TEXT NOT NULL);
                CREATE TABLE rk_pets (id INTEGER PRIMARY KEY, ownerId REFERENCES rk_owners (id), name TEXT NOT NULL);
                INSERT INTO rk_owners VALUES (\(stored), 'Ann');
                """)
            let db = try Database(.file(path))
            #expect(try db.find(RKOwner.self, id: owner) != nil)
            var pet = RKPet(id: nil, ownerId: owner, name: "new")
            try db.insert(&pet)
            // Stored as the parent spells it: the foreign key holds, checked by SQLite itself.
            let check = try db.fetchAll(Row.self, sql: "PRAGMA foreign_key_check")
            #expect(check.isEmpty)
            let spelling = try db.fetchOne(
                Row.self,
                sql:
                    "SELECT typeof(ownerId) AS kind, ownerId = (SELECT id FROM rk_owners) AS same FROM rk_pets"
            )
            #expect(try spelling?.value(at: 1) == .integer(1))
            #expect(
                try db.query(RKOwner.self).including(all: RKPet.self).fetchAll().first?.1.map(\.name) == [
                    "new"
                ])
            #expect(try db.fetchAll(RKPet.self).first?.ownerId == owner)

            // An update moving a pet to that parent keeps the foreign key too.
            var other = RKPet(id: nil, ownerId: nil, name: "stray")
            try db.insert(&other)
            other.ownerId = owner
            try db.update(other)
            #expect(try db.fetchAll(Row.self, sql: "PRAGMA foreign_key_check").isEmpty)
            let annsPets = try db.query(RKPet.self).where(RKOwner.self) { $0.name == "Ann" }.count()
            #expect(annsPets == 2)
        }
    }

    /// A child whose parent does not exist in any spelling: refused, and the message says so.
    @Test func aChildWithoutParentIsRefusedWithTheReason() throws {
        try withTemporaryDirectory { directory in
            let path = directory.file("fk-missing.sqlite")
            try SQLiteShell.write(
                path,
                """
                CREATE TABLE rk_owners (id PRIMARY KEY, name TEXT NOT NULL);
                CREATE TABLE rk_pets (id INTEGER PRIMARY KEY, ownerId REFERENCES rk_owners (id), name TEXT NOT NULL);
                INSERT INTO rk_owners VALUES ('\(UUID().uuidString.lowercased())', 'Ann');
                """)
            let db = try Database(.file(path))
            let missing = UUID()
            var pet = RKPet(id: nil, ownerId: missing, name: "orphan")
            let error = try #require(throws: DatabaseError.self) { try db.insert(&pet) }
            #expect(error.resultCode == .constraintForeignKey)
            #expect(error.message.contains("no referenced row for ownerId = \(missing.uuidString)"))
            #expect(try db.fetchAll(RKPet.self).isEmpty)
        }
    }

    /// `matching` inside an `including` closure is refused with a clear error, at any level,
    /// rather than ignored.
    @Test func matchingInsideIncludingIsRefused() throws {
        let db = try Database(.inMemory)
        let owner = RKOwner(id: UUID(), name: "Ann")
        try db.insert(owner)
        var note = RKNote(id: nil, ownerId: owner.id, body: "hello world")
        try db.insert(&note)
        var other = RKNote(id: nil, ownerId: owner.id, body: "goodbye")
        try db.insert(&other)
        let error = try #require(throws: SchemaError.self) {
            try db.query(RKOwner.self).including(all: RKNote.self) { $0.matching("hello") }.fetchAll()
        }
        #expect(error.message.contains("matching(_:) of RKNote is not supported there"))
        let nested = try #require(throws: SchemaError.self) {
            try db.query(RKPet.self).including(one: RKOwner.self) {
                $0.including(all: RKNote.self) { $0.matching("hello") }
            }.fetchAll()
        }
        #expect(nested.message.contains("matching(_:) of RKNote is not supported there"))
        // Without the search, both notes are there.
        #expect(try db.query(RKOwner.self).including(all: RKNote.self).fetchAll().first?.1.count == 2)
    }
}
