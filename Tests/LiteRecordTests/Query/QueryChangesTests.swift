import Foundation
import LiteRecord
import Testing

private struct ChangeStats: Codable, Equatable, Sendable {
    var wins: Int
    var losses: Int
}
private enum ChangeTeam: String, Codable, Sendable { case red, blue }

private struct ChangeItem: Model, Equatable {
    var id: Int64?
    var name: String
    var score: Int
    var bonus: Int?
    var team: ChangeTeam?
    var ratio: Double
    var tags: [String]
    var stats: ChangeStats
    var when: Date

    static let schema = Schema<ChangeItem>(table: "change_items", unique: [\.name], indexes: [[\.score]])
}

private let changeEpoch = Date(timeIntervalSinceReferenceDate: 86_400)

/// Twenty items: scores -10...9 in a shuffled order, every third team NULL.
private func makeChangeItems() throws -> (Database, [ChangeItem]) {
    let db = try Database(.inMemory)
    let teams: [ChangeTeam?] = [nil, .red, .blue]
    let items = (0..<20).map { (index: Int) -> ChangeItem in
        ChangeItem(
            id: nil, name: "item\(index)", score: (index * 7 % 20) - 10, bonus: index % 2 == 0 ? index : nil,
            team: teams[index % 3], ratio: Double(index) / 8,
            tags: index % 4 == 0 ? ["pro"] : [], stats: ChangeStats(wins: index % 5, losses: 2),
            when: changeEpoch.addingTimeInterval(Double(index)))
    }
    return (db, try db.insert(contentsOf: items))
}

/// The table's rows, by id.
private func rows(_ db: Database) throws -> [ChangeItem] {
    try db.query(ChangeItem.self).order { $0.id.ascending }.fetchAll()
}

@Suite struct QueryChangesTests {
    @Test func updateAllSetsValuesOnMatchingRowsOnly() throws {
        let (db, items) = try makeChangeItems()
        let changed = try db.query(ChangeItem.self).where { $0.team == .red }.updateAll {
            [$0.score.set(to: 100), $0.team.set(to: nil), $0.tags.set(to: ["moved", "x"])]
        }
        var expected = items
        for index in expected.indices where expected[index].team == .red {
            expected[index].score = 100
            expected[index].team = nil
            expected[index].tags = ["moved", "x"]
        }
        #expect(changed == items.filter { $0.team == .red }.count)
        #expect(try rows(db) == expected)
        #expect(try db.query(ChangeItem.self).where { $0.score == 100 }.count() == changed)
        #expect(try db.query(ChangeItem.self).where { $0.tags.contains("moved") }.count() == changed)
    }

    @Test func updateAllSetsEveryKindOfValue() throws {
        let (db, items) = try makeChangeItems()
        let stats = ChangeStats(wins: 9, losses: 0)
        let when = changeEpoch.addingTimeInterval(0.125)
        let changed = try db.query(ChangeItem.self).where { $0.bonus == nil }.updateAll {
            [
                $0.bonus.set(to: 7), $0.team.set(to: .blue), $0.ratio.set(to: -0.5), $0.stats.set(to: stats),
                $0.when.set(to: when), $0.name.set(to: $0.name),
            ]
        }
        var expected = items
        for index in expected.indices where expected[index].bonus == nil {
            (expected[index].bonus, expected[index].team, expected[index].ratio) = (7, .blue, -0.5)
            (expected[index].stats, expected[index].when) = (stats, when)
        }
        #expect(changed == 10)
        #expect(try rows(db) == expected)
        #expect(try db.query(ChangeItem.self).where { $0.stats.wins == 9 && $0.when == when }.count() == 10)
    }

    @Test func updateAllComputesExpressionsPerRow() throws {
        let (db, items) = try makeChangeItems()
        let changed = try db.query(ChangeItem.self).where { $0.score >= 0 }.updateAll {
            [$0.score.set(to: $0.score * 2 + 1), $0.ratio.set(to: $0.ratio - 1), $0.bonus.set(to: nil)]
        }
        #expect(changed == 10)
        var expected = items
        for index in expected.indices where expected[index].score >= 0 {
            expected[index].score = expected[index].score * 2 + 1
            expected[index].ratio -= 1
            expected[index].bonus = nil
        }
        #expect(try rows(db) == expected)
        // An expression may read another column, even a member of a JSON column.
        try db.query(ChangeItem.self).updateAll { [$0.score.set(to: $0.stats.wins + 1)] }
        #expect(try rows(db).map(\.score) == items.map { $0.stats.wins + 1 })
        // The assignments read the row as it was before the update, as SQL does.
        try db.query(ChangeItem.self).updateAll { [$0.score.set(to: $0.score + 1), $0.bonus.set(to: 1)] }
        #expect(try rows(db).map(\.score) == items.map { $0.stats.wins + 2 })
    }

    @Test func updateAllCountsMatchedRowsEvenWhenValuesAreTheSame() throws {
        let (db, _) = try makeChangeItems()
        // SQLite counts the rows the UPDATE wrote, whether or not a value changed.
        #expect(
            try db.query(ChangeItem.self).where { $0.stats.losses == 2 }.updateAll {
                [$0.tags.set(to: $0.tags)]
            } == 20)
    }

    @Test func updateAllWithNoMatchOrNoAssignmentChangesNothing() throws {
        let (db, items) = try makeChangeItems()
        #expect(
            try db.query(ChangeItem.self).where { $0.score > 1_000 }.updateAll { [$0.score.set(to: 0)] } == 0)
        #expect(try db.query(ChangeItem.self).updateAll { _ in [] } == 0)
        #expect(try rows(db) == items)
    }

    @Test func updateAllWithOrderAndLimitChangesTheChosenRows() throws {
        let (db, items) = try makeChangeItems()
        let top = db.query(ChangeItem.self).order { $0.score.descending }.limit(3)
        #expect(try top.updateAll { [$0.bonus.set(to: -1)] } == 3)
        let topIDs = Set(items.sorted { $0.score > $1.score }.prefix(3).map(\.id))
        #expect(try Set(db.query(ChangeItem.self).where { $0.bonus == -1 }.fetchAll().map(\.id)) == topIDs)
        let skipped = db.query(ChangeItem.self).where { $0.bonus != -1 }.order { $0.id.ascending }.offset(15)
        #expect(try skipped.updateAll { [$0.team.set(to: .red)] } == 2)
        #expect(try rows(db).suffix(2).allSatisfy { $0.team == .red })
        #expect(
            try db.query(ChangeItem.self).where { $0.team == .red }.count() == 2
                + items.dropLast(2).filter { $0.team == .red }.count)
    }

    @Test func updateAllThatBreaksAConstraintChangesNothing() throws {
        let (db, items) = try makeChangeItems()
        #expect(throws: DatabaseError.self) {
            try db.query(ChangeItem.self).where { $0.score > 0 }.updateAll { [$0.name.set(to: "same")] }
        }
        #expect(try rows(db) == items)
    }

    @Test func updateAllInsideARolledBackTransactionIsUndone() throws {
        let (db, items) = try makeChangeItems()
        struct Abort: Error {}
        #expect(throws: Abort.self) {
            try db.transaction { tx in
                let updated = try tx.query(ChangeItem.self).updateAll { [$0.score.set(to: 0)] }
                #expect(updated == 20)
                let zeroed = try tx.query(ChangeItem.self).where { $0.score == 0 }.count()
                #expect(zeroed == 20)
                throw Abort()
            }
        }
        #expect(try rows(db) == items)
        try db.transaction { tx in
            let deleted = try tx.query(ChangeItem.self).where { $0.score < 0 }.deleteAll()
            #expect(deleted == 10)
        }
        #expect(try rows(db) == items.filter { $0.score >= 0 })
    }

    @Test func deleteAllRemovesMatchingRowsOnly() throws {
        let (db, items) = try makeChangeItems()
        let condition = { (item: ChangeItem) in
            item.team != .blue && (item.score < 0 || item.tags.contains("pro"))
        }
        let deleted = try db.query(ChangeItem.self).where {
            $0.team != .blue && ($0.score < 0 || $0.tags.contains("pro"))
        }.deleteAll()
        #expect(deleted == items.filter(condition).count)
        #expect(try rows(db) == items.filter { !condition($0) })
        #expect(try db.query(ChangeItem.self).where { $0.score > 1_000 }.deleteAll() == 0)
        #expect(
            try db.query(ChangeItem.self).where(sql: "score = \(items[1].score)").deleteAll()
                == (condition(items[1]) ? 0 : 1))
        #expect(
            try db.query(ChangeItem.self).deleteAll() == items.count - deleted - (condition(items[1]) ? 0 : 1)
        )
        #expect(try db.query(ChangeItem.self).count() == 0)
    }

    @Test func deleteAllWithOrderAndLimitRemovesTheChosenRows() throws {
        let (db, items) = try makeChangeItems()
        #expect(try db.query(ChangeItem.self).order { $0.score.ascending }.limit(4).deleteAll() == 4)
        let lowest = Set(items.sorted { $0.score < $1.score }.prefix(4).map(\.id))
        #expect(try rows(db) == items.filter { !lowest.contains($0.id) })
        let oldestTwoRed = db.query(ChangeItem.self).where { $0.team == .red }.order { $0.when.ascending }
            .limit(2, offset: 1)
        let expectedGone = Set(
            items.filter { !lowest.contains($0.id) && $0.team == .red }.sorted { $0.when < $1.when }
                .dropFirst().prefix(2).map(\.id))
        #expect(try oldestTwoRed.deleteAll() == 2)
        #expect(try rows(db) == items.filter { !lowest.contains($0.id) && !expectedGone.contains($0.id) })
    }
}
