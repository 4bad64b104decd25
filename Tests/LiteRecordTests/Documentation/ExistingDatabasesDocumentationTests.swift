// The README's "Existing databases" section, line for line (see ReadmeCodeBlockTests).
import Foundation
import LiteRecord
import Testing

@Suite struct ExistingDatabasesDocumentationTests {
    struct OrderDetail: Model {
        var orderID: Int
        var productID: Int
        var unitPrice: Double
        var quantity: Int
        var discount: Double
        static let schema = Schema<OrderDetail>(table: "Order Details", primaryKey: [\.orderID, \.productID])
            .columnNaming(.pascalCase)                 // orderID → OrderID
    }

    /// A fresh in-memory copy of Northwind (`../shared/datasets/northwind/northwind.sql`).
    static func northwind() throws -> Database {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<4 { url.deleteLastPathComponent() }
        let path = url.appendingPathComponent("../shared/datasets/northwind/northwind.sql").standardized.path
        try #require(FileManager.default.fileExists(atPath: path), "the Northwind script is missing at \(path)")
        var configuration = Configuration()
        configuration.foreignKeys = false  // the script violates its own foreign keys while loading
        let db = try Database(.inMemory, configuration: configuration)
        try db.execute(sql: SQL(verbatim: try String(contentsOfFile: path, encoding: .utf8)))
        return db
    }

    @Test func aModelMapsOntoATableItDidNotCreate() throws {
        let db = try Self.northwind()
        let line = try db.find(OrderDetail.self, key: [10248, 11])
        #expect(line?.quantity == 12)
        #expect(line?.unitPrice == 14)
    }
}
