import Foundation
import LiteRecord
import Testing

/// Money stored as INTEGER cents: the README's first custom storage example.
struct Money: Codable, Equatable, DatabaseValueConvertible {
    var cents: Int64

    static var databaseColumnType: DatabaseColumnType { .integer }

    func databaseValue() throws -> DatabaseValue { .integer(cents) }

    static func fromDatabaseValue(_ value: DatabaseValue) throws -> Money {
        guard case .integer(let cents) = value else {
            throw ValueConversionError(value: value, to: Money.self, reason: "expected INTEGER cents")
        }
        return Money(cents: cents)
    }
}

/// A color stored as TEXT `#RRGGBB`: the README's second custom storage example.
struct Color: Codable, Equatable, DatabaseValueConvertible {
    var red: UInt8
    var green: UInt8
    var blue: UInt8

    static var databaseColumnType: DatabaseColumnType { .text }

    func databaseValue() throws -> DatabaseValue {
        .text(
            "#"
                + [red, green, blue].map { byte in
                    let hex = String(byte, radix: 16, uppercase: true)
                    return hex.count == 1 ? "0" + hex : hex
                }.joined())
    }

    static func fromDatabaseValue(_ value: DatabaseValue) throws -> Color {
        guard case .text(let text) = value, text.utf8.count == 7, text.first == "#",
            let rgb = UInt32(text.dropFirst(), radix: 16)
        else {
            throw ValueConversionError(value: value, to: Color.self, reason: "expected #RRGGBB")
        }
        return Color(red: UInt8(rgb >> 16), green: UInt8((rgb >> 8) & 0xFF), blue: UInt8(rgb & 0xFF))
    }
}

private struct Product: Codable, Equatable {
    var name: String
    var price: Money
    var color: Color
    var palette: [Color]  // inside JSON, the Codable conformance is used
}

@Suite struct CustomStorageTests {
    @Test func conformingTypesChooseTheirColumnStorage() throws {
        let product = Product(
            name: "Lamp", price: Money(cents: 1999), color: Color(red: 255, green: 8, blue: 0),
            palette: [Color(red: 1, green: 2, blue: 3)])
        let row = try RowEncoder().encode(product)
        #expect(row["price"] == .integer(1999))
        #expect(row["color"] == .text("#FF0800"))
        #expect(row["palette"] == .text(#"[{"blue":3,"green":2,"red":1}]"#))

        let db = try Database(.inMemory)
        try db.execute(sql: "CREATE TABLE products(name TEXT, price INTEGER, color TEXT, palette TEXT)")
        try db.execute(
            sql: "INSERT INTO products VALUES (?, ?, ?, ?)",
            arguments: StatementArguments(positional: row.values))
        #expect(try db.fetchOne(Product.self, sql: "SELECT * FROM products") == product)
        #expect(
            try db.fetchOne(
                Int.self,
                sql: "SELECT sum(price) FROM products WHERE color = \(Color(red: 255, green: 8, blue: 0))")
                == 1999)
    }

    @Test func invalidStoredValueIsAnErrorWithTheTypesReason() throws {
        let db = try Database(.inMemory)
        let error = try #require(throws: RowDecodingError.self) {
            try db.fetchOne(
                Product.self, sql: "SELECT 'Lamp' AS name, 5 AS price, 'red' AS color, '[]' AS palette")
        }
        #expect(error.column == "color")
        #expect(error.description.contains("expected #RRGGBB"))
    }
}
