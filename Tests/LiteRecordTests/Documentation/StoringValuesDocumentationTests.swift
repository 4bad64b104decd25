// The README's "Storing values" section, line for line (see ReadmeCodeBlockTests).
import Foundation
import LiteRecord
import Testing

@Suite struct StoringValuesDocumentationTests {
    struct Money: Codable, DatabaseValueConvertible {           // INTEGER cents
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

    struct Color: Codable, DatabaseValueConvertible {           // TEXT #RRGGBB
        var red, green, blue: UInt8
        static var databaseColumnType: DatabaseColumnType { .text }
        func databaseValue() throws -> DatabaseValue {
            .text("#" + [red, green, blue].map { ($0 < 16 ? "0" : "") + String($0, radix: 16, uppercase: true) }.joined())
        }
        static func fromDatabaseValue(_ value: DatabaseValue) throws -> Color {
            guard case .text(let text) = value, text.utf8.count == 7, text.first == "#",
                  let rgb = UInt32(text.dropFirst(), radix: 16) else {
                throw ValueConversionError(value: value, to: Color.self, reason: "expected #RRGGBB")
            }
            return Color(red: UInt8(rgb >> 16), green: UInt8((rgb >> 8) & 0xFF), blue: UInt8(rgb & 0xFF))
        }
    }

    struct Purchase: Model {
        var id: Int64?
        var price: Money
        var color: Color
    }

    @Test func customStorageChoosesTheColumn() throws {
        let db = try Database(.inMemory)
        var purchase = Purchase(id: nil, price: Money(cents: 1999), color: Color(red: 255, green: 8, blue: 0))
        try db.insert(&purchase)
        let stored = try #require(try db.fetchOne(Row.self, sql: "SELECT price, color FROM purchase"))
        #expect(try stored.value(at: 0) == .integer(1999))
        #expect(try stored.value(at: 1) == .text("#FF0800"))
        let back = try #require(try db.find(Purchase.self, id: purchase.id!))
        #expect(back.price.cents == 1999)
        #expect([back.color.red, back.color.green, back.color.blue] == [255, 8, 0])
        try db.execute(sql: "UPDATE purchase SET color = 'red'")
        #expect(throws: RowDecodingError.self) { try db.find(Purchase.self, id: purchase.id!) }
    }
}
