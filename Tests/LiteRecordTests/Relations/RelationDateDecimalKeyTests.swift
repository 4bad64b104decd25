import Foundation
import LiteRecord
import LiteRecordTestSupport
import Testing

// Issue #30's class for `Date` and `Decimal` keys: parents and children written by the `sqlite3`
// shell, as another tool would, each key in a spelling `where` already matches as a value (a
// date as text with or without 'T', fractional seconds or zone, or a unix number; a decimal as
// "1.50", "1.5", the REAL 1.5 or the INTEGER 2). Every relation API must match them as `where`
// does: including(all:), including(one:), through:, where(Parent.self), where(any:), and a
// composite key of a date and a decimal.

private struct RDEvent: Model, Equatable {
    var day: Date
    var title: String
    static let schema = Schema<RDEvent>(table: "rd_events", primaryKey: \.day)
}

private struct RDTicket: Model, Equatable {
    var id: Int64?
    var eventDay: Date?
    var name: String
    static let schema = Schema<RDTicket>(table: "rd_tickets").foreignKey(\.eventDay, references: RDEvent.self)
}

private struct RDPrice: Model, Equatable {
    var code: Decimal
    var label: String
    static let schema = Schema<RDPrice>(table: "rd_prices", primaryKey: \.code)
}

private struct RDOrder: Model, Equatable {
    var id: Int64?
    var priceCode: Decimal?
    var name: String
    static let schema = Schema<RDOrder>(table: "rd_orders").foreignKey(\.priceCode, references: RDPrice.self)
}

/// A junction between events and prices, both keys spelled by the other tool.
private struct RDEventPrice: Model, Equatable {
    var id: Int64?
    var eventDay: Date
    var priceCode: Decimal
    static let schema = Schema<RDEventPrice>(table: "rd_event_prices")
        .foreignKey(\.eventDay, references: RDEvent.self)
        .foreignKey(\.priceCode, references: RDPrice.self)
}

/// A parent with a composite key of a date and a decimal.
private struct RDSlot: Model, Equatable {
    var day: Date
    var price: Decimal
    var label: String
    static let schema = Schema<RDSlot>(table: "rd_slots", primaryKey: [\.day, \.price])
}

private struct RDBooking: Model, Equatable {
    var id: Int64?
    var slotDay: Date
    var slotPrice: Decimal
    var name: String
    static let schema = Schema<RDBooking>(table: "rd_bookings")
        .foreignKey([\.slotDay, \.slotPrice], references: RDSlot.self)
}

@Suite struct RelationDateDecimalKeyTests {
    // 2024-03-05 12:00:00 UTC and 2024-03-06 00:00:00 UTC.
    private static let noon = Date(timeIntervalSince1970: 1_709_640_000)
    private static let midnight = Date(timeIntervalSince1970: 1_709_683_200)

    /// The file: parents in one spelling, their children's keys in the others.
    private func makeFile(in directory: TemporaryDirectory) throws -> String {
        let path = directory.file("date-decimal-keys.sqlite")
        try SQLiteShell.write(
            path,
            """
            CREATE TABLE rd_events (day PRIMARY KEY, title TEXT NOT NULL);
            CREATE TABLE rd_tickets (id INTEGER PRIMARY KEY, eventDay, name TEXT NOT NULL);
            CREATE TABLE rd_prices (code PRIMARY KEY, label TEXT NOT NULL);
            CREATE TABLE rd_orders (id INTEGER PRIMARY KEY, priceCode, name TEXT NOT NULL);
            CREATE TABLE rd_event_prices (id INTEGER PRIMARY KEY, eventDay NOT NULL, priceCode NOT NULL);
            CREATE TABLE rd_slots (day, price, label TEXT NOT NULL, PRIMARY KEY (day, price));
            CREATE TABLE rd_bookings (id INTEGER PRIMARY KEY, slotDay NOT NULL, slotPrice NOT NULL,
                name TEXT NOT NULL);
            INSERT INTO rd_events VALUES ('2024-03-05 12:00:00', 'noon'), ('2024-03-06T00:00:00Z', 'midnight');
            INSERT INTO rd_tickets VALUES
                (1, '2024-03-05T12:00:00', 't-iso'), (2, '2024-03-05 12:00:00.000', 't-fraction'),
                (3, 1709640000, 't-unix'), (4, 1709640000.0, 't-real'), (5, '2024-03-05T12:00:00.000Z', 't-zulu'),
                (6, '2024-03-06 00:00:00', 'm-plain'), (7, 1709683200, 'm-unix'),
                (8, '2024-03-07 00:00:00', 'dangling'), (9, NULL, 'none');
            INSERT INTO rd_prices VALUES ('1.50', 'one fifty'), (2, 'two');
            INSERT INTO rd_orders VALUES
                (1, '1.5', 'o-short'), (2, 1.5, 'o-real'), (3, '1.500', 'o-long'), (4, '1.50', 'o-same'),
                (5, '2.0', 't-text'), (6, 2.0, 't-real'), (7, 2, 't-integer'), (8, '3', 'dangling'),
                (9, NULL, 'none');
            INSERT INTO rd_event_prices (eventDay, priceCode) VALUES
                ('2024-03-05T12:00:00Z', '1.5'), (1709640000, 2.0), ('2024-03-06 00:00:00.000', 1.5);
            INSERT INTO rd_slots VALUES ('2024-03-05 12:00:00', '1.50', 'noon-150'), (1709683200, 2, 'midnight-2');
            INSERT INTO rd_bookings VALUES
                (1, '2024-03-05T12:00:00', 1.5, 'b1'), (2, 1709640000, '1.5', 'b2'),
                (3, '2024-03-06 00:00:00', '2.00', 'b3'), (4, '2024-03-06T00:00:00', 1.5, 'other');
            """)
        return path
    }

    private func names<T>(_ rows: [T], _ name: (T) -> String) -> [String] { rows.map(name).sorted() }

    /// `where` already matches each spelling as a value: the relation APIs must agree with it.
    @Test func whereMatchesEverySpelling() throws {
        try withTemporaryDirectory { directory in
            let db = try Database(.file(try makeFile(in: directory)))
            let noon = Self.noon
            let atNoon = try db.query(RDTicket.self).where { $0.eventDay == noon }.count()
            #expect(atNoon == 5)
            let price = Decimal(string: "1.5")!
            let atOneFifty = try db.query(RDOrder.self).where { $0.priceCode == price }.count()
            #expect(atOneFifty == 4)
        }
    }

    @Test func includingMatchesDateAndDecimalKeysAsValues() throws {
        try withTemporaryDirectory { directory in
            let db = try Database(.file(try makeFile(in: directory)))
            let events = try db.query(RDEvent.self).order { $0.title }.including(all: RDTicket.self)
                .fetchAll()
            let eventTickets = events.map { [$0.0.title] + names($0.1, \.name) }
            #expect(
                eventTickets == [
                    ["midnight", "m-plain", "m-unix"],
                    ["noon", "t-fraction", "t-iso", "t-real", "t-unix", "t-zulu"],
                ])
            let tickets = try db.query(RDTicket.self).order { $0.id }.including(one: RDEvent.self).fetchAll()
            let ticketEvents = tickets.map { $0.1?.title }
            #expect(
                ticketEvents == ["noon", "noon", "noon", "noon", "noon", "midnight", "midnight", nil, nil])

            let prices = try db.query(RDPrice.self).order { $0.label }.including(all: RDOrder.self).fetchAll()
            let priceOrders = prices.map { [$0.0.label] + names($0.1, \.name) }
            #expect(
                priceOrders == [
                    ["one fifty", "o-long", "o-real", "o-same", "o-short"],
                    ["two", "t-integer", "t-real", "t-text"],
                ])
            let orders = try db.query(RDOrder.self).order { $0.id }.including(one: RDPrice.self).fetchAll()
            let orderPrices = orders.map { $0.1?.label }
            #expect(
                orderPrices == [
                    "one fifty", "one fifty", "one fifty", "one fifty", "two", "two", "two", nil, nil,
                ])
        }
    }

    @Test func relationFiltersMatchDateAndDecimalKeysAsValues() throws {
        try withTemporaryDirectory { directory in
            let db = try Database(.file(try makeFile(in: directory)))
            let noonTickets = try db.query(RDTicket.self).where(RDEvent.self) { $0.title == "noon" }
                .fetchAll()
            #expect(names(noonTickets, \.name) == ["t-fraction", "t-iso", "t-real", "t-unix", "t-zulu"])
            let withUnix = try db.query(RDEvent.self).where(any: RDTicket.self) { $0.name == "m-unix" }
                .fetchAll()
            #expect(withUnix.map(\.title) == ["midnight"])
            let withReal = try db.query(RDEvent.self).where(any: RDTicket.self) { $0.name == "t-real" }
                .count()
            #expect(withReal == 1)

            let twoOrders = try db.query(RDOrder.self).where(RDPrice.self) { $0.label == "two" }.fetchAll()
            #expect(names(twoOrders, \.name) == ["t-integer", "t-real", "t-text"])
            let withLong = try db.query(RDPrice.self).where(any: RDOrder.self) { $0.name == "o-long" }
                .fetchAll()
            #expect(withLong.map(\.label) == ["one fifty"])
        }
    }

    @Test func throughAJunctionMatchesDateAndDecimalKeysAsValues() throws {
        try withTemporaryDirectory { directory in
            let db = try Database(.file(try makeFile(in: directory)))
            let events = try db.query(RDEvent.self).order { $0.title }
                .including(all: RDPrice.self, through: RDEventPrice.self).fetchAll()
            let eventPrices = events.map { [$0.0.title] + names($0.1, \.label) }
            #expect(eventPrices == [["midnight", "one fifty"], ["noon", "one fifty", "two"]])
            let prices = try db.query(RDPrice.self).order { $0.label }
                .including(all: RDEvent.self, through: RDEventPrice.self).fetchAll()
            let priceEvents = prices.map { [$0.0.label] + names($0.1, \.title) }
            #expect(priceEvents == [["one fifty", "midnight", "noon"], ["two", "noon"]])
        }
    }

    @Test func aCompositeKeyOfADateAndADecimalIsMatchedAsValues() throws {
        try withTemporaryDirectory { directory in
            let db = try Database(.file(try makeFile(in: directory)))
            let slots = try db.query(RDSlot.self).order { $0.label }.including(all: RDBooking.self).fetchAll()
            let slotBookings = slots.map { [$0.0.label] + names($0.1, \.name) }
            #expect(slotBookings == [["midnight-2", "b3"], ["noon-150", "b1", "b2"]])
            let bookings = try db.query(RDBooking.self).order { $0.id }.including(one: RDSlot.self).fetchAll()
            let bookingSlots = bookings.map { $0.1?.label }
            #expect(bookingSlots == ["noon-150", "noon-150", "midnight-2", nil])
            let atNoon = try db.query(RDBooking.self).where(RDSlot.self) { $0.label == "noon-150" }.fetchAll()
            #expect(names(atNoon, \.name) == ["b1", "b2"])
            let withB3 = try db.query(RDSlot.self).where(any: RDBooking.self) { $0.name == "b3" }.fetchAll()
            #expect(withB3.map(\.label) == ["midnight-2"])
        }
    }

    /// A date key stored as a number is read under the database's ``DateStorage``, as `where`
    /// and the decoder read it: milliseconds here, not seconds.
    @Test func aNumericDateKeyIsReadUnderTheDatabasesDateStorage() throws {
        try withTemporaryDirectory { directory in
            let path = directory.file("millisecond-keys.sqlite")
            try SQLiteShell.write(
                path,
                """
                CREATE TABLE rd_events (day PRIMARY KEY, title TEXT NOT NULL);
                CREATE TABLE rd_tickets (id INTEGER PRIMARY KEY, eventDay, name TEXT NOT NULL);
                INSERT INTO rd_events VALUES ('2024-03-05 12:00:00', 'noon');
                INSERT INTO rd_tickets VALUES (1, 1709640000000, 'ms'), (2, '2024-03-05T12:00:00Z', 'text'),
                    (3, 1709640000, 'seconds');
                """)
            var configuration = Configuration()
            configuration.dateStorage = .unixMilliseconds
            let db = try Database(.file(path), configuration: configuration)
            let noon = Self.noon
            let byWhere = try db.query(RDTicket.self).where { $0.eventDay == noon }.fetchAll()
            #expect(names(byWhere, \.name) == ["ms", "text"])
            let events = try db.query(RDEvent.self).including(all: RDTicket.self).fetchAll()
            let eventTickets = events.map { [$0.0.title] + names($0.1, \.name) }
            #expect(eventTickets == [["noon", "ms", "text"]])
            let tickets = try db.query(RDTicket.self).order { $0.id }.including(one: RDEvent.self).fetchAll()
            let ticketEvents = tickets.map { $0.1?.title }
            #expect(ticketEvents == ["noon", "noon", nil])
            let filtered = try db.query(RDTicket.self).where(RDEvent.self) { $0.title == "noon" }.fetchAll()
            #expect(names(filtered, \.name) == ["ms", "text"])
            let withMs = try db.query(RDEvent.self).where(any: RDTicket.self) { $0.name == "ms" }.count()
            #expect(withMs == 1)
        }
    }
}
