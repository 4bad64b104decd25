import Foundation
import LiteRecord
import Testing

private struct OpStats: Codable, Equatable, Sendable {
    var wins: Int
    var losses: Int
}

private struct OpItem: Model, Equatable {
    var id: Int64?
    var name: String
    var score: Int
    var rank: Int?
    var ratio: Double
    var when: Date
    var tags: [String]
    var stats: OpStats

    static let schema = Schema<OpItem>(table: "op_items", indexes: [[\.score]])
}

/// Text columns that compare without case in SQL, unless the query asks otherwise.
private struct OpNocase: Model {
    var id: Int64?
    var name: String
    var alias: String

    static let schema = Schema<OpNocase>(table: "op_nocase").collation(.nocase, for: \.name)
        .collation(.nocase, for: \.alias)
}

/// Foundation values and small integers, each in its stored form.
private struct OpStored: Model, Equatable {
    var id: Int64?
    var amount: Decimal
    var uuid: UUID
    var url: URL
    var data: Data
    var small: Int8
    var count: UInt32
    var ratio: Float
}

/// A model without a primary key, so that whole rows can repeat.
private struct OpPair: Model, Equatable, Hashable {
    var letter: String
    var number: Int
}

private let opNames = [
    "b", "B", "a", "", "\u{E9}", "z", "a\u{0}", "A", "\u{1F600}", "ab", "aB", "%", "_", "Z", "\u{C9}", "ba",
]

/// Sixteen items with distinct names, repeated scores, some NULL ranks.
private func makeItems() throws -> (Database, [OpItem]) {
    let db = try Database(.inMemory)
    let items = opNames.enumerated().map { index, name in
        OpItem(
            id: nil, name: name, score: index % 5 * 10 - 20, rank: index % 3 == 0 ? nil : index % 4,
            ratio: Double(index) / 4 - 1.5,
            when: Date(timeIntervalSinceReferenceDate: Double(index * 7 % 16) * 86_400.5),
            tags: Array(["pro", "new", "old"].prefix(index % 4)),
            stats: OpStats(wins: index % 6, losses: index % 4))
    }
    return (db, try db.insert(contentsOf: items))
}

@Suite struct QueryOperatorTests {
    @Test func ordersByOneKeyAsSwiftSorts() throws {
        let (db, items) = try makeItems()
        let query = db.query(OpItem.self)
        #expect(try query.order { $0.name.ascending }.fetchAll().map(\.name) == items.map(\.name).sorted())
        #expect(
            try query.order { $0.name.descending }.fetchAll().map(\.name) == items.map(\.name).sorted(by: >))
        #expect(try query.order { $0.ratio.descending }.fetchAll() == items.sorted { $0.ratio > $1.ratio })
        #expect(
            try query.order { $0.when.ascending }.fetchAll()
                == items.sorted { ($0.when, $0.id!) < ($1.when, $1.id!) })
        #expect(
            try query.order { $0.stats.wins.descending }.fetchAll().map(\.stats.wins)
                == items.map(\.stats.wins).sorted(by: >))
        #expect(
            try query.order { $0.tags.count.ascending }.fetchAll().map(\.tags.count)
                == items.map(\.tags.count).sorted())
        // `order` replaces the previous keys.
        #expect(
            try query.order { $0.ratio.descending }.order { $0.name.ascending }.fetchAll().first?.name == "")
    }

    @Test func ordersBySeveralKeysWithNullsWhereAsked() throws {
        let (db, items) = try makeItems()
        let byScoreThenName = try db.query(OpItem.self).order { [$0.score.descending, $0.name.ascending] }
            .fetchAll()
        #expect(byScoreThenName == items.sorted { ($1.score, $0.name) < ($0.score, $1.name) })
        for (nullsFirst, ascending) in [(true, true), (false, true), (true, false), (false, false)] {
            let query = db.query(OpItem.self).order {
                let rank =
                    ascending
                    ? $0.rank.ascending(nulls: nullsFirst ? .first : .last)
                    : $0.rank.descending(nulls: nullsFirst ? .first : .last)
                return [rank, $0.id.ascending]
            }
            let expected = items.sorted { a, b in
                switch (a.rank, b.rank) {
                case (nil, nil): return a.id! < b.id!
                case (nil, _?): return nullsFirst
                case (_?, nil): return !nullsFirst
                case (let x?, let y?): return x == y ? a.id! < b.id! : (ascending ? x < y : x > y)
                }
            }
            #expect(try query.fetchAll() == expected, "nulls first: \(nullsFirst), ascending: \(ascending)")
        }
        // Without a NULLS clause, NULL sorts first ascending and last descending, as in SQLite.
        let ascendingRanks = try db.query(OpItem.self).order { $0.rank.ascending }.fetchAll().map(\.rank)
        #expect(ascendingRanks.prefix(6).allSatisfy { $0 == nil } && ascendingRanks[6] != nil)
        let descendingRanks = try db.query(OpItem.self).order { $0.rank.descending }.fetchAll().map(\.rank)
        #expect(descendingRanks.suffix(6).allSatisfy { $0 == nil } && descendingRanks[9] != nil)
    }

    @Test func limitsAndOffsets() throws {
        let (db, items) = try makeItems()
        let ordered = db.query(OpItem.self).order { $0.id.ascending }
        #expect(try ordered.limit(3).fetchAll() == Array(items.prefix(3)))
        #expect(try ordered.limit(3, offset: 4).fetchAll() == Array(items[4..<7]))
        #expect(try ordered.offset(14).fetchAll() == Array(items.suffix(2)))
        #expect(try ordered.offset(4).limit(2).fetchAll() == Array(items[4..<6]))
        #expect(try ordered.limit(0).fetchAll().isEmpty)
        #expect(try ordered.limit(0).fetchOne() == nil)
        #expect(try ordered.limit(0).exists() == false)
        #expect(try ordered.limit(5).count() == 5)
        #expect(try ordered.limit(5, offset: 13).count() == 3)
        #expect(try ordered.offset(20).count() == 0)
        #expect(try ordered.offset(20).exists() == false)
        #expect(try ordered.offset(15).exists())
        #expect(
            try ordered.where { $0.score > 0 }.limit(2).fetchAll()
                == Array(items.filter { $0.score > 0 }.prefix(2)))
    }

    @Test func distinctRemovesRepeatedRows() throws {
        let db = try Database(.inMemory)
        let pairs = (0..<30).map { OpPair(letter: ["x", "y", "X"][$0 % 3], number: $0 % 4) }
        try db.insert(contentsOf: pairs)
        let distinct = db.query(OpPair.self).distinct()
        #expect(try Set(distinct.fetchAll()) == Set(pairs))
        #expect(try distinct.fetchAll().count == Set(pairs).count)
        #expect(try distinct.count() == 12)
        #expect(try db.query(OpPair.self).count() == 30)
        #expect(try distinct.where { $0.letter == "x" }.count() == 4)
        #expect(
            try distinct.order { [$0.letter.ascending, $0.number.descending] }.limit(2).fetchAll()
                == [OpPair(letter: "X", number: 3), OpPair(letter: "X", number: 2)])
    }

    @Test func fetchOneFirstAndForEach() throws {
        let (db, items) = try makeItems()
        let query = db.query(OpItem.self).where { $0.score >= 0 }.order {
            [$0.score.descending, $0.id.descending]
        }
        let expected = items.filter { $0.score >= 0 }.sorted { ($1.score, $1.id!) < ($0.score, $0.id!) }
        #expect(try query.fetchOne() == expected.first)
        #expect(try query.first() == expected.first)
        #expect(try query.offset(1).fetchOne() == expected[1])
        #expect(try query.where { $0.score > 1_000 }.fetchOne() == nil)
        var visited: [OpItem] = []
        // swift-format-ignore: ReplaceForEachWithForLoop
        try query.forEach { visited.append($0) }
        #expect(visited == expected)
        struct Stop: Error {}
        visited = []
        #expect(throws: Stop.self) {
            // swift-format-ignore: ReplaceForEachWithForLoop
            try query.forEach { item in
                visited.append(item)
                if visited.count == 2 { throw Stop() }
            }
        }
        #expect(visited == Array(expected.prefix(2)))
        // The connection is usable afterwards (the statement was reset).
        #expect(try query.count() == expected.count)
    }

    @Test func aggregatesAreTyped() throws {
        let (db, items) = try makeItems()
        let all = db.query(OpItem.self)
        let none = all.where { $0.score > 1_000 }
        let sum: Int = try all.sum { $0.score }
        #expect(sum == items.map(\.score).reduce(0, +))
        #expect(try none.sum { $0.score } == 0)
        #expect(try none.sum { $0.ratio } == 0.0)
        #expect(try all.sum { $0.ratio } == items.map(\.ratio).reduce(0, +))
        #expect(try all.sum { $0.stats.wins } == items.map(\.stats.wins).reduce(0, +))
        #expect(try all.sum { $0.tags.count } == items.map(\.tags.count).reduce(0, +))
        let minimum: Int? = try all.min { $0.score }
        #expect(minimum == items.map(\.score).min())
        #expect(try all.max { $0.score } == items.map(\.score).max())
        #expect(try all.min { $0.name } == items.map(\.name).min())
        #expect(try all.max { $0.name } == items.map(\.name).max())
        #expect(try all.max { $0.when } == items.map(\.when).max())
        #expect(try all.min { $0.stats.losses } == 0)
        #expect(try none.min { $0.score } == nil)
        #expect(try none.max { $0.name } == nil)
        let average: Double? = try all.average { $0.score }
        #expect(average == Double(items.map(\.score).reduce(0, +)) / Double(items.count))
        #expect(try none.average { $0.score } == nil)
        let positive = items.filter { $0.score > 0 }.map(\.score)
        #expect(try all.where { $0.score > 0 }.sum { $0.score } == positive.reduce(0, +))
        #expect(
            try all.where { $0.score > 0 }.average { $0.score } == Double(positive.reduce(0, +))
                / Double(positive.count))
    }

    @Test func aggregatesHonorLimitsLikeCount() throws {
        let (db, items) = try makeItems()
        let firstFive = db.query(OpItem.self).order { $0.id.ascending }.limit(5)
        #expect(try firstFive.count() == 5)
        #expect(try firstFive.sum { $0.score } == items.prefix(5).map(\.score).reduce(0, +))
        #expect(try firstFive.max { $0.ratio } == items.prefix(5).map(\.ratio).max())
        #expect(try firstFive.offset(20).min { $0.score } == nil)
        let pairsDB = try Database(.inMemory)
        try pairsDB.insert(contentsOf: (0..<10).map { OpPair(letter: "a", number: $0 % 2) })
        #expect(try pairsDB.query(OpPair.self).distinct().sum { $0.number } == 1)
    }

    @Test func integerSumOverflowIsAnError() throws {
        let db = try Database(.inMemory)
        try db.insert(contentsOf: [OpPair(letter: "a", number: .max), OpPair(letter: "b", number: 1)])
        #expect(throws: DatabaseError.self) { try db.query(OpPair.self).sum { $0.number } }
        #expect(try db.query(OpPair.self).where { $0.number == .max }.fetchAll().map(\.letter) == ["a"])
        #expect(try db.query(OpPair.self).where { $0.number > .max - 1 }.count() == 1)
        #expect(try db.query(OpPair.self).where { $0.number >= .min }.count() == 2)
    }

    @Test func comparesColumnsWithColumns() throws {
        let (db, items) = try makeItems()
        let query = db.query(OpItem.self)
        let ids = { (predicate: (OpItem) -> Bool) in items.filter(predicate).map(\.id) }
        #expect(
            try query.where { $0.stats.wins > $0.stats.losses }.fetchAll().map(\.id)
                == ids { $0.stats.wins > $0.stats.losses })
        #expect(
            try query.where { $0.stats.wins == $0.stats.losses }.fetchAll().map(\.id)
                == ids { $0.stats.wins == $0.stats.losses })
        #expect(
            try query.where { $0.stats.wins != $0.stats.losses }.fetchAll().map(\.id)
                == ids { $0.stats.wins != $0.stats.losses })
        #expect(
            try query.where { $0.score <= $0.stats.wins }.fetchAll().map(\.id)
                == ids { $0.score <= $0.stats.wins })
        #expect(
            try query.where { $0.score + 20 >= $0.stats.wins * 3 }.fetchAll().map(\.id)
                == ids { $0.score + 20 >= $0.stats.wins * 3 })
        #expect(try query.where { $0.score - 5 < -10 }.fetchAll().map(\.id) == ids { $0.score - 5 < -10 })
    }

    @Test func sqlConditionsCombineWithClosures() throws {
        let (db, items) = try makeItems()
        let hostile = "x' OR 1=1; DROP TABLE op_items; --"
        #expect(try db.query(OpItem.self).where(sql: "name = \(hostile)").count() == 0)
        let minimum = 0
        let query = db.query(OpItem.self).where(sql: "score > \(minimum)").where { $0.rank != nil }.order {
            $0.id.ascending
        }
        #expect(try query.fetchAll() == items.filter { $0.score > minimum && $0.rank != nil })
        // `Condition` needs no module prefix next to Foundation (unlike a type named `Predicate`).
        let both = db.query(OpItem.self).where { Condition(sql: "score = \(0)") || $0.name == "" }
        #expect(try both.fetchAll() == items.filter { $0.score == 0 || $0.name.isEmpty })
        #expect(try db.query(OpItem.self).count() == items.count)
    }

    @Test func sameShapeRunsAgainWithOtherValues() throws {
        // The statement is prepared once and reused: each run must bind its own values.
        let (db, items) = try makeItems()
        for threshold in stride(from: -30, through: 30, by: 5) {
            let query = db.query(OpItem.self).where { $0.score > threshold && $0.name != "a" }.order {
                $0.id.ascending
            }
            let expected = items.filter { $0.score > threshold && $0.name != "a" }
            #expect(try query.fetchAll() == expected)
            #expect(try query.count() == expected.count)
            #expect(try query.exists() == !expected.isEmpty)
        }
        for name in opNames + ["missing"] {
            #expect(
                try db.query(OpItem.self).where { $0.name == name }.fetchOne()?.name
                    == items.first { $0.name == name }?.name)
        }
    }

    @Test func documentedDifferencesFromSwift() throws {
        let db = try Database(.inMemory)
        let (composed, decomposed, thumb) = ("caf\u{E9}", "cafe\u{301}", "\u{1F44D}\u{1F3FD}")
        try db.insert(contentsOf: [
            OpPair(letter: composed, number: 1), OpPair(letter: decomposed, number: 2),
            OpPair(letter: thumb, number: 3),
        ])
        let numbers = { (condition: (Columns<OpPair>) -> Condition) in
            try db.query(OpPair.self).where(condition).order { $0.number.ascending }.fetchAll().map(\.number)
        }
        // Equality is by exact UTF-8 bytes; Swift's String `==` is canonical equivalence.
        #expect(composed == decomposed)
        #expect(try numbers { $0.letter == composed } == [1])
        // hasPrefix, hasSuffix and contains follow Swift's characters where the bytes match, and
        // never match other bytes: the decomposed spelling does not have the composed prefix.
        #expect(!thumb.hasPrefix("\u{1F44D}") && !decomposed.hasPrefix("cafe"))
        #expect(try numbers { $0.letter.hasPrefix("\u{1F44D}") } == [])
        #expect(try numbers { $0.letter.hasPrefix("cafe") } == [])
        #expect(decomposed.hasPrefix("caf\u{E9}"))
        #expect(try numbers { $0.letter.hasPrefix("caf\u{E9}") } == [1])
        // contains("") holds for no row, as Foundation's `contains` says (the standard library's
        // alone says true; Foundation's is the one chosen when Foundation is imported).
        #expect(!composed.contains(""))
        #expect(try numbers { $0.letter.contains("") } == [])
        // The case-insensitive variants fold ASCII letters only: "\u{C9}" is not "\u{E9}".
        #expect(try numbers { $0.letter.caseInsensitiveHasSuffix("\u{C9}") }.isEmpty)
        #expect(try numbers { $0.letter.caseInsensitiveHasPrefix("CAF") } == [1, 2])
    }

    @Test func jsonStringsHoldingNUL() throws {
        let db = try Database(.inMemory)
        var item = OpItem(
            id: nil, name: "n", score: 0, rank: nil, ratio: 0, when: Date(timeIntervalSinceReferenceDate: 0),
            tags: ["a\u{0}b"], stats: OpStats(wins: 0, losses: 0))
        try db.insert(&item)
        #expect(try db.query(OpItem.self).fetchOne() == item)
        // SQLite 3.40's JSON functions end a string at an escaped NUL (`\u0000`), so the element
        // "a\0b" reads as "a" in SQL.
        let exact = try db.query(OpItem.self).where { $0.tags.contains("a\u{0}b") }.count()
        let truncated = try db.query(OpItem.self).where { $0.tags.contains("a") }.count()
        withKnownIssue("SQLite 3.40 cuts JSON strings at \\u0000", isIntermittent: true) {
            #expect(exact == 1)
            #expect(truncated == 0)
        }
    }

    @Test func collatedColumnsStillCompareExactBytes() throws {
        let db = try Database(.inMemory)
        let rows = try db.insert(contentsOf: [
            OpNocase(id: nil, name: "ab", alias: "AB"), OpNocase(id: nil, name: "AB", alias: "AB"),
            OpNocase(id: nil, name: "b", alias: "B"),
        ])
        let ids = { (condition: (Columns<OpNocase>) -> Condition) in
            try db.query(OpNocase.self).where(condition).order { $0.id.ascending }.fetchAll().map(\.id!)
        }
        let expected = { (condition: (OpNocase) -> Bool) in rows.filter(condition).map(\.id!) }
        #expect(try ids { $0.name == "ab" } == expected { $0.name == "ab" })
        #expect(try ids { $0.name != "ab" } == expected { $0.name != "ab" })
        #expect(try ids { $0.name < "b" } == expected { $0.name < "b" })
        #expect(try ids { ["AB"].contains($0.name) } == expected { ["AB"].contains($0.name) })
        #expect(try ids { $0.name == $0.alias } == expected { $0.name == $0.alias })
        #expect(try ids { $0.name != $0.alias } == expected { $0.name != $0.alias })
        #expect(try ids { $0.name > $0.alias } == expected { $0.name > $0.alias })
        #expect(try ids { $0.alias <= $0.name } == expected { $0.alias <= $0.name })
        #expect(try ids { $0.name.hasPrefix("A") } == expected { $0.name.hasPrefix("A") })
    }

    @Test func foundationValuesCompareInTheirStoredForm() throws {
        let db = try Database(.inMemory)
        let amounts: [Decimal] = [
            Decimal(string: "9.5")!, 10, Decimal(string: "-0.25")!,
            Decimal(string: "123456789012345678901234.5")!, -3,
        ]
        let rows = try db.insert(
            contentsOf: amounts.enumerated().map { index, amount in
                OpStored(
                    id: nil, amount: amount, uuid: UUID(), url: URL(string: "https://example.com/\(index)")!,
                    data: Data([UInt8(index), 0, 255]), small: Int8(index * 50 - 100),
                    count: UInt32(index) * 1_000_000_000,
                    ratio: Float(index) / 3)
            })
        let ids = { (condition: (Columns<OpStored>) -> Condition) in
            try db.query(OpStored.self).where(condition).order { $0.id.ascending }.fetchAll().map(\.id!)
        }
        let expected = { (condition: (OpStored) -> Bool) in rows.filter(condition).map(\.id!) }
        let third = rows[2]
        #expect(try ids { $0.amount == third.amount } == expected { $0.amount == third.amount })
        #expect(try ids { $0.uuid == third.uuid } == expected { $0.uuid == third.uuid })
        #expect(try ids { $0.url != third.url } == expected { $0.url != third.url })
        #expect(try ids { $0.data == third.data } == expected { $0.data == third.data })
        #expect(
            try ids { [rows[0].data, third.data].contains($0.data) }
                == expected { [rows[0].data, third.data].contains($0.data) })
        #expect(try ids { $0.small < 0 } == expected { $0.small < 0 })
        #expect(try ids { $0.count >= 2_000_000_000 } == expected { $0.count >= 2_000_000_000 })
        #expect(try ids { $0.ratio > third.ratio } == expected { $0.ratio > third.ratio })
        #expect(try ids { $0.ratio == third.ratio } == expected { $0.ratio == third.ratio })
        #expect(try ids { $0.uuid < third.uuid } == expected { $0.uuid < third.uuid })
        // Decimal is stored as exact text, yet compares and sorts as a number: "9.5" < "10".
        let (below, byAmount) = (
            try ids { $0.amount < 10 }, try db.query(OpStored.self).order { $0.amount.ascending }.fetchAll()
        )
        #expect(below == expected { $0.amount < 10 })
        #expect(byAmount.map(\.amount) == amounts.sorted())
    }
}
