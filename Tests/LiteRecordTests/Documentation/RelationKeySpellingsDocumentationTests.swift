// The Existing databases article's example of relations on a table another tool wrote, line
// for line (see ReadmeCodeBlockTests).
import Foundation
import LiteRecord
import Testing

@Suite struct RelationKeySpellingsDocumentationTests {
    struct Owner: Model { var id: UUID; var name: String }
    struct Pet: Model {
        var id: Int64?; var ownerID: UUID?; var name: String
        static let schema = Schema<Pet>(table: "pet").foreignKey(\.ownerID, references: Owner.self)
    }

    @Test func relationsMatchKeysInEverySpelling() throws {
        let db = try Database(.inMemory)
        let ann = UUID()
        let bytes = withUnsafeBytes(of: ann.uuid) { Data($0) }
        // As another tool wrote them: the owner in lower case, one pet's key as 16 bytes.
        try db.execute(
            sql: """
                CREATE TABLE owner (id TEXT PRIMARY KEY, name TEXT NOT NULL);
                CREATE TABLE pet (id INTEGER PRIMARY KEY, ownerID REFERENCES owner (id), name TEXT NOT NULL);
                """)
        try db.execute(sql: "INSERT INTO owner VALUES (\(ann.uuidString.lowercased()), 'Ann')")
        try db.execute(sql: "INSERT INTO pet (ownerID, name) VALUES (\(ann.uuidString.lowercased()), 'Rex')")
        try db.execute(sql: "PRAGMA foreign_keys = OFF")
        try db.execute(sql: "INSERT INTO pet (ownerID, name) VALUES (\(bytes), 'Tom')")
        try db.execute(sql: "PRAGMA foreign_keys = ON")

        try db.insert(Pet(id: nil, ownerID: ann, name: "Kit"))   // written as the owner spells it
        let owners = try db.query(Owner.self).including(all: Pet.self).fetchAll()   // Ann: Rex, Tom, Kit
        let annsPets = try db.query(Pet.self).where(Owner.self) { $0.name == "Ann" }.count()   // 3

        #expect(owners.map { $0.1.map(\.name).sorted() } == [["Kit", "Rex", "Tom"]])
        #expect(annsPets == 3)
    }
}
