import Foundation
import LiteRecord
import Testing

// Issue #30's differential on both backends: UUID-keyed parents and children, every relation
// API (including all/one, through a junction, where(Parent.self), where(any:)) compared with
// the relation computed in Swift from plain fetchAll's. Some keys are written by raw SQL in
// other spellings, as another tool writes them: lower case text on every backend, and 16 bytes
// on SQLite (a PostgreSQL text column cannot hold bytes, and its foreign keys make a child
// spell its parent's key as the parent does).

struct RKPOwner: Model, Equatable {
    var id: UUID
    var name: String
    static let schema = Schema<RKPOwner>(table: "rkp_owners")
}

struct RKPPet: Model, Equatable {
    var id: Int64?
    var ownerId: UUID?
    var name: String
    static let schema = Schema<RKPPet>(table: "rkp_pets").foreignKey(\.ownerId, references: RKPOwner.self)
}

struct RKPTag: Model, Equatable {
    var id: UUID
    var label: String
    static let schema = Schema<RKPTag>(table: "rkp_tags")
}

struct RKPPetTag: Model, Equatable {
    var id: Int64?
    var petId: Int64
    var tagId: UUID
    static let schema = Schema<RKPPetTag>(table: "rkp_pet_tags")
        .foreignKey(\.petId, references: RKPPet.self)
        .foreignKey(\.tagId, references: RKPTag.self)
}

enum RelationKeyParityChecks {
    /// Random owners, pets and tags; `foreignSpellings` writes some keys in another spelling
    /// with raw SQL.
    static func differential(_ db: some ModelContext, _ backend: ParityBackend, foreignSpellings: Bool) throws
    {
        var random = SplitMix64(state: 30)
        let owners = (0..<10).map { RKPOwner(id: UUID(), name: "owner\($0 % 3)") }
        let tags = (0..<5).map { RKPTag(id: UUID(), label: "tag\($0)") }
        func spelled(_ uuid: UUID) -> DatabaseValue {
            guard foreignSpellings else { return .text(uuid.uuidString) }
            // PostgreSQL's foreign keys compare text as is: a key is spelled alike in the parent
            // and in its children there, half of them in lower case.
            guard backend.isSQLite else {
                return .text(uuid.uuid.0 % 2 == 0 ? uuid.uuidString.lowercased() : uuid.uuidString)
            }
            switch Int.random(in: 0..<3, using: &random) {
            case 0: return .text(uuid.uuidString)
            case 1: return .text(uuid.uuidString.lowercased())
            default: return .blob(withUnsafeBytes(of: uuid.uuid) { Data($0) })
            }
        }
        // The tables, made by LiteRecord, then emptied; the rows written with raw SQL.
        var firstOwner = owners[0]
        try db.insert(&firstOwner)
        var firstPet = RKPPet(id: nil, ownerId: owners[0].id, name: "first")
        try db.insert(&firstPet)
        var firstTag = tags[0]
        try db.insert(&firstTag)
        var firstLink = RKPPetTag(id: nil, petId: try #require(firstPet.id), tagId: tags[0].id)
        try db.insert(&firstLink)
        try db.execute(sql: "DELETE FROM rkp_pet_tags")
        try db.execute(sql: "DELETE FROM rkp_pets")
        try db.execute(sql: "DELETE FROM rkp_tags")
        try db.execute(sql: "DELETE FROM rkp_owners")
        let checksForeignKeys = foreignSpellings && backend.isSQLite
        if checksForeignKeys { try db.execute(sql: "PRAGMA foreign_keys = OFF") }
        for owner in owners {
            try db.execute(
                sql:
                    "INSERT INTO rkp_owners (id, name) VALUES (\(spelled(owner.id)), \(owner.name))")
        }
        for tag in tags {
            try db.execute(sql: "INSERT INTO rkp_tags (id, label) VALUES (\(spelled(tag.id)), \(tag.label))")
        }
        for index in 0..<30 {
            let choice = Int.random(in: 0...owners.count, using: &random)
            let owner: DatabaseValue = choice == owners.count ? .null : spelled(owners[choice].id)
            try db.execute(
                sql:
                    "INSERT INTO rkp_pets (\(identifier: "ownerId"), name) VALUES (\(owner), \("pet\(index % 4)"))"
            )
        }
        let petIDs = try db.fetchAll(RKPPet.self).compactMap(\.id)
        for _ in 0..<40 {
            let pet = petIDs[Int.random(in: 0..<petIDs.count, using: &random)]
            let tag = tags[Int.random(in: 0..<tags.count, using: &random)]
            try db.execute(
                sql:
                    "INSERT INTO rkp_pet_tags (\(identifier: "petId"), \(identifier: "tagId")) VALUES (\(pet), \(spelled(tag.id)))"
            )
        }
        if checksForeignKeys { try db.execute(sql: "PRAGMA foreign_keys = ON") }

        let pets = try db.fetchAll(RKPPet.self)
        let links = try db.fetchAll(RKPPetTag.self)
        try #require(pets.count == 30 && links.count == 40)

        let loaded = try db.query(RKPOwner.self).including(all: RKPPet.self) { $0 }.fetchAll()
        #expect(loaded.count == owners.count)
        for (owner, children) in loaded {
            let expected = pets.filter { $0.ownerId == owner.id }.compactMap(\.id).sorted()
            #expect(children.compactMap(\.id).sorted() == expected, "\(backend.name) owner \(owner.id)")
        }
        for (pet, owner) in try db.query(RKPPet.self).including(one: RKPOwner.self, { $0 }).fetchAll() {
            #expect(owner?.id == pet.ownerId.flatMap { id in owners.first { $0.id == id }?.id })
        }
        let tagged = try db.query(RKPPet.self).including(all: RKPTag.self, through: RKPPetTag.self, { $0 })
        for (pet, related) in try tagged.fetchAll() {
            let expected = links.filter { $0.petId == pet.id }.map(\.tagId).sorted {
                $0.uuidString < $1.uuidString
            }
            #expect(related.map(\.id).sorted { $0.uuidString < $1.uuidString } == expected, "\(backend.name)")
        }
        for name in ["owner0", "owner1", "owner2"] {
            let expected = pets.filter { pet in owners.contains { $0.id == pet.ownerId && $0.name == name } }
            let found = try db.query(RKPPet.self).where(RKPOwner.self) { $0.name == name }.fetchAll()
            #expect(
                found.compactMap(\.id).sorted() == expected.compactMap(\.id).sorted(),
                "\(backend.name) \(name)")
        }
        for name in ["pet0", "pet1", "pet2", "pet3"] {
            let expected = owners.filter { owner in
                pets.contains { $0.ownerId == owner.id && $0.name == name }
            }
            let found = try db.query(RKPOwner.self).where(any: RKPPet.self) {
                $0.name == name
            }.fetchAll()
            #expect(Set(found.map(\.id)) == Set(expected.map(\.id)), "\(backend.name) \(name)")
            #expect(
                try db.query(RKPOwner.self).where(any: RKPPet.self) { $0.name == name }.count()
                    == expected.count)
        }
    }
}
