import Foundation
import LiteRecord
import Testing

private struct CollidingIndexes: Model {
    var id: Int64?
    var a: Int
    var b: Int
    // swift-format-ignore: AlwaysUseLowerCamelCase
    var a_b: Int  // the name is the point of the test
    static let schema = Schema<CollidingIndexes>(table: "colliding_indexes", indexes: [[\.a_b], [\.a, \.b]])
}

private struct CollidingUniquesV1: Model {
    var id: Int64?
    var x: Int
    var y: Int
    // swift-format-ignore: AlwaysUseLowerCamelCase
    var x_y: Int  // the name is the point of the test
    static let schema = Schema<CollidingUniquesV1>(table: "colliding_uniques")
}

private struct CollidingUniquesV2: Model {
    var id: Int64?
    var x: Int
    var y: Int
    // swift-format-ignore: AlwaysUseLowerCamelCase
    var x_y: Int  // the name is the point of the test
    static let schema = Schema<CollidingUniquesV2>(table: "colliding_uniques", unique: [\.x_y])
        .uniqueTogether([\.x, \.y])
}

private struct OldNamedIndex: Model {
    var id: Int64?
    var score: Int
    var name: String
    static let schema = Schema<OldNamedIndex>(
        table: "old_named", unique: [\.name], indexes: [[\.score]]
    ).uniqueTogether([\.score, \.name])
}

/// Every declared index and unique constraint exists, whatever its generated name would be.
@Suite struct ConstraintNamingTests {
    /// The indexes of a table as (unique, columns) pairs, sorted.
    private func indexShapes(_ db: Database, _ table: String) throws -> [String] {
        let names = try db.fetchAll(
            String.self, sql: "SELECT name FROM pragma_index_list(\(table)) WHERE origin <> 'pk'")
        return try names.map { name in
            let unique = try db.fetchOne(
                Int.self, sql: "SELECT \"unique\" FROM pragma_index_list(\(table)) WHERE name = \(name)")
            return (unique == 1 ? "unique " : "") + (try indexColumns(db, name)).joined(separator: ",")
        }.sorted()
    }

    @Test func indexesWhoseNamesWouldCollideBothExist() throws {
        let db = try Database(.inMemory)
        try db.migrate(CollidingIndexes.self)
        #expect(try indexShapes(db, "colliding_indexes") == ["a,b", "a_b"])
    }

    @Test func uniqueConstraintsAddedLaterWhoseNamesWouldCollideBothHold() throws {
        let db = try Database(.inMemory)
        try db.insert(CollidingUniquesV1(id: nil, x: 1, y: 2, x_y: 3))
        try db.migrate(CollidingUniquesV2.self)
        #expect(try indexShapes(db, "colliding_uniques") == ["unique x,y", "unique x_y"])
        // Each constraint is enforced on its own.
        #expect(throws: DatabaseError.self) { try db.insert(CollidingUniquesV2(id: nil, x: 1, y: 2, x_y: 9)) }
        #expect(throws: DatabaseError.self) { try db.insert(CollidingUniquesV2(id: nil, x: 5, y: 6, x_y: 3)) }
        try db.insert(CollidingUniquesV2(id: nil, x: 1, y: 3, x_y: 4))
        #expect(try db.count(CollidingUniquesV2.self) == 2)
    }

    @Test func indexesOfAnOlderVersionAreReusedNotDuplicated() throws {
        // The table and indexes as an earlier LiteRecord created them, under the old names.
        try withTemporaryDirectory { directory in
            let path = directory.file("old.sqlite")
            try createOldIndexes(path)
            for _ in 0..<3 {
                let db = try Database(path: path)
                try db.migrate(OldNamedIndex.self)
                #expect(try indexShapes(db, "old_named") == ["score", "unique name", "unique score,name"])
            }
        }
    }

    private func createOldIndexes(_ path: String) throws {
        do {
            let db = try Database(path: path)
            try db.execute(
                sql: """
                    CREATE TABLE old_named (id INTEGER PRIMARY KEY, score INTEGER NOT NULL, name TEXT NOT NULL);
                    CREATE INDEX old_named_on_score ON old_named (score);
                    CREATE UNIQUE INDEX old_named_unique_name ON old_named (name);
                    CREATE UNIQUE INDEX old_named_unique_score_name ON old_named (score, name);
                    """)
        }
    }

    /// An older version created only one of two colliding indexes, under the shared name: the
    /// missing one is created under a hashed name, once, whichever of the two came first.
    @Test(arguments: ["a_b", "a, b"])
    func collidingIndexMissingFromAnOlderVersionIsCreatedOnce(existing: String) throws {
        try withTemporaryDirectory { directory in
            let path = directory.file("old.sqlite")
            do {
                let db = try Database(path: path)
                try db.execute(
                    sql: SQL(
                        "CREATE TABLE colliding_indexes (id INTEGER PRIMARY KEY, a INTEGER NOT NULL, "
                            + "b INTEGER NOT NULL, a_b INTEGER NOT NULL);"
                            + "CREATE INDEX colliding_indexes_on_a_b ON colliding_indexes (\(existing))"))
            }
            for _ in 0..<3 {
                let db = try Database(path: path)
                try db.migrate(CollidingIndexes.self)
                #expect(try indexShapes(db, "colliding_indexes") == ["a,b", "a_b"])
            }
        }
    }

    @Test func namesAreStableForAModelWithoutCollisions() throws {
        let db = try Database(.inMemory)
        try db.migrate(OldNamedIndex.self)
        let names = try db.fetchAll(
            String.self,
            sql: "SELECT name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL ORDER BY name")
        #expect(names == ["old_named_on_score"])
    }
}
