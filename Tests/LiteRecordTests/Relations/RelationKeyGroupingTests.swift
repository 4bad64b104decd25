import Foundation
import LiteRecord
import Testing

/// A key stored as it is bound, of any storage class (a column with no declared type).
private enum KGTag: Codable, Hashable, DatabaseValueConvertible {
    case integer(Int64)
    case text(String)
    case real(Double)

    static var databaseColumnType: DatabaseColumnType { .any }

    func databaseValue() throws -> DatabaseValue {
        switch self {
        case .integer(let value): .integer(value)
        case .text(let value): .text(value)
        case .real(let value): .real(value)
        }
    }

    static func fromDatabaseValue(_ value: DatabaseValue) throws -> KGTag {
        switch value {
        case .integer(let value): return .integer(value)
        case .text(let value): return .text(value)
        case .real(let value): return .real(value)
        default: throw ValueConversionError(value: value, to: KGTag.self, reason: "expected a key")
        }
    }
}

private struct KGShelf: Model, Equatable {
    var id: Int64?
    var tag: KGTag
    static let schema = Schema<KGShelf>(table: "kg_shelves", unique: [\.tag])
}

/// Related to a shelf twice: by its row id, and by its tag of any storage class.
private struct KGItem: Model, Equatable {
    var id: Int64?
    var shelfID: Int64?
    var shelfTag: KGTag?
    var weight: Int
    static let schema = Schema<KGItem>(table: "kg_items")
        .foreignKey(\.shelfID, references: KGShelf.self)
        .foreignKey(\.shelfTag, references: KGShelf.self, key: \.tag)
}

/// The grouping of related rows under their roots, whatever the keys' storage classes:
/// compared with the same grouping done in Swift over plain fetches.
@Suite struct RelationKeyGroupingTests {
    /// Shelves with integer tags first, then text and non-integral real tags (so that a load
    /// meets integer keys before the others); items with random keys, some NULL.
    private func store(seed: UInt64, shelves: Int, items: Int) throws -> Database {
        var random = SeededGenerator(seed: seed)
        let db = try Database(.inMemory)
        try db.transaction { tx in
            for index in 0..<shelves {
                let tag: KGTag =
                    switch index % 3 {
                    case 0 where index < shelves / 2, 1 where index < shelves / 2: .integer(Int64(index * 7))
                    case 1: .text("t\(index)")
                    default: .real(Double(index) + 0.5)
                    }
                var shelf = KGShelf(id: nil, tag: tag)
                try tx.insert(&shelf)
            }
            let all = try tx.query(KGShelf.self).fetchAll()
            for _ in 0..<items {
                let byID = Int.random(in: 0...all.count, using: &random)
                let byTag = Int.random(in: 0...all.count, using: &random)
                var item = KGItem(
                    id: nil, shelfID: byID == all.count ? nil : all[byID].id,
                    shelfTag: byTag == all.count ? nil : all[byTag].tag,
                    weight: Int.random(in: 0..<100, using: &random))
                try tx.insert(&item)
            }
        }
        return db
    }

    @Test(arguments: [UInt64(1), 2, 3, 4, 5])
    func toManyGroupsMatchSwift(seed: UInt64) throws {
        let db = try store(seed: seed, shelves: 30, items: 200)
        let shelves = try db.query(KGShelf.self).order { $0.id }.fetchAll()
        let items = try db.query(KGItem.self).order { $0.id }.fetchAll()
        let byID = try db.query(KGShelf.self).order { $0.id }
            .including(all: KGItem.self, via: \.shelfID) { $0.order { $0.id } }.fetchAll()
        let byTag = try db.query(KGShelf.self).order { $0.id }
            .including(all: KGItem.self, via: \.shelfTag) { $0.order { $0.id } }.fetchAll()
        #expect(byID.map(\.0) == shelves)
        #expect(byTag.map(\.0) == shelves)
        #expect(byID.map(\.1) == shelves.map { shelf in items.filter { $0.shelfID == shelf.id } })
        #expect(byTag.map(\.1) == shelves.map { shelf in items.filter { $0.shelfTag == shelf.tag } })
    }

    @Test(arguments: [UInt64(6), 7, 8])
    func toOneWithSharedAndNullKeysMatchesSwift(seed: UInt64) throws {
        let db = try store(seed: seed, shelves: 25, items: 120)
        let shelves = try db.query(KGShelf.self).fetchAll()
        let items = try db.query(KGItem.self).order { $0.weight.descending }.fetchAll()
        let byID = try db.query(KGItem.self).order { $0.weight.descending }
            .including(one: KGShelf.self, via: \.shelfID).fetchAll()
        let byTag = try db.query(KGItem.self).order { $0.weight.descending }
            .including(one: KGShelf.self, via: \.shelfTag).fetchAll()
        #expect(byID.map(\.0) == items)
        #expect(byTag.map(\.0) == items)
        #expect(byID.map(\.1) == items.map { item in shelves.first { $0.id == item.shelfID } })
        #expect(byTag.map(\.1) == items.map { item in shelves.first { $0.tag == item.shelfTag } })
    }
}
