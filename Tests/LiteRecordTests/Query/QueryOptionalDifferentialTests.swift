import Foundation
import LiteRecord
import Testing

// Differential tests of the query language on optional columns, arithmetic, text functions,
// optional nested values and arrays of structs: every predicate must select exactly the rows for
// which the same condition, evaluated in Swift on the decoded models, is true. Where Swift has no
// spelling (`<` on an optional), the Swift side says what LiteRecord promises: `nil` never
// satisfies an ordering comparison or a string predicate.

private struct OptAddress: Codable, Equatable, Sendable {
    var city: String
    var zip: String?
}

private struct OptLine: Codable, Equatable, Sendable {
    var sku: String
    var quantity: Int
    var tags: [String]
}

private struct OptRecord: Model, Equatable {
    var id: Int64?
    var name: String
    var level: Int
    var divisor: Int
    var bonus: Int?
    var extra: Int?
    var big: Int64?
    var freight: Double?
    var orderDate: Date?
    var nick: String?
    var scores: [String: Int]
    var address: OptAddress?
    var lines: [OptLine]

    static let schema = Schema<OptRecord>(table: "opt_records", indexes: [[\.big], [\.nick]])
}

/// The condition on an optional value, `false` for `nil`.
private func holds<T>(_ value: T?, _ predicate: (T) -> Bool) -> Bool { value.map(predicate) ?? false }

/// Lowercases ASCII letters only, as SQLite's NOCASE does.
private func asciiLowercased(_ text: String) -> String {
    String(decoding: text.utf8.map { (65...90).contains($0) ? $0 + 32 : $0 }, as: UTF8.self)
}

private struct OptShape {
    let name: String
    /// Whether matching no row, or every row, is acceptable (otherwise the shape is too weak).
    let mayBeTrivial: Bool
    let sql: (Columns<OptRecord>) -> Condition
    let swift: (OptRecord) -> Bool
    let sourceLocation: SourceLocation
}

private func shape(
    name: String = "", trivial: Bool = false, sourceLocation: SourceLocation = #_sourceLocation,
    _ sql: @escaping (Columns<OptRecord>) -> Condition, _ swift: @escaping (OptRecord) -> Bool
) -> OptShape {
    OptShape(name: name, mayBeTrivial: trivial, sql: sql, swift: swift, sourceLocation: sourceLocation)
}

private struct OptGenerator {
    var random: SeededGenerator

    static let names = [
        "abc", "ABC", "Abc", "\u{C9}cole", "\u{E9}cole", "Stra\u{DF}e", "STRASSE", "\u{1F44D}\u{1F3FD}", "",
        "a%b", "x_y", "z\u{0}z", "Bob", "bob", "\u{130}stanbul",
    ]
    static let nicks = [
        "a", "A", "ab", "aB", "", "%", "\u{E9}", "\u{C9}", "\u{C9}T\u{C9}", "b\u{1F600}", "x_y", "_", "B",
    ]
    static let cities = ["Paris", "paris", "Porto", "Oslo", "", "\u{C9}vora"]
    static let skus = ["A1", "a1", "B2", "A10", "C"]
    static let keys = ["math", "art"]
    static let baseDate = Date(timeIntervalSinceReferenceDate: 700_000_000.5)

    mutating func chance(_ probability: Double) -> Bool {
        Double.random(in: 0..<1, using: &random) < probability
    }
    mutating func pick<T>(_ values: [T]) -> T { values[Int.random(in: 0..<values.count, using: &random)] }
    mutating func maybe<T>(_ value: T) -> T? { chance(0.3) ? nil : value }

    mutating func record() -> OptRecord {
        let lineCount = Int.random(in: 0...3, using: &random)
        return OptRecord(
            id: nil, name: pick(Self.names), level: Int.random(in: -12...12, using: &random),
            divisor: pick([-3, -2, -1, 1, 2, 3, 7]),
            bonus: maybe(Int.random(in: -6...6, using: &random)),
            extra: maybe(Int.random(in: -6...6, using: &random)),
            big: maybe(
                chance(0.1)
                    ? pick([Int64.max, Int64.min, 0]) : Int64.random(in: -1_000...1_000, using: &random)),
            freight: maybe(
                chance(0.1) ? pick([0, -0.0, 100, 1e300]) : Double.random(in: -50...250, using: &random)),
            orderDate: maybe(
                Self.baseDate.addingTimeInterval(
                    Double(Int.random(in: -1_000...1_000, using: &random)) * 3_600.25)),
            nick: maybe(pick(Self.nicks)),
            scores: Dictionary(
                uniqueKeysWithValues: Self.keys.filter { _ in chance(0.6) }.map {
                    ($0, Int.random(in: -3...6, using: &random))
                }),
            address: chance(0.3)
                ? nil : OptAddress(city: pick(Self.cities), zip: maybe(pick(["75001", "4000", ""]))),
            lines: (0..<lineCount).map { _ in
                OptLine(
                    sku: pick(Self.skus), quantity: Int.random(in: 0...5, using: &random),
                    tags: (0..<Int.random(in: 0...2, using: &random)).map { _ in pick(["x", "ab", "Ab"]) })
            })
    }
}

private struct OptFixture {
    let db: Database
    let all: [OptRecord]

    init(seed: UInt64 = 4_242, count: Int = 1_500) throws {
        db = try Database(.inMemory)
        var generator = OptGenerator(random: SeededGenerator(seed: seed))
        let inserted = try db.insert(contentsOf: (0..<count).map { _ in generator.record() })
        all = try db.query(OptRecord.self).order { $0.id.ascending }.fetchAll()
        #expect(all == inserted, "models must survive the round trip for the Swift side to be fair")
    }

    func verify(_ shapes: [OptShape]) throws {
        for shape in shapes {
            let sourceLocation = shape.sourceLocation
            let query = db.query(OptRecord.self).where(shape.sql)
            let expected = Set(all.filter(shape.swift).compactMap(\.id))
            let ids = Set(try query.fetchAll().compactMap(\.id))
            let wrong = all.filter { ids.contains($0.id!) != expected.contains($0.id!) }.prefix(2)
            let agrees = ids == expected
            #expect(
                agrees,
                "\(shape.name) \(query.sqlDescription): \(ids.count) rows, Swift says \(expected.count); \(wrong)",
                sourceLocation: sourceLocation)
            #expect(try query.count() == expected.count, "count", sourceLocation: sourceLocation)
            #expect(
                shape.mayBeTrivial || (!expected.isEmpty && expected.count < all.count),
                "\(shape.name) is trivial on this data: \(expected.count) rows",
                sourceLocation: sourceLocation)
            // Negation: a condition is never SQL's unknown, so `!` selects exactly the other rows.
            let negated = Set(
                try db.query(OptRecord.self).where { !shape.sql($0) }.fetchAll().compactMap(\.id))
            let negationAgrees = negated == Set(all.compactMap(\.id)).subtracting(expected)
            #expect(
                negationAgrees, "negation of \(shape.name): \(negated.count) rows",
                sourceLocation: sourceLocation)
        }
    }
}

@Suite struct QueryOptionalDifferentialTests {
    @Test func comparisonsOnOptionalColumns() throws {
        let fixture = try OptFixture()
        let lastID: Int64 = 250
        let cutoff = OptGenerator.baseDate
        let bonus = 2
        let ints = [1, 3, 5]
        try fixture.verify([
            shape({ $0.big > lastID }, { r in holds(r.big) { $0 > lastID } }),
            shape({ $0.big <= 0 }, { r in holds(r.big) { $0 <= 0 } }),
            shape({ $0.id > 700 }, { r in holds(r.id) { $0 > 700 } }),
            shape({ $0.orderDate < cutoff }, { r in holds(r.orderDate) { $0 < cutoff } }),
            shape({ $0.orderDate >= cutoff }, { r in holds(r.orderDate) { $0 >= cutoff } }),
            shape({ $0.freight >= 100.0 }, { r in holds(r.freight) { $0 >= 100.0 } }),
            shape({ $0.freight < 0 }, { r in holds(r.freight) { $0 < 0 } }),
            shape({ $0.bonus > 2 }, { r in holds(r.bonus) { $0 > 2 } }),
            shape({ $0.bonus == bonus }, { $0.bonus == bonus }),
            shape({ $0.bonus != bonus }, { $0.bonus != bonus }),
            shape({ $0.bonus == 3 || $0.bonus < -3 }, { r in r.bonus == 3 || holds(r.bonus) { $0 < -3 } }),
            shape({ $0.level > $0.bonus }, { r in holds(r.bonus) { r.level > $0 } }),
            shape({ $0.bonus <= $0.level }, { r in holds(r.bonus) { $0 <= r.level } }),
            shape({ $0.bonus >= $0.extra }, { r in holds(r.bonus) { b in holds(r.extra) { b >= $0 } } }),
            shape({ $0.bonus == $0.level }, { $0.bonus == $0.level }),
            shape({ $0.level != $0.bonus }, { $0.level != $0.bonus }),
            shape({ $0.bonus == $0.extra }, { $0.bonus == $0.extra }),
            shape({ $0.bonus.in(ints) }, { r in holds(r.bonus) { ints.contains($0) } }),
            shape({ ints.contains($0.bonus) }, { r in holds(r.bonus) { ints.contains($0) } }),
            shape({ [2, nil].contains($0.bonus) }, { [2, nil].contains($0.bonus) }),
            shape({ (1...3).contains($0.bonus) }, { r in holds(r.bonus) { (1...3).contains($0) } }),
            shape({ (-2..<2).contains($0.bonus) }, { r in holds(r.bonus) { (-2..<2).contains($0) } }),
            shape(
                { (0.0...100.0).contains($0.freight) },
                { r in holds(r.freight) { (0.0...100.0).contains($0) } }),
            shape({ $0.scores["math"] > 3 }, { r in holds(r.scores["math"]) { $0 > 3 } }),
            shape({ $0.scores["art"] <= 0 }, { r in holds(r.scores["art"]) { $0 <= 0 } }),
            shape({ $0.scores["art"] < $0.level }, { r in holds(r.scores["art"]) { $0 < r.level } }),
        ])
    }

    @Test func stringPredicatesOnOptionalColumns() throws {
        let fixture = try OptFixture()
        var shapes: [OptShape] = []
        let lower = asciiLowercased
        let operations: [(String, (Column<String?>, String) -> Condition, (String, String) -> Bool)] = [
            ("hasPrefix", { $0.hasPrefix($1) }, { $0.hasPrefix($1) }),
            ("hasSuffix", { $0.hasSuffix($1) }, { $0.hasSuffix($1) }),
            ("contains", { $0.contains($1) }, { $0.contains($1) }),
            ("ciHasPrefix", { $0.caseInsensitiveHasPrefix($1) }, { lower($0).hasPrefix(lower($1)) }),
            ("ciHasSuffix", { $0.caseInsensitiveHasSuffix($1) }, { lower($0).hasSuffix(lower($1)) }),
            ("ciContains", { $0.caseInsensitiveContains($1) }, { lower($0).contains(lower($1)) }),
            ("ciEquals", { $0.caseInsensitiveEquals($1) }, { lower($0) == lower($1) }),
        ]
        for (label, sql, swift) in operations {
            for needle in ["", "a", "A", "b", "%", "_", "\u{E9}", "\u{C9}"] {
                // Nothing contains "" (Foundation's `contains`): no row matches.
                let trivial = needle.isEmpty && label.hasSuffix("ontains")
                shapes.append(
                    shape(
                        name: "nick.\(label)(\(needle.debugDescription))", trivial: trivial,
                        { sql($0.nick, needle) }, { r in holds(r.nick) { swift($0, needle) } }))
            }
        }
        shapes += [
            shape({ $0.name.caseInsensitiveEquals("bob") }, { lower($0.name) == "bob" }),
            shape(
                trivial: true, { $0.name.contains("") || $0.name.caseInsensitiveContains("") },
                { $0.name.contains("") }),
            shape({ $0.name.isEmpty }, { $0.name.isEmpty }),
            shape({ $0.address.city.hasPrefix("P") }, { r in holds(r.address?.city) { $0.hasPrefix("P") } }),
        ]
        try fixture.verify(shapes)
    }

    @Test func arithmeticAndTextFunctions() throws {
        let fixture = try OptFixture()
        try fixture.verify([
            shape({ $0.level + $0.bonus >= 5 }, { r in holds(r.bonus) { r.level + $0 >= 5 } }),
            shape({ $0.bonus + $0.level < 0 }, { r in holds(r.bonus) { $0 + r.level < 0 } }),
            shape(
                { $0.bonus + $0.extra == 0 }, { r in holds(r.bonus) { b in holds(r.extra) { b + $0 == 0 } } }),
            shape({ $0.bonus * 2 == 4 }, { r in r.bonus.map { $0 * 2 } == 4 }),
            shape({ $0.bonus - 1 > 0 }, { r in holds(r.bonus) { $0 - 1 > 0 } }),
            shape({ $0.bonus % 2 == -1 }, { r in r.bonus.map { $0 % 2 } == -1 }),
            shape({ -$0.bonus > 2 }, { r in holds(r.bonus) { -$0 > 2 } }),
            shape({ $0.level - 3 < 0 }, { $0.level - 3 < 0 }),
            shape({ $0.level * $0.level > 50 }, { $0.level * $0.level > 50 }),
            shape({ $0.level / 3 == -1 }, { $0.level / 3 == -1 }),
            shape({ $0.level % 3 == -1 }, { $0.level % 3 == -1 }),
            shape({ $0.level / $0.divisor > 1 }, { $0.level / $0.divisor > 1 }),
            shape({ $0.level % $0.divisor == 0 }, { $0.level % $0.divisor == 0 }),
            shape({ -$0.level > 3 }, { -$0.level > 3 }),
            shape({ -$0.level + 10 > 15 }, { -$0.level + 10 > 15 }),
            shape({ $0.level - $0.divisor == $0.bonus }, { $0.level - $0.divisor == $0.bonus }),
            shape({ $0.freight / 2.0 > 60 }, { r in holds(r.freight) { $0 / 2.0 > 60 } }),
            shape({ $0.freight * 3 + 1 < 0 }, { r in holds(r.freight) { $0 * 3 + 1 < 0 } }),
            shape({ $0.name.lowercased() == "\u{E9}cole" }, { $0.name.lowercased() == "\u{E9}cole" }),
            shape({ $0.name.uppercased() == "STRASSE" }, { $0.name.uppercased() == "STRASSE" }),
            shape(
                { $0.name.lowercased() == "i\u{307}stanbul" }, { $0.name.lowercased() == "i\u{307}stanbul" }),
            shape({ $0.name.count == 1 }, { $0.name.count == 1 }),
            shape({ $0.name.count >= 5 }, { $0.name.count >= 5 }),
            shape({ $0.nick.count > 1 }, { r in holds(r.nick) { $0.count > 1 } }),
            shape({ $0.nick.lowercased() == "\u{E9}t\u{E9}" }, { $0.nick?.lowercased() == "\u{E9}t\u{E9}" }),
            shape({ $0.nick.uppercased() == "AB" }, { $0.nick?.uppercased() == "AB" }),
        ])
    }

    @Test func optionalNestedValuesAndArraysOfStructs() throws {
        let fixture = try OptFixture()
        try fixture.verify([
            shape({ $0.address.city == "Paris" }, { $0.address?.city == "Paris" }),
            shape({ $0.address.city != "Paris" }, { $0.address?.city != "Paris" }),
            shape({ $0.address.city == nil }, { $0.address?.city == nil }),
            shape({ $0.address.city < "P" }, { r in holds(r.address?.city) { $0 < "P" } }),
            shape({ $0.address.zip == nil }, { $0.address?.zip == nil }),
            shape({ $0.address.zip == "4000" }, { $0.address?.zip == "4000" }),
            shape(
                { $0.address != nil && $0.address.zip == nil },
                { $0.address != nil && $0.address?.zip == nil }),
            shape({ $0.lines.contains { $0.sku == "A1" } }, { r in r.lines.contains { $0.sku == "A1" } }),
            shape(
                { $0.lines.contains { $0.sku.hasPrefix("A") && $0.quantity > 2 } },
                { r in r.lines.contains { $0.sku.hasPrefix("A") && $0.quantity > 2 } }),
            shape({ $0.lines.contains { $0.quantity >= $0.quantity + 0 } }, { !$0.lines.isEmpty }),
            shape(
                { $0.lines.contains { $0.tags.contains("ab") } },
                { r in r.lines.contains { $0.tags.contains("ab") } }),
            shape(
                { $0.lines.contains { $0.tags.contains { $0.caseInsensitiveEquals("AB") } } },
                { r in r.lines.contains { line in line.tags.contains { asciiLowercased($0) == "ab" } } }),
            shape(
                { $0.lines.contains { $0.sku == "C" } && $0.level > 0 },
                { r in r.lines.contains { $0.sku == "C" } && r.level > 0 }),
        ])
    }

    @Test func aggregatesOfOptionalColumns() throws {
        let fixture = try OptFixture()
        let query = fixture.db.query(OptRecord.self)
        let freights = fixture.all.compactMap(\.freight)
        let bonuses = fixture.all.compactMap(\.bonus)
        let dates = fixture.all.compactMap(\.orderDate)
        let maxFreight: Double? = try query.max { $0.freight }
        #expect(maxFreight == freights.max())
        #expect(try query.min { $0.freight } == freights.min())
        #expect(try query.max { $0.bonus } == bonuses.max())
        #expect(try query.min { $0.bonus } == bonuses.min())
        let bonusSum: Int = try query.sum { $0.bonus }
        #expect(bonusSum == bonuses.reduce(0, +))
        let freightSum: Double = try query.sum { $0.freight }
        #expect(abs(freightSum - freights.reduce(0, +)) <= 1e-6 * freights.map(abs).reduce(0, +))
        let average = try #require(try query.average { $0.bonus })
        #expect(abs(average - Double(bonuses.reduce(0, +)) / Double(bonuses.count)) < 1e-9)
        let latest: Date? = try query.max { $0.orderDate }
        #expect(latest == dates.max())
        #expect(try query.min { $0.orderDate } == dates.min())
        // No value at all: nil for min, max and average, 0 for sum.
        let none = query.where { $0.bonus == nil }
        #expect(try none.max { $0.bonus } == nil)
        #expect(try none.average { $0.bonus } == nil)
        #expect(try none.sum { $0.bonus } == 0)
        #expect(try query.where { $0.level > 100 }.max { $0.freight } == nil)
    }

    @Test func orderingWithoutADirection() throws {
        let fixture = try OptFixture(count: 300)
        let query = fixture.db.query(OptRecord.self)
        let plain = try query.order { $0.level }.fetchAll().map(\.level)
        #expect(plain == fixture.all.map(\.level).sorted())
        #expect(try query.order { $0.name }.fetchAll() == (try query.order { $0.name.ascending }.fetchAll()))
        let mixed = try query.order { [$0.level, $0.id.descending] }.fetchAll()
        let expected = fixture.all.sorted { ($0.level, $1.id!) < ($1.level, $0.id!) }
        #expect(mixed == expected)
    }
}

@Suite struct QueryArithmeticErrorTests {
    private struct Pair: Model, Equatable {
        var id: Int64?
        var a: Int
        var b: Int
        static let schema = Schema<Pair>(table: "arith_pairs")
    }

    @Test func integerDivisionByZeroIsAnErrorAndChangesNothing() throws {
        let db = try Database(.inMemory)
        try db.insert(contentsOf: [Pair(id: nil, a: 7, b: 2), Pair(id: nil, a: 1, b: 0)])
        let before = try db.query(Pair.self).order { $0.id }.fetchAll()
        for run in [
            { _ = try db.query(Pair.self).where { $0.a / $0.b > 0 }.fetchAll() },
            { _ = try db.query(Pair.self).where { $0.a % $0.b == 0 }.count() },
            { try db.query(Pair.self).updateAll { [$0.a.set(to: $0.a / $0.b)] } },
        ] as [() throws -> Void] {
            let error = #expect(throws: DatabaseError.self) { try run() }
            #expect(error?.message.contains("division by zero") == true, "\(String(describing: error))")
        }
        #expect(try db.query(Pair.self).order { $0.id }.fetchAll() == before)
        // Where the divisor is never 0, the same expressions work.
        #expect(try db.query(Pair.self).where { $0.b != 0 && $0.a / $0.b == 3 }.count() == 1)
    }

    @Test func negatingTheSmallestIntegerIsAnError() throws {
        let db = try Database(.inMemory)
        try db.insert(contentsOf: [Pair(id: nil, a: Int.min, b: 1)])
        let error = #expect(throws: DatabaseError.self) {
            try db.query(Pair.self).updateAll { [$0.a.set(to: -$0.a)] }
        }
        #expect(error?.message.contains("overflow") == true, "\(String(describing: error))")
        #expect(try db.query(Pair.self).fetchAll().map(\.a) == [Int.min])
        #expect(throws: DatabaseError.self) { try db.query(Pair.self).where { $0.a / -1 > 0 }.count() }
    }

    @Test func floatingPointDivisionFollowsIEEE() throws {
        struct Ratio: Model, Equatable {
            var id: Int64?
            var x: Double
            var y: Double
        }
        let db = try Database(.inMemory)
        try db.insert(contentsOf: [
            Ratio(id: nil, x: 1, y: 0), Ratio(id: nil, x: 1, y: 4), Ratio(id: nil, x: -3, y: 2),
        ])
        #expect(try db.query(Ratio.self).where { $0.x / $0.y > 1e308 }.count() == 1)
        #expect(try db.query(Ratio.self).where { $0.x / $0.y == 0.25 }.count() == 1)
        #expect(try db.query(Ratio.self).where { $0.x / $0.y == -1.5 }.count() == 1)
    }
}
