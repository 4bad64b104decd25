import Foundation
import LiteRecord

/// DESIGN.md's workload 8, real data: load all Northwind `Orders` (830 rows, 14 columns, dates
/// as text, nullable columns) into a Codable struct N times (200 by default, 10 under `--quick`), and all
/// `Order Details` (2155 rows, a composite key, `UnitPrice` stored as INTEGER or REAL) likewise.
///
/// Northwind is built once per workload in setup, in one in-memory database per side, from the
/// script `../shared/datasets/northwind/northwind.sql` next to the package (or the file named
/// by the environment variable `LITERECORD_NORTHWIND`), with foreign keys off as the script
/// requires. LiteRecord maps its models onto the existing tables (PascalCase columns) without
/// altering them; setup checks both schemas are still identical.
///
/// Measured: the N loads. LiteRecord: `fetchAll(Order.self)` (the model's `SELECT * FROM
/// "Orders"`). C: the same SQL prepared once in setup, a `sqlite3_step` loop reading each column
/// by position into the same struct (NULL checks for the optional ones, dates parsed from their
/// bytes by ``CDateText``, the array reserved at the previous load's count), reset. Not measured: checking after each round that every
/// load returned every row and that the last load equals the expected models.
enum NorthwindLoads {
    static let orders = workload(
        NorthwindOrder.self, slug: "northwind-orders",
        description: "load all 830 Northwind Orders (14 columns, text dates, NULLs) into a Model, N times")
    static let orderDetails = workload(
        NorthwindOrderDetail.self, slug: "northwind-order-details",
        description: "load all 2155 Northwind Order Details (composite key) into a Model, N times")

    /// The environment variable naming the Northwind script, when it is not at its usual place.
    static let scriptVariable = "LITERECORD_NORTHWIND"

    /// The two databases, the C side's statement and the expected models.
    final class Fixture<Record: NorthwindRecord> {
        let c: CDatabase
        let literecord: Database
        let statement: CStatement
        let expected: [Record]

        init(c: CDatabase, literecord: Database, statement: CStatement, expected: [Record]) {
            self.c = c
            self.literecord = literecord
            self.statement = statement
            self.expected = expected
        }
    }

    /// What both sides compute: the rows of all loads, and the last load.
    struct Loaded<Record: NorthwindRecord> {
        var rows = 0
        var last: [Record] = []
    }

    /// A workload loading one Northwind table into `Record`, N times.
    static func workload<Record: NorthwindRecord>(
        _ type: Record.Type, slug: String, description: String
    ) -> Workload {
        Workload(
            slug: slug,
            description: description,
            defaultSize: 200,
            quickSize: 10,
            operations: { $0 * Record.rowCount },
            setup: { context in try makeFixture(Record.self, context) },
            c: { fixture, _ in
                var loaded = Loaded<Record>()
                let elapsed = try Stopwatch.measure {
                    loaded = try loadC(Record.self, fixture.statement, times: fixture.size)
                }
                try verify(loaded, fixture: fixture.fixture, loads: fixture.size, side: .c)
                return elapsed
            },
            literecord: { fixture, _ in
                var loaded = Loaded<Record>()
                let elapsed = try Stopwatch.measure {
                    loaded = try loadLiteRecord(Record.self, fixture.fixture.literecord, times: fixture.size)
                }
                try verify(loaded, fixture: fixture.fixture, loads: fixture.size, side: .literecord)
                return elapsed
            })
    }

    // MARK: - Setup

    /// A fixture and the number of loads N.
    struct SizedFixture<Record: NorthwindRecord> {
        let fixture: Fixture<Record>
        let size: Int
        var statement: CStatement { fixture.statement }
    }

    static func makeFixture<Record: NorthwindRecord>(
        _ type: Record.Type, _ context: SetupContext
    ) throws -> SizedFixture<Record> {
        let script = try loadScript()
        let c = try CDatabase(path: ":memory:")
        try c.execute("PRAGMA foreign_keys = OFF")
        try c.executeScript(script)
        try c.execute("PRAGMA foreign_keys = OFF")  // the script turns them back on

        var configuration = Configuration()
        configuration.foreignKeys = false  // the script violates its own foreign keys while loading
        let literecord = try Database(.inMemory, configuration: configuration)
        try literecord.execute(sql: SQL(script))
        try literecord.execute(sql: "PRAGMA foreign_keys = OFF")
        try literecord.migrate(Record.self)
        try ItemModel.verifySameSchema(c, literecord)

        let statement = try c.prepare(Record.select)
        guard statement.columnNames == Record.columns else {
            throw FixtureError(
                description:
                    "`\(Record.select)` returns \(statement.columnNames), the C side reads \(Record.columns)")
        }
        let traced = try ItemModel.traceSQL(literecord) { _ = try literecord.fetchAll(Record.self) }
        try ItemModel.verifyTrace(
            traced, expected: [Record.select], operation: "fetchAll(\(Record.self).self)")

        // Both sides must read the same models, all of them.
        let cRecords = try loadC(Record.self, statement, times: 1).last
        let literecordRecords = try literecord.fetchAll(Record.self)
        guard cRecords.count == Record.rowCount else {
            throw FixtureError(
                description: "\(Record.select) returns \(cRecords.count) rows, expected \(Record.rowCount)")
        }
        guard cRecords == literecordRecords else {
            let index =
                cRecords.indices.first {
                    $0 >= literecordRecords.count || cRecords[$0] != literecordRecords[$0]
                } ?? 0
            throw FixtureError(
                description: "the sides read different models: row \(index) is \(cRecords[index]) for C, "
                    + "\(literecordRecords[min(index, literecordRecords.count - 1)]) for LiteRecord")
        }
        let fixture = Fixture(c: c, literecord: literecord, statement: statement, expected: cRecords)
        return SizedFixture(fixture: fixture, size: context.size)
    }

    /// The Northwind script: `$LITERECORD_NORTHWIND`, else `../shared/datasets/northwind/
    /// northwind.sql` from the working directory (the package root under `swift run`), else from
    /// the package this file was compiled in.
    static func loadScript() throws -> String {
        let relative = "../shared/datasets/northwind/northwind.sql"
        var candidates: [String]
        if let path = ProcessInfo.processInfo.environment[scriptVariable], !path.isEmpty {
            candidates = [path]
        } else {
            var package = URL(fileURLWithPath: #filePath)
            for _ in 0..<3 { package.deleteLastPathComponent() }  // the file, Workloads, Benchmarks
            candidates = [
                URL(fileURLWithPath: FileManager.default.currentDirectoryPath).appendingPathComponent(
                    relative
                )
                .standardized.path,
                package.appendingPathComponent(relative).standardized.path,
            ]
        }
        guard let path = candidates.first(where: { FileManager.default.isReadableFile(atPath: $0) }) else {
            throw FixtureError(
                description: "the Northwind script is missing: looked for "
                    + candidates.joined(separator: " and ")
                    + "; run from the package root or set \(scriptVariable) to the path of northwind.sql")
        }
        return try String(contentsOfFile: path, encoding: .utf8)
    }

    // MARK: - Loads

    /// The C side's measured work. Kept out of line so that a profiler can tell it apart.
    @inline(never)
    static func loadC<Record: NorthwindRecord>(
        _ type: Record.Type, _ statement: CStatement, times: Int
    ) throws -> Loaded<Record> {
        var loaded = Loaded<Record>()
        for _ in 0..<times {
            var records: [Record] = []
            // As a C programmer reuses a buffer sized by the previous load.
            records.reserveCapacity(loaded.last.count)
            while try statement.step() {
                records.append(try Record.read(statement))
            }
            try statement.reset()
            loaded.rows += records.count
            loaded.last = records
        }
        return loaded
    }

    /// LiteRecord's measured work. Kept out of line so that a profiler can tell it apart.
    @inline(never)
    static func loadLiteRecord<Record: NorthwindRecord>(
        _ type: Record.Type, _ database: Database, times: Int
    ) throws -> Loaded<Record> {
        var loaded = Loaded<Record>()
        for _ in 0..<times {
            let records = try database.fetchAll(Record.self)
            loaded.rows += records.count
            loaded.last = records
        }
        return loaded
    }

    // MARK: - Checks

    private static func verify<Record: NorthwindRecord>(
        _ loaded: Loaded<Record>, fixture: Fixture<Record>, loads: Int, side: Side
    ) throws {
        guard loaded.rows != loads * Record.rowCount || loaded.last != fixture.expected else { return }
        throw FixtureError(
            description: "\(side.rawValue) side loaded \(loaded.rows) rows in \(loads) loads, expected "
                + "\(loads * Record.rowCount)"
                + (loaded.last == fixture.expected ? "" : "; the last load differs from the expected models"))
    }
}

/// A model of a Northwind table that the C side reads by hand.
protocol NorthwindRecord: Model, Equatable {
    /// The SQL LiteRecord's `fetchAll(Self.self)` runs, checked in setup.
    static var select: String { get }
    /// The columns of ``select``, in the order ``read(_:)`` reads them.
    static var columns: [String] { get }
    /// How many rows the table has.
    static var rowCount: Int { get }
    /// Reads the current row, column by column, as hand-written code does.
    static func read(_ statement: CStatement) throws -> Self
}

extension CStatement {
    /// A text column as a date parsed from its bytes by hand (``CDateText``), `nil` for NULL.
    @inline(__always)
    func optionalDate(at index: Int32) throws -> Date? {
        isNull(at: index)
            ? nil : Date(timeIntervalSinceReferenceDate: try CDateText.read(textBytes(at: index)))
    }

    /// A text column, `nil` for NULL.
    @inline(__always)
    func optionalString(at index: Int32) -> String? {
        isNull(at: index) ? nil : string(at: index)
    }
}

/// A row of `Orders`: PascalCase columns, dates as text (`1996-07-04 00:00:00.000`),
/// `Freight` stored as REAL or INTEGER, NULLs in `ShippedDate`, `ShipRegion`, `ShipPostalCode`.
struct NorthwindOrder: NorthwindRecord {
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

    static let schema = Schema<NorthwindOrder>(table: "Orders", primaryKey: \.orderID).columnNaming(
        .pascalCase)

    static let select = #"SELECT * FROM "Orders""#
    static let columns = [
        "OrderID", "CustomerID", "EmployeeID", "OrderDate", "RequiredDate", "ShippedDate", "ShipVia",
        "Freight",
        "ShipName", "ShipAddress", "ShipCity", "ShipRegion", "ShipPostalCode", "ShipCountry",
    ]
    static let rowCount = 830

    @inline(__always)
    static func read(_ statement: CStatement) throws -> NorthwindOrder {
        NorthwindOrder(
            orderID: statement.isNull(at: 0) ? nil : statement.int64(at: 0),
            customerID: statement.string(at: 1),
            employeeID: Int(statement.int64(at: 2)),
            orderDate: try statement.optionalDate(at: 3),
            requiredDate: try statement.optionalDate(at: 4),
            shippedDate: try statement.optionalDate(at: 5),
            shipVia: Int(statement.int64(at: 6)),
            freight: statement.double(at: 7),
            shipName: statement.string(at: 8),
            shipAddress: statement.string(at: 9),
            shipCity: statement.string(at: 10),
            shipRegion: statement.optionalString(at: 11),
            shipPostalCode: statement.optionalString(at: 12),
            shipCountry: statement.string(at: 13))
    }
}

/// A row of `Order Details`: a table name with a space, a composite key, `UnitPrice` declared
/// NUMERIC and stored as INTEGER or REAL.
struct NorthwindOrderDetail: NorthwindRecord {
    var orderID: Int
    var productID: Int
    var unitPrice: Double
    var quantity: Int
    var discount: Double

    static let schema = Schema<NorthwindOrderDetail>(
        table: "Order Details", primaryKey: [\.orderID, \.productID]
    )
    .columnNaming(.pascalCase)

    static let select = #"SELECT * FROM "Order Details""#
    static let columns = ["OrderID", "ProductID", "UnitPrice", "Quantity", "Discount"]
    static let rowCount = 2155

    @inline(__always)
    static func read(_ statement: CStatement) throws -> NorthwindOrderDetail {
        NorthwindOrderDetail(
            orderID: Int(statement.int64(at: 0)),
            productID: Int(statement.int64(at: 1)),
            unitPrice: statement.double(at: 2),
            quantity: Int(statement.int64(at: 3)),
            discount: statement.double(at: 4))
    }
}
