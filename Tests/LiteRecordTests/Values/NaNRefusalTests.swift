import Foundation
import LiteRecord
import Testing

private struct NaNMeasures: Model {
    var id: Int64?
    var double: Double = 0
    var float: Float = 0
    var decimal: Decimal = 0
}

/// NaN is refused in one message wherever it would be stored: a `Double`, `Float` or `Decimal`
/// value, and a raw SQL parameter. The message names the Swift type (or the parameter) and says
/// why once.
@Suite struct NaNRefusalTests {
    static let reason =
        "is NaN, which LiteRecord refuses on every backend, as not every database keeps it; "
        + "use an optional and nil for a missing value"

    @Test func eachTypeIsNamedWithTheSameReason() throws {
        let errors = [
            try #require(throws: ValueConversionError.self) { try Double.nan.databaseValue() },
            try #require(throws: ValueConversionError.self) { try Float.nan.databaseValue() },
            try #require(throws: ValueConversionError.self) { try Decimal.nan.databaseValue() },
        ]
        #expect(
            errors.map(\.description)
                == ["Double", "Float", "Decimal"].map {
                    "cannot store \($0): the value \(Self.reason)"
                })
        #expect(errors.map(\.swiftType) == ["Double", "Float", "Decimal"])
    }

    /// A model's NaN fails the insert, naming its property's type (a `Float` was reported as a
    /// `Double`), and nothing is stored.
    @Test(arguments: ["Double", "Float", "Decimal"])
    func aModelsNaNIsRefusedAndNothingIsStored(type: String) throws {
        let db = try Database(.inMemory)
        try db.migrate(NaNMeasures.self)
        var row = NaNMeasures()
        switch type {
        case "Double": row.double = .nan
        case "Float": row.float = .nan
        default: row.decimal = .nan
        }
        let error = try #require(throws: (any Error).self) { try db.insert(&row) }
        #expect("\(error)".contains("cannot store \(type): the value \(Self.reason)"), "\(error)")
        #expect(try db.count(NaNMeasures.self) == 0)
    }

    @Test func aParameterNaNIsRefusedInTheSameWords() throws {
        let db = try Database(.inMemory)
        try db.execute(sql: "CREATE TABLE t (x REAL)")
        let nan = DatabaseValue.real(.nan)
        let positional = try #require(throws: ValueConversionError.self) {
            try db.execute(sql: SQL("INSERT INTO t (x) VALUES (?)", arguments: [nan]))
        }
        #expect(positional.description == "cannot store Double: parameter 1 \(Self.reason)")
        let named = try #require(throws: ValueConversionError.self) {
            try db.execute(sql: SQL("INSERT INTO t (x) VALUES (:x)", arguments: ["x": nan]))
        }
        #expect(named.description == "cannot store Double: parameter :x \(Self.reason)")
        #expect(try db.fetchOne(Int.self, sql: "SELECT count(*) FROM t") == 0)
    }
}
