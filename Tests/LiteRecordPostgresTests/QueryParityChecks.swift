import Foundation
import LiteRecord
import Testing

// The query language on both backends: each condition selects exactly the rows for which the
// same condition, evaluated in Swift on the decoded models, is true (a differential test over
// random rows, as Tests/LiteRecordTests/Query/QueryDifferentialTests.swift does for SQLite).

struct QueryShape {
    let name: String
    let sql: (Columns<ParityRecord>) -> Condition
    let swift: (ParityRecord) -> Bool
}

enum QueryParityChecks {
    static var shapes: [QueryShape] {
        [
            QueryShape(name: "score > 10", sql: { $0.score > 10 }, swift: { $0.score > 10 }),
            QueryShape(name: "score <= 0", sql: { $0.score <= 0 }, swift: { $0.score <= 0 }),
            QueryShape(name: "ratio < 0.5", sql: { $0.ratio < 0.5 }, swift: { $0.ratio < 0.5 }),
            QueryShape(name: "flag", sql: { $0.flag == true }, swift: { $0.flag }),
            QueryShape(name: "!flag", sql: { $0.flag != true }, swift: { !$0.flag }),
            QueryShape(name: "maybe == true", sql: { $0.maybe == true }, swift: { $0.maybe == true }),
            QueryShape(name: "maybe != true", sql: { $0.maybe != true }, swift: { $0.maybe != true }),
            QueryShape(name: "maybe == nil", sql: { $0.maybe == nil }, swift: { $0.maybe == nil }),
            QueryShape(name: "team == .red", sql: { $0.team == .red }, swift: { $0.team == .red }),
            QueryShape(name: "team != .red", sql: { $0.team != .red }, swift: { $0.team != .red }),
            QueryShape(name: "team == nil", sql: { $0.team == nil }, swift: { $0.team == nil }),
            QueryShape(
                name: "bonus > 3", sql: { $0.bonus > 3 }, swift: { ($0.bonus ?? -1) > 3 && $0.bonus != nil }),
            QueryShape(
                name: "!(bonus > 3)", sql: { !($0.bonus > 3) }, swift: { !($0.bonus.map { $0 > 3 } ?? false) }
            ),
            QueryShape(name: "bonus == nil", sql: { $0.bonus == nil }, swift: { $0.bonus == nil }),
            QueryShape(name: "bonus != 2", sql: { $0.bonus != 2 }, swift: { $0.bonus != 2 }),
            QueryShape(
                name: "nickname == ace", sql: { $0.nickname == "ace" }, swift: { $0.nickname == "ace" }),
            QueryShape(
                name: "nickname < b", sql: { $0.nickname < "b" },
                swift: { $0.nickname.map { $0 < "b" } ?? false }),
            QueryShape(
                name: "name >= player 5", sql: { $0.name >= "player 5" }, swift: { $0.name >= "player 5" }),
            QueryShape(
                name: "score in", sql: { $0.score.in([1, 2, 3, 50, 100]) },
                swift: { [1, 2, 3, 50, 100].contains($0.score) }),
            QueryShape(name: "score in []", sql: { $0.score.in([]) }, swift: { _ in false }),
            QueryShape(
                name: "team in [.blue, nil]", sql: { $0.team.in([.blue, nil]) },
                swift: { $0.team == .blue || $0.team == nil }),
            QueryShape(
                name: "and/or", sql: { ($0.score > 50 && $0.flag == false) || $0.team == .blue },
                swift: { ($0.score > 50 && !$0.flag) || $0.team == .blue }),
            QueryShape(
                name: "not", sql: { !($0.score > 50 || $0.ratio > 0) },
                swift: { !($0.score > 50 || $0.ratio > 0) }),
            QueryShape(name: "stats.wins >= 5", sql: { $0.stats.wins >= 5 }, swift: { $0.stats.wins >= 5 }),
            QueryShape(name: "stats.wins == 3", sql: { $0.stats.wins == 3 }, swift: { $0.stats.wins == 3 }),
            QueryShape(
                name: "stats.ratio < 0.5", sql: { $0.stats.ratio < 0.5 }, swift: { $0.stats.ratio < 0.5 }),
            QueryShape(
                name: "joinedAt < reference", sql: { $0.joinedAt < Date(timeIntervalSinceReferenceDate: 0) },
                swift: { $0.joinedAt < Date(timeIntervalSinceReferenceDate: 0) }),
            QueryShape(
                name: "big > 0", sql: { $0.big > 0 }, swift: { $0.big > 0 }),
            QueryShape(
                name: "column vs column", sql: { $0.bonus == $0.score }, swift: { $0.bonus == $0.score }),
        ]
    }

    static func differential(_ db: some ModelContext, _ backend: ParityBackend) throws {
        var generator = SplitMix64(state: 2024)
        var records: [ParityRecord] = []
        for index in 0..<120 {
            var record = ParityRecord.random(index, using: &generator)
            try db.insert(&record)
            records.append(record)
        }
        for shape in shapes {
            let expected = records.filter(shape.swift).compactMap(\.id).sorted()
            let selected = try db.query(ParityRecord.self).where(shape.sql).order { $0.id.ascending }
                .fetchAll().compactMap(\.id)
            #expect(selected == expected, "\(backend.name): \(shape.name)")
            #expect(
                try db.query(ParityRecord.self).where(shape.sql).count() == expected.count, "\(shape.name)")
        }
        // Ordering, limit: the top ten by score, ties broken by id.
        let top = try db.query(ParityRecord.self).where { $0.score > 0 }.order {
            [$0.score.descending, $0.id.ascending]
        }.limit(10).fetchAll()
        let expectedTop = records.filter { $0.score > 0 }
            .sorted { ($0.score, -($0.id ?? 0)) > ($1.score, -($1.id ?? 0)) }.prefix(10)
        #expect(top.map(\.id) == expectedTop.map(\.id))
        // Text orders by bytes on both ("Bee" < "ace").
        let names = try db.query(ParityRecord.self).where { $0.nickname != nil }.order {
            [$0.nickname.ascending, $0.id.ascending]
        }.fetchAll()
        #expect(names.compactMap(\.nickname) == names.compactMap(\.nickname).sorted())
    }
}
