import Foundation
import LiteRecord
import Testing

private struct RowidNamed: Model, Equatable {
    var id: Int64?
    var rowid: Int
    var score: Int
    static let schema = Schema<RowidNamed>(table: "rowid_named")
}

/// `rowid` and `oid` both shadowed: only `_rowid_` still names SQLite's rowid.
private struct OidNamed: Model, Equatable {
    var id: Int64?
    var rowid: Int
    var oid: Int
    var score: Int
    static let schema = Schema<OidNamed>(table: "oid_named")
}

private struct AllAliasesNamed: Model, Equatable {
    var key: String
    var rowid: Int
    var oid: Int
    // swift-format-ignore: AlwaysUseLowerCamelCase
    var _rowid_: Int  // the name is the point of the test
    var score: Int
    static let schema = Schema<AllAliasesNamed>(table: "all_aliases", primaryKey: \.key)
}

private struct WithoutRowIDItem: Model, Equatable {
    var code: String
    var part: Int
    var score: Int
    static let schema = Schema<WithoutRowIDItem>(table: "without_rowid_items", primaryKey: [\.code, \.part])
}

/// A limited or ordered `deleteAll`/`updateAll` picks its rows by SQLite's own row identity,
/// never by a user column that shadows the name `rowid`.
@Suite struct RowSelectionTests {
    @Test func limitedDeleteWithRowidPropertyDeletesOneRow() throws {
        let db = try Database(.inMemory)
        // Every row has the same `rowid` property value: a selection by it picks them all.
        try db.insert(contentsOf: (0..<5).map { RowidNamed(id: nil, rowid: 7, score: $0) })
        let deleted = try db.query(RowidNamed.self).order { $0.score.descending }.limit(1).deleteAll()
        #expect(deleted == 1)
        #expect(
            try db.query(RowidNamed.self).order { $0.score.ascending }.fetchAll().map(\.score) == [
                0, 1, 2, 3,
            ])
    }

    @Test func limitedUpdateWithOidPropertyUpdatesOneRow() throws {
        let db = try Database(.inMemory)
        try db.insert(contentsOf: (0..<5).map { OidNamed(id: nil, rowid: 1, oid: 1, score: $0) })
        let changed = try db.query(OidNamed.self).order { $0.score.ascending }.limit(2).updateAll {
            [$0.score.set(to: 100)]
        }
        #expect(changed == 2)
        #expect(
            try db.query(OidNamed.self).order { $0.id.ascending }.fetchAll().map(\.score) == [
                100, 100, 2, 3, 4,
            ])
    }

    @Test func limitedChangesWhenEveryRowidAliasIsAColumn() throws {
        let db = try Database(.inMemory)
        try db.insert(
            contentsOf: (0..<5).map {
                AllAliasesNamed(key: "k\($0)", rowid: 1, oid: 1, _rowid_: 1, score: $0)
            })
        let deleted = try db.query(AllAliasesNamed.self).order { $0.score.descending }.limit(2).deleteAll()
        #expect(deleted == 2)
        let changed = try db.query(AllAliasesNamed.self).order { $0.score.ascending }.limit(1).updateAll {
            [$0.score.set(to: 50)]
        }
        #expect(changed == 1)
        #expect(
            try db.query(AllAliasesNamed.self).order { $0.key.ascending }.fetchAll().map(\.score) == [
                50, 1, 2,
            ])
    }

    @Test func limitedChangesOnWithoutRowIDTable() throws {
        let db = try Database(.inMemory)
        try db.execute(
            sql: """
                CREATE TABLE without_rowid_items (code TEXT NOT NULL, part INTEGER NOT NULL,
                score INTEGER NOT NULL, PRIMARY KEY (code, part)) WITHOUT ROWID
                """)
        try db.insert(contentsOf: (0..<6).map { WithoutRowIDItem(code: "c\($0 % 2)", part: $0, score: $0) })
        let deleted = try db.query(WithoutRowIDItem.self).order { $0.score.descending }.limit(2).deleteAll()
        #expect(deleted == 2)
        let changed = try db.query(WithoutRowIDItem.self).order { $0.score.ascending }.limit(1).updateAll {
            [$0.score.set(to: -1)]
        }
        #expect(changed == 1)
        #expect(
            try db.query(WithoutRowIDItem.self).order { $0.part.ascending }.fetchAll().map(\.score) == [
                -1, 1, 2, 3,
            ])
    }
}
