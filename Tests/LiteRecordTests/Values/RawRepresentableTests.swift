import Foundation
import LiteRecord
import Testing

private enum Team: String, DatabaseValueConvertible, CaseIterable {
    case red, blue
    case quoted = "it's -- ; DROP TABLE t"
}

private enum Level: Int8, DatabaseValueConvertible {
    case low = 1
    case high = 100
}

private struct Ticket: RawRepresentable, DatabaseValueConvertible, Equatable {
    var rawValue: UUID
}

private struct EvenNumber: RawRepresentable, DatabaseValueConvertible, Equatable {
    let rawValue: Int
    init?(rawValue: Int) {
        guard rawValue % 2 == 0 else { return nil }
        self.rawValue = rawValue
    }
}

/// Raw-value types stored as their raw values with no code of their own.
@Suite struct RawRepresentableTests {
    @Test func storedAsRawValue() throws {
        #expect(Team.databaseColumnType == .text)
        #expect(Level.databaseColumnType == .integer)
        #expect(Ticket.databaseColumnType == .text)
        #expect(try Team.red.databaseValue() == .text("red"))
        #expect(try Level.high.databaseValue() == .integer(100))
        let uuid = UUID()
        #expect(try Ticket(rawValue: uuid).databaseValue() == .text(uuid.uuidString))
    }

    @Test func roundTripThroughDatabase() throws {
        let db = try Database(.inMemory)
        try db.execute(sql: "CREATE TABLE t(id INTEGER PRIMARY KEY, team TEXT, level INTEGER, ticket TEXT)")
        let ticket = Ticket(rawValue: UUID())
        for (id, team) in Team.allCases.enumerated() {
            try db.execute(sql: "INSERT INTO t VALUES (\(id), \(team), \(Level.high), \(ticket))")
        }
        try db.execute(sql: "INSERT INTO t VALUES (99, \(Team?.none), \(Level?.none), NULL)")
        let rows = try db.fetchAll(
            Row.self, sql: "SELECT team, level, ticket, typeof(team) FROM t ORDER BY id")
        #expect(try rows.dropLast().map { try $0.value(Team.self, at: 0) } == Team.allCases)
        #expect(try rows.dropLast().allSatisfy { try $0.value(Level.self, at: 1) == .high })
        #expect(try rows.dropLast().allSatisfy { try $0.value(Ticket.self, at: 2) == ticket })
        #expect(try rows.dropLast().allSatisfy { try $0.value(String.self, at: 3) == "text" })
        let last = try #require(rows.last)
        #expect(try last.value(Team?.self, at: 0) == nil)
        #expect(try last.value(Level?.self, at: 1) == nil)
        // The raw value is bound, never spliced: the quoted case is stored as is.
        let count = try db.fetchOne(Row.self, sql: "SELECT count(*) FROM t WHERE team = \(Team.quoted)")
        #expect(try count?.value(Int.self, at: 0) == 1)
    }

    @Test func unknownRawValueIsAnError() throws {
        let error = try #require(throws: ValueConversionError.self) {
            try Team.fromDatabaseValue(.text("purple"))
        }
        #expect(error.value == .text("purple"))
        #expect(error.swiftType == "Team")
        #expect(error.description == "cannot read TEXT value 'purple' as Team: no Team has this raw value")

        let level = try #require(throws: ValueConversionError.self) {
            try Level.fromDatabaseValue(.integer(2))
        }
        #expect(level.description == "cannot read INTEGER value 2 as Level: no Level has this raw value")

        let odd = try #require(throws: ValueConversionError.self) {
            try EvenNumber.fromDatabaseValue(.integer(3))
        }
        #expect(odd.description.contains("INTEGER value 3 as EvenNumber: no EvenNumber has this raw value"))
        #expect(try EvenNumber.fromDatabaseValue(.integer(4)) == EvenNumber(rawValue: 4))
    }

    @Test func rawValueOfTheWrongKindIsAnError() throws {
        let team = try #require(throws: ValueConversionError.self) { try Team.fromDatabaseValue(.integer(1)) }
        #expect(
            team.description == "cannot read INTEGER value 1 as Team: expected a raw value of type String")

        let level = try #require(throws: ValueConversionError.self) {
            try Level.fromDatabaseValue(.integer(300))
        }
        #expect(
            level.description
                == "cannot read INTEGER value 300 as Level: expected a raw value of type Int8 (out of range)")

        let ticket = try #require(throws: ValueConversionError.self) {
            try Ticket.fromDatabaseValue(.text("x"))
        }
        #expect(
            ticket.description.hasPrefix(
                "cannot read TEXT value 'x' as Ticket: expected a raw value of type UUID ("))

        let null = try #require(throws: ValueConversionError.self) { try Team.fromDatabaseValue(.null) }
        #expect(
            null.description == "cannot read NULL value NULL as Team: expected a raw value of type String")
    }
}
