import Foundation
import LiteRecord
import Testing

// Models mapped onto the Northwind tables, which LiteRecord did not create: bracket-quoted
// PascalCase names, a table name with a space, a composite key, String keys, date-only text.

private struct NWOrder: Model, Equatable {
    var orderID: Int64?
    var customerID: String
    var employeeID: Int
    var orderDate: Date?
    var requiredDate: Date?
    var shippedDate: Date?
    var shipVia: Int
    var freight: Double
    var shipName: String
    var shipAddress: String
    var shipCity: String
    var shipRegion: String?
    var shipPostalCode: String?
    var shipCountry: String

    static let schema = Schema<NWOrder>(table: "Orders", primaryKey: \.orderID).columnNaming(.pascalCase)
}

private struct NWOrderDetail: Model, Equatable {
    var orderID: Int
    var productID: Int
    var unitPrice: Double
    var quantity: Int
    var discount: Double

    static let schema = Schema<NWOrderDetail>(table: "Order Details", primaryKey: [\.orderID, \.productID])
        .columnNaming(.pascalCase)
}

/// Declares fewer columns than the table has (no Photo, Notes, ...), in another order.
private struct NWEmployee: Model, Equatable {
    var employeeID: Int64?
    var firstName: String
    var lastName: String
    var hireDate: Date
    var birthDate: Date
    var title: String
    var reportsTo: Int?

    static let schema = Schema<NWEmployee>(table: "Employees", primaryKey: \.employeeID)
        .columnNaming(.pascalCase)
}

private struct NWCustomer: Model, Equatable {
    var customerID: String
    var companyName: String
    var contactName: String
    var city: String?
    var region: String?
    var postalCode: String?
    var country: String?
    var fax: String?

    static let schema = Schema<NWCustomer>(table: "Customers", primaryKey: \.customerID)
        .columnNaming(.pascalCase)
}

/// Columns named by a strategy, so raw SQL must decode with the schema's names.
private struct NWSnakeEvent: Model, Equatable {
    var id: Int64?
    var eventName: String
    var happenedAt: Date

    static let schema = Schema<NWSnakeEvent>(table: "snake_events").columnNaming(.snakeCase)
}

@Suite struct NorthwindMappingTests {
    // MARK: - Helpers

    /// `../shared/datasets/northwind/northwind.sql`, relative to the repository root.
    private static func scriptPath() -> String {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<4 { url.deleteLastPathComponent() }  // Schema, LiteRecordTests, Tests, file
        return url.appendingPathComponent("../shared/datasets/northwind/northwind.sql").standardized.path
    }

    /// A fresh in-memory copy of Northwind. Fails (never skips) when the script is missing.
    private func northwind() throws -> Database {
        let path = Self.scriptPath()
        try #require(
            FileManager.default.fileExists(atPath: path), "the Northwind script is missing at \(path)")
        let script = try String(contentsOfFile: path, encoding: .utf8)
        var configuration = Configuration()
        configuration.foreignKeys = false  // the script violates its own foreign keys while loading
        let db = try Database(.inMemory, configuration: configuration)
        try db.execute(sql: SQL(script))
        try db.execute(sql: "PRAGMA foreign_keys = OFF")  // the script turns them back on
        return db
    }

    /// Every table, index and view as SQLite stores it, to prove nothing was altered.
    private func schemaDump(_ db: some DatabaseContext) throws -> [String] {
        try db.fetchAll(
            String.self,
            sql:
                "SELECT type || ' ' || name || ': ' || ifnull(sql, '') FROM sqlite_master ORDER BY type, name"
        )
    }

    private func utc(_ year: Int, _ month: Int, _ day: Int) throws -> Date {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = try #require(TimeZone(identifier: "UTC"))
        return try #require(calendar.date(from: DateComponents(year: year, month: month, day: day)))
    }

    // MARK: - Mapping without altering

    @Test func ordersTableHasTheColumnsTheModelMaps() throws {
        let db = try northwind()
        let columns = try db.fetchAll(String.self, sql: "SELECT name FROM pragma_table_xinfo('Orders')")
        #expect(
            columns == [
                "OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia",
                "Freight", "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode",
                "ShipCountry",
            ])
        // The nullable columns the model declares optional really hold NULLs.
        let nulls = try #require(
            try db.fetchOne(
                Row.self,
                sql: """
                    SELECT count(*) - count(ShippedDate) AS shipped, count(*) - count(ShipRegion) AS region,
                           count(*) - count(ShipPostalCode) AS postal
                    FROM Orders
                    """))
        #expect(try nulls.value(Int.self, named: "shipped") == 21)
        #expect(try nulls.value(Int.self, named: "region") == 507)
        #expect(try nulls.value(Int.self, named: "postal") == 19)
    }

    @Test func modelsReadEveryRowWithoutAlteringTheSchema() throws {
        let db = try northwind()
        let before = try schemaDump(db)
        try db.migrate(NWOrder.self)
        try db.migrate(NWOrderDetail.self)
        try db.migrate(NWEmployee.self)
        try db.migrate(NWCustomer.self)
        #expect(try db.count(NWOrder.self) == 830)
        #expect(try db.count(NWOrderDetail.self) == 2155)
        #expect(try db.count(NWEmployee.self) == 9)
        #expect(try db.count(NWCustomer.self) == 93)
        let orders = try db.fetchAll(NWOrder.self)
        #expect(orders.count == 830)
        #expect(orders.filter { $0.shippedDate == nil }.count == 21)
        #expect(orders.filter { $0.shipRegion == nil }.count == 507)
        #expect(try db.fetchAll(NWOrderDetail.self).count == 2155)
        #expect(try db.fetchAll(NWEmployee.self).count == 9)
        #expect(try db.fetchAll(NWCustomer.self).count == 93)
        #expect(try schemaDump(db) == before)
    }

    // MARK: - Known values

    @Test func orderReadsKnownValuesAndTextDates() throws {
        let db = try northwind()
        let order = try #require(try db.find(NWOrder.self, id: 10248))
        #expect(order.orderID == 10248)
        #expect(order.customerID == "VINET")
        #expect(order.employeeID == 5)
        #expect(order.orderDate == Date(timeIntervalSince1970: 836_438_400))  // 1996-07-04 00:00 UTC
        #expect(order.orderDate == (try utc(1996, 7, 4)))
        #expect(order.requiredDate == (try utc(1996, 8, 1)))
        #expect(order.shippedDate == (try utc(1996, 7, 16)))
        #expect(order.shipVia == 3)
        #expect(order.freight == 32.38)
        #expect(order.shipName == "Vins et alcools Chevalier")
        #expect(order.shipCity == "Reims")
        #expect(order.shipRegion == nil)
        #expect(order.shipPostalCode == "51100")
        #expect(order.shipCountry == "France")
        #expect(try db.exists(NWOrder.self, id: 10248))
        #expect(try db.find(NWOrder.self, id: 1) == nil)
    }

    @Test func freightReadsFromRealAndIntegerStorage() throws {
        let db = try northwind()
        let storage = try db.fetchAll(
            String.self,
            sql: "SELECT typeof(Freight) FROM Orders WHERE OrderID IN (10249, 10365) ORDER BY OrderID")
        #expect(storage == ["real", "integer"])
        #expect(try db.find(NWOrder.self, id: 10249)?.freight == 11.61)
        #expect(try db.find(NWOrder.self, id: 10365)?.freight == 22)
        #expect(try db.find(NWOrder.self, id: 11070)?.freight == 136)
        let total = try #require(try db.firstValue(Double.self, sql: "SELECT total(Freight) FROM Orders"))
        let summed = try db.fetchAll(NWOrder.self).reduce(0) { $0 + $1.freight }
        #expect(abs(summed - total) < 1e-6)
    }

    @Test func orderDetailsUseTheCompositeKeyOnATableNameWithASpace() throws {
        let db = try northwind()
        let detail = try #require(try db.find(NWOrderDetail.self, key: [10248, 11]))
        #expect(
            detail == NWOrderDetail(orderID: 10248, productID: 11, unitPrice: 14, quantity: 12, discount: 0))
        #expect(try db.find(NWOrderDetail.self, key: [10248, 42])?.unitPrice == 9.8)
        #expect(try db.find(NWOrderDetail.self, key: [10248, 1]) == nil)
        let ofOrder = try db.fetchAll(NWOrderDetail.self).filter { $0.orderID == 10248 }
        #expect(ofOrder.map(\.productID) == [11, 42, 72])
        #expect(ofOrder.map(\.quantity) == [12, 10, 5])
        // Raw SQL decodes a model with its schema's column names too.
        let fetched = try db.fetchAll(
            NWOrderDetail.self, sql: "SELECT * FROM \(identifier: "Order Details") WHERE OrderID = \(10248)")
        #expect(fetched == ofOrder)
    }

    @Test func employeesReadDateOnlyText() throws {
        let db = try northwind()
        let storage = try db.firstValue(
            String.self, sql: "SELECT BirthDate FROM Employees WHERE EmployeeID = 1")
        #expect(storage == "1948-12-08")
        let nancy = try #require(try db.find(NWEmployee.self, id: 1))
        #expect(nancy.firstName == "Nancy")
        #expect(nancy.lastName == "Davolio")
        #expect(nancy.birthDate == (try utc(1948, 12, 8)))
        #expect(nancy.birthDate == Date(timeIntervalSince1970: -664_761_600))
        #expect(nancy.hireDate == (try utc(1992, 5, 1)))
        #expect(nancy.reportsTo == 2)
        #expect(try db.find(NWEmployee.self, id: 2)?.reportsTo == nil)  // Fuller reports to no one
        let hired = try db.fetchAll(NWEmployee.self).map(\.hireDate)
        #expect(hired.min() == (try utc(1992, 4, 1)))
        #expect(hired.max() == (try utc(1994, 11, 15)))
    }

    @Test func customersUseStringKeys() throws {
        let db = try northwind()
        let vinet = try #require(try db.find(NWCustomer.self, id: "VINET"))
        #expect(vinet.companyName == "Vins et alcools Chevalier")
        #expect(vinet.city == "Reims")
        #expect(vinet.region == nil)
        #expect(vinet.fax == "26.47.15.11")
        #expect(try db.exists(NWCustomer.self, id: "ALFKI"))
        #expect(try !db.exists(NWCustomer.self, id: "alfki"))  // keys compare exactly
        #expect(try db.find(NWCustomer.self, id: "NOPE!") == nil)
        #expect(try db.fetchAll(NWCustomer.self).filter { $0.fax == nil }.count == 24)
    }

    // MARK: - Raw SQL

    @Test func rawSQLDecodesModelsWithTheSchemasColumnNames() throws {
        let db = try Database(.inMemory)
        var event = NWSnakeEvent(
            id: nil, eventName: "launch", happenedAt: Date(timeIntervalSince1970: 12.5))
        try db.insert(&event)
        let columns = try db.fetchAll(String.self, sql: "SELECT name FROM pragma_table_xinfo('snake_events')")
        #expect(columns == ["id", "event_name", "happened_at"])
        #expect(try db.fetchAll(NWSnakeEvent.self, sql: "SELECT * FROM snake_events") == [event])
        let named = "launch"
        let byName = try db.fetchOne(
            NWSnakeEvent.self, sql: "SELECT * FROM snake_events WHERE event_name = \(named)")
        #expect(byName == event)
        let byID = try db.fetchAll(
            NWSnakeEvent.self, sql: "SELECT * FROM snake_events WHERE id = ?", arguments: [1])
        #expect(byID == [event])
        #expect(try db.fetchOne(NWSnakeEvent.self, sql: "SELECT * FROM snake_events WHERE id = 2") == nil)
    }

    // MARK: - Writing back

    @Test func updatingOneOrderRoundTripsAndChangesOnlyThatRow() throws {
        let db = try northwind()
        let before = try schemaDump(db)
        let otherRows = """
            SELECT group_concat(OrderID || '|' || quote(CustomerID) || '|' || quote(OrderDate) || '|' \
            || quote(ShippedDate) || '|' || quote(Freight) || '|' || quote(ShipName) || '|' \
            || quote(ShipRegion), ';') FROM (SELECT * FROM Orders WHERE OrderID <> 10250 ORDER BY OrderID)
            """
        let othersBefore = try db.firstValue(String.self, sql: SQL(otherRows))

        var order = try #require(try db.find(NWOrder.self, id: 10250))
        #expect(order.shipRegion == "RJ")
        order.freight = 70.25
        order.shipName = "Hanari Carnes ('quoted'; --)"
        order.shipRegion = nil
        order.shippedDate = try utc(1996, 7, 13)
        try db.update(order)

        #expect(try db.find(NWOrder.self, id: 10250) == order)
        let stored = try #require(
            try db.fetchOne(
                Row.self,
                sql: "SELECT Freight, ShipName, ShipRegion, ShipCity FROM Orders WHERE OrderID = 10250"))
        #expect(try stored.value(Double.self, named: "Freight") == 70.25)
        #expect(try stored.value(String.self, named: "ShipName") == "Hanari Carnes ('quoted'; --)")
        #expect(try stored.value(named: "ShipRegion") == .null)
        #expect(try stored.value(String.self, named: "ShipCity") == "Rio de Janeiro")
        #expect(try db.firstValue(String.self, sql: SQL(otherRows)) == othersBefore)
        #expect(try db.count(NWOrder.self) == 830)
        #expect(try schemaDump(db) == before)
    }
}
