import Foundation
import LiteRecord
import Testing

/// A value that stores itself in one INTEGER column, so it is not JSON.
private struct ErrCents: Codable, Equatable, Sendable, DatabaseValueConvertible {
    var cents: Int64
    static var databaseColumnType: DatabaseColumnType { .integer }
    func databaseValue() throws -> DatabaseValue { .integer(cents) }
    static func fromDatabaseValue(_ value: DatabaseValue) throws -> ErrCents {
        guard case .integer(let cents) = value else {
            throw ValueConversionError(value: value, to: ErrCents.self)
        }
        return ErrCents(cents: cents)
    }
}

private struct ErrStats: Codable, Equatable, Sendable {
    var wins: Int
    var label: String
    var ratio: Double { Double(wins) / 2 }
}

/// A nested value whose JSON keys are not its property names.
private struct ErrRenamed: Codable, Equatable, Sendable {
    var wins: Int
    var lossCount: Int
    var scratch = 0

    enum CodingKeys: String, CodingKey {
        case wins = "w"
        case lossCount = "loss_count"
    }
}

private struct ErrRenamedItem: Model, Equatable {
    var id: Int64?
    var stats: ErrRenamed
}

private struct ErrItem: Model, Equatable {
    var id: Int64?
    var name: String
    var score: Int
    var price: ErrCents
    var big: UInt64
    var weight: Double
    var stats: ErrStats
    var tags: [String]
    var cache: Int = 0
    var doubled: Int { score * 2 }

    enum CodingKeys: String, CodingKey {
        case id, name, score, price, big, weight, stats, tags
    }

    static let schema = Schema<ErrItem>(table: "err_items")
}

private func makeErrItems() throws -> Database {
    let db = try Database(.inMemory)
    try db.insert(
        contentsOf: (0..<4).map {
            ErrItem(
                id: nil, name: "n\($0)", score: $0, price: ErrCents(cents: Int64($0) * 100), big: UInt64($0),
                weight: 1,
                stats: ErrStats(wins: $0, label: "l\($0)"), tags: ["t\($0)"])
        })
    return db
}

/// Runs `body`, expecting a ``SchemaError`` whose message contains every fragment.
private func expectSchemaError(
    _ fragments: [String], sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> Void
) {
    let error = #expect(throws: SchemaError.self, sourceLocation: sourceLocation) { try body() }
    for fragment in fragments {
        #expect(
            error?.message.contains(fragment) == true, "\(String(describing: error))",
            sourceLocation: sourceLocation)
    }
}

@Suite struct QueryErrorTests {
    @Test func computedPropertyIsNotAColumn() throws {
        let db = try makeErrItems()
        let query = db.query(ErrItem.self).where { $0.doubled > 2 }
        // A computed property's key path has no name at run time (on Linux it prints as
        // `\ErrItem.<computed 0x... (Int)>`): the message shows the key path as Swift prints it.
        let fragments = [String(describing: \ErrItem.doubled), "not a stored property of ErrItem"]
        expectSchemaError(fragments) { _ = try query.fetchAll() }
        expectSchemaError(fragments) { _ = try query.fetchOne() }
        expectSchemaError(fragments) { _ = try query.count() }
        expectSchemaError(fragments) { _ = try query.exists() }
        // swift-format-ignore: ReplaceForEachWithForLoop
        expectSchemaError(fragments) { try query.forEach { _ in } }
        expectSchemaError(fragments) { _ = try query.sum { $0.score } }
        expectSchemaError(fragments) { _ = try query.updateAll { [$0.score.set(to: 1)] } }
        expectSchemaError(fragments) { _ = try query.deleteAll() }
        #expect(query.sqlDescription.hasPrefix("invalid query:"))
        #expect(query.sqlDescription.contains(String(describing: \ErrItem.doubled)))
        // Nothing was changed.
        #expect(try db.query(ErrItem.self).count() == 4)
        #expect(try db.query(ErrItem.self).sum { $0.score } == 6)
    }

    @Test func computedPropertyFailsWhereverItIsUsed() throws {
        let db = try makeErrItems()
        let all = db.query(ErrItem.self)
        let doubled = String(describing: \ErrItem.doubled)
        expectSchemaError([doubled]) { _ = try all.order { $0.doubled.descending }.fetchAll() }
        expectSchemaError([doubled]) {
            _ = try all.order { [$0.score.ascending, $0.doubled.ascending] }.fetchAll()
        }
        expectSchemaError([doubled]) { _ = try all.max { $0.doubled } }
        expectSchemaError([doubled]) { _ = try all.average { $0.doubled } }
        expectSchemaError([doubled]) { _ = try all.where { $0.score > 1 || $0.doubled == 2 }.fetchAll() }
        expectSchemaError([doubled]) { _ = try all.where { !($0.doubled == 2) }.count() }
        expectSchemaError([doubled]) { _ = try all.where { [1, 2].contains($0.doubled) }.count() }
        expectSchemaError([doubled]) { _ = try all.where { $0.score < $0.doubled }.count() }
        expectSchemaError([doubled]) { _ = try all.updateAll { [$0.score.set(to: $0.doubled)] } }
        expectSchemaError([String(describing: \ErrStats.ratio), "not a stored property"]) {
            _ = try all.where { $0.stats.ratio > 1 }.count()
        }
        #expect(try all.sum { $0.score } == 6)
    }

    @Test func propertyThatIsNotEncodedIsNotAColumn() throws {
        let db = try makeErrItems()
        expectSchemaError(["cache", "not encoded"]) {
            _ = try db.query(ErrItem.self).where { $0.cache == 0 }.count()
        }
    }

    @Test func jsonPathIntoAValueThatIsNotJSON() throws {
        let db = try makeErrItems()
        let all = db.query(ErrItem.self)
        expectSchemaError(["ErrCents.cents", "column price", "not stored as JSON"]) {
            _ = try all.where { $0.price.cents > 3 }.fetchAll()
        }
        expectSchemaError(["not stored as JSON"]) {
            _ = try all.order { $0.price.cents.ascending }.fetchAll()
        }
        // The value itself compares in its stored form.
        #expect(try all.where { $0.price == ErrCents(cents: 200) }.fetchAll().map(\.score) == [2])
    }

    @Test func countOfAValueThatIsNotAJSONCollection() throws {
        let db = try makeErrItems()
        let all = db.query(ErrItem.self)
        // Swift's `String.count` counts characters: a registered function counts them the same
        // way in SQL (it was an error before), in a column and inside JSON.
        #expect(try all.where { $0.name.count > 1 }.count() == 4)
        #expect(try all.where { $0.name.isEmpty }.count() == 0)
        #expect(try all.where { $0.stats.label.count == 2 }.count() == 4)
        #expect(try all.where { $0.tags.count == 1 }.count() == 4)
    }

    @Test func onlyTheModelsOwnColumnsCanBeSet() throws {
        let db = try makeErrItems()
        let all = db.query(ErrItem.self)
        expectSchemaError(["only a model's own columns can be set"]) {
            _ = try all.updateAll { [$0.stats.wins.set(to: 3)] }
        }
        expectSchemaError(["only a model's own columns can be set"]) {
            _ = try all.updateAll { [($0.score + 1).set(to: 3)] }
        }
        expectSchemaError(["only a model's own columns can be set"]) {
            _ = try all.updateAll { [$0.score.set(to: 1), $0.tags.count.set(to: 0)] }
        }
        #expect(try all.sum { $0.score } == 6)
        #expect(try all.where { $0.stats.wins == 3 }.count() == 1)
    }

    @Test func valuesThatCannotBeStoredAreErrors() throws {
        let db = try makeErrItems()
        let all = db.query(ErrItem.self)
        #expect(throws: ValueConversionError.self) { _ = try all.where { $0.big == .max }.fetchAll() }
        #expect(throws: ValueConversionError.self) {
            _ = try all.where { [1, .max].contains($0.big) }.count()
        }
        #expect(throws: ValueConversionError.self) { _ = try all.where { $0.big < .max }.exists() }
        #expect(throws: ValueConversionError.self) { _ = try all.updateAll { [$0.big.set(to: .max)] } }
        // NaN would be bound as NULL, and `!= NULL` is never true: an error instead.
        #expect(throws: ValueConversionError.self) { _ = try all.where { $0.weight != .nan }.count() }
        #expect(throws: ValueConversionError.self) { _ = try all.where { $0.weight > .nan }.count() }
        #expect(all.where { $0.big == .max }.sqlDescription.hasPrefix("invalid query:"))
        #expect(try all.where { $0.big == UInt64(Int64.max) }.count() == 0)
        #expect(try all.sum { $0.score } == 6)
    }

    @Test func invalidSQLConditionIsADatabaseError() throws {
        let db = try makeErrItems()
        let error = #expect(throws: DatabaseError.self) {
            _ = try db.query(ErrItem.self).where(sql: "no_such_column > \(1)").fetchAll()
        }
        #expect(error.map { "\($0)" }?.contains("no_such_column") == true)
        #expect(throws: DatabaseError.self) {
            _ = try db.query(ErrItem.self).where(sql: "score >").where { $0.score > 1 }.count()
        }
    }

    @Test func jsonMembersAreNamedByTheirCodingKeys() throws {
        let db = try Database(.inMemory)
        try db.insert(contentsOf: [ErrRenamedItem(id: nil, stats: ErrRenamed(wins: 3, lossCount: 1))])
        let all = db.query(ErrRenamedItem.self)
        let (wins, losses) = (
            try all.where { $0.stats.wins == 3 }.count(), try all.where { $0.stats.lossCount == 1 }.count()
        )
        let scratch = Result { try all.where { $0.stats.scratch == 0 }.count() }
        // The JSON path uses the nested type's coding keys ($."w"), not its property names; a
        // property that is not encoded is an error, not a path that reads NULL.
        #expect(wins == 1)
        #expect(losses == 1)
        #expect(throws: SchemaError.self) { try scratch.get() }
    }
}
