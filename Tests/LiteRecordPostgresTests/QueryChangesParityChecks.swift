import Foundation
import LiteRecord
import Testing

// `updateAll` and `deleteAll` on both backends: the count they return and their effect, read
// back by a second query and compared with the same change made in Swift on the models;
// failures (an overflow, a string function a backend cannot compute) change nothing.

enum QueryChangesParityChecks {
    static func updateAndDelete(_ db: some ModelContext, _ backend: ParityBackend) throws {
        var records = try QueryLanguageParityChecks.insertRandom(db, count: 60, seed: 99)
        func readBack() throws -> [TextRecord] {
            try db.query(TextRecord.self).order { $0.id.ascending }.fetchAll()
        }

        // An expression per row, on the rows a text predicate selects.
        let raised = try db.query(TextRecord.self).where { $0.text.caseInsensitiveContains("a") }.updateAll {
            [$0.level.set(to: $0.level * 2 + 1)]
        }
        var expectedRaised = 0
        for index in records.indices where records[index].text.asciiLowercased.bytesContain("a") {
            records[index].level = records[index].level * 2 + 1
            expectedRaised += 1
        }
        #expect(raised == expectedRaised, "\(backend.name)")
        #expect(try readBack() == records, "\(backend.name): levels after updateAll")

        // Hostile values are bound, stored and read back unchanged.
        let hostile = "O'Brien\"; DROP TABLE text_records; -- 100% _\\ 👍🏽"
        let renamed = try db.query(TextRecord.self).where { $0.tags.contains("pro") }.updateAll {
            [$0.nick.set(to: hostile), $0.tags.set(to: ["it's", "%"])]
        }
        var expectedRenamed = 0
        for index in records.indices where records[index].tags.contains("pro") {
            records[index].nick = hostile
            records[index].tags = ["it's", "%"]
            expectedRenamed += 1
        }
        #expect(renamed == expectedRenamed)
        #expect(try readBack() == records, "\(backend.name): hostile values after updateAll")

        // Limit and offset choose the rows in the query's order.
        let top = try db.query(TextRecord.self).where { $0.level >= 0 }.order {
            [$0.level.descending, $0.id.ascending]
        }.limit(3).offset(1).updateAll { [$0.nick.set(to: nil)] }
        let chosen = records.filter { $0.level >= 0 }
            .sorted { ($0.level, -($0.id ?? 0)) > ($1.level, -($1.id ?? 0)) }.dropFirst().prefix(3)
            .compactMap(\.id)
        for index in records.indices where chosen.contains(records[index].id ?? -1) {
            records[index].nick = nil
        }
        #expect(top == chosen.count)
        #expect(try readBack() == records, "\(backend.name): limited updateAll")

        // An overflow fails the statement and changes nothing.
        #expect(throws: DatabaseError.self, "\(backend.name)") {
            try db.query(TextRecord.self).updateAll { [$0.level.set(to: $0.level + Int.max)] }
        }
        #expect(try readBack() == records, "\(backend.name): nothing changed by the failed update")

        // Nothing to set changes nothing.
        #expect(
            try db.query(TextRecord.self).updateAll { _ in [] } == 0)

        // deleteAll with a JSON condition, then with a limit.
        let deleted = try db.query(TextRecord.self).where { $0.items.contains { $0.quantity > 2 } }
            .deleteAll()
        let kept = records.filter { !$0.items.contains { $0.quantity > 2 } }
        #expect(deleted == records.count - kept.count)
        records = kept
        #expect(try readBack() == records, "\(backend.name): after deleteAll")
        let firstTwo = try db.query(TextRecord.self).order { $0.id.ascending }.limit(2).deleteAll()
        #expect(firstTwo == 2)
        records.removeFirst(2)
        #expect(try readBack() == records, "\(backend.name): after a limited deleteAll")
        let none = try db.query(TextRecord.self).where { $0.text.contains("\u{1F9A4}") }.deleteAll()
        #expect(none == 0)
        #expect(try readBack() == records)
    }

    /// Arithmetic in conditions and assignments: Swift's integer semantics on both backends.
    static func arithmetic(_ db: some ModelContext, _ backend: ParityBackend) throws {
        var records = try QueryLanguageParityChecks.insertRandom(db, count: 40, seed: 5)
        let shapes: [TextShape] = [
            TextShape(name: "level + 2 > 3", sql: { $0.level + 2 > 3 }, swift: { $0.level + 2 > 3 }),
            TextShape(name: "level / 2 == -1", sql: { $0.level / 2 == -1 }, swift: { $0.level / 2 == -1 }),
            TextShape(name: "level % 3 == -1", sql: { $0.level % 3 == -1 }, swift: { $0.level % 3 == -1 }),
            TextShape(name: "-level < 0", sql: { -$0.level < 0 }, swift: { -$0.level < 0 }),
            TextShape(
                name: "scores[math] * 2 >= 6", sql: { $0.scores["math"] * 2 >= 6 },
                swift: { ($0.scores["math"] ?? -9) * 2 >= 6 }),
        ]
        for shape in shapes {
            let expected = records.filter(shape.swift).compactMap(\.id)
            let selected = try db.query(TextRecord.self).where(shape.sql).order { $0.id.ascending }.fetchAll()
                .compactMap(\.id)
            #expect(selected == expected, "\(backend.name): \(shape.name)")
        }
        #expect(throws: DatabaseError.self, "\(backend.name): division by zero") {
            try db.query(TextRecord.self).where { $0.level / 0 > 1 }.fetchAll()
        }
        let changed = try db.query(TextRecord.self).updateAll { [$0.level.set(to: -$0.level)] }
        #expect(changed == records.count)
        for index in records.indices { records[index].level = -records[index].level }
        #expect(
            try db.query(TextRecord.self).order { $0.id.ascending }.fetchAll()
                == records)
    }
}

/// `sum`, `min`, `max` and `average` of TextRecord columns, as one backend computed them.
struct TextAggregates: Equatable {
    var levelSum: Int
    var levelMin: Int?
    var levelMax: Int?
    var levelAverage: Double?
    var nickMax: String?
    var mathSum: Int
    var mathAverage: Double?
}

// Aggregates and keyset pagination on both backends.
enum QueryAggregateParityChecks {
    /// The aggregates of `TextRecord` columns over the rows `query` selects.
    static func aggregates(of query: Query<TextRecord>) throws -> TextAggregates {
        TextAggregates(
            levelSum: try query.sum { $0.level }, levelMin: try query.min { $0.level },
            levelMax: try query.max { $0.level }, levelAverage: try query.average { $0.level },
            nickMax: try query.max { $0.nick }, mathSum: try query.sum { $0.scores["math"] },
            mathAverage: try query.average { $0.scores["math"] })
    }

    static func aggregates(_ db: some ModelContext, _ backend: ParityBackend) throws {
        let records = try QueryLanguageParityChecks.insertRandom(db, count: 80, seed: 11)
        let conditions: [(String, (Columns<TextRecord>) -> Condition, (TextRecord) -> Bool)] = [
            ("all", { $0.level > -100 }, { $0.level > -100 }),
            ("none", { $0.level > 100 }, { $0.level > 100 }),
            ("text contains a", { $0.text.contains("a") }, { $0.text.bytesContain("a") }),
        ]
        for (name, condition, swift) in conditions {
            let rows = records.filter(swift)
            let levels = rows.map(\.level)
            let maths = rows.compactMap { $0.scores["math"] }
            let expected = TextAggregates(
                levelSum: levels.reduce(0, +), levelMin: levels.min(), levelMax: levels.max(),
                levelAverage: levels.isEmpty ? nil : Double(levels.reduce(0, +)) / Double(levels.count),
                nickMax: rows.compactMap(\.nick).max { $0.bytesPrecede($1) },
                mathSum: maths.reduce(0, +),
                mathAverage: maths.isEmpty ? nil : Double(maths.reduce(0, +)) / Double(maths.count))
            var actual = try aggregates(of: db.query(TextRecord.self).where(condition))
            // Averages agree to rounding.
            for (keyPath, value) in [
                (\TextAggregates.levelAverage, expected.levelAverage), (\.mathAverage, expected.mathAverage),
            ] {
                if let got = actual[keyPath: keyPath], let value, abs(got - value) < 1e-9 {
                    actual[keyPath: keyPath] = value
                }
            }
            #expect(actual == expected, "\(backend.name): \(name)")
        }
    }

    /// Walking the pages gives every row once, in the order of the same query without pages.
    static func pagination(_ db: some ModelContext, _ backend: ParityBackend) throws {
        let records = try QueryLanguageParityChecks.insertRandom(db, count: 50, seed: 3)
        let both = { (record: TextRecord) in "\(record.nick ?? "<nil>")|\(record.level)" }
        let orders: [((Columns<TextRecord>) -> Ordering, (TextRecord) -> String)] = [
            ({ [$0.nick.ascending, $0.level.descending] }, both),  // each backend's own NULL placement
            ({ [$0.nick.descending(nulls: .first), $0.level.ascending] }, both),
            ({ $0.level.descending }, { "\($0.level)" }),
        ]
        for (order, key) in orders {
            let whole = try db.query(TextRecord.self).order(order).fetchAll()
            #expect(Set(whole.compactMap(\.id)) == Set(records.compactMap(\.id)))
            var walked: [TextRecord] = []
            var cursor: TextRecord?
            repeat {
                let page = try db.query(TextRecord.self).order(order).page(after: cursor, limit: 7).fetchAll()
                walked += page
                cursor = page.last
                if page.isEmpty { break }
            } while walked.count <= records.count
            #expect(walked.compactMap(\.id).count == records.count, "\(backend.name)")
            // The pages follow the same sort keys (ties on them broken by id, inside each tie).
            #expect(walked.map(key) == whole.map(key), "\(backend.name)")
        }
    }
}
