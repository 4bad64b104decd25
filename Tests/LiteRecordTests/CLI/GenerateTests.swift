import Foundation
import LiteRecord
import LiteRecordCLI
import LiteRecordTestSupport
import Testing

/// `literecord generate`: the source for Northwind and for a database of hostile names is the
/// checked-in golden file (compiled into this test target), and those models read every row of
/// every table. Set `LITERECORD_UPDATE_GOLDEN=1` to rewrite the golden files from the tool.
@Suite(.offCooperativePool) struct GenerateTests {
    /// Generates `path`'s models with the built tool, compares them with `Golden/<namespace>.swift`.
    private func checkGolden(_ path: String, namespace: String) throws {
        let run = try CLIFixtures.runTool(["generate", path, "--namespace", namespace])
        #expect(run.status == 0, "\(run.error)")
        #expect(run.error.isEmpty)
        let golden = CLIFixtures.goldenDirectory + "/\(namespace).swift"
        if ProcessInfo.processInfo.environment["LITERECORD_UPDATE_GOLDEN"] == "1" {
            try Data(run.output.utf8).write(to: URL(fileURLWithPath: golden))
        }
        let expected = try String(contentsOfFile: golden, encoding: .utf8)
        #expect(run.output == expected, "the generated source differs from \(golden)")
    }

    /// Reads every row of `type` through LiteRecord; the query must read `table`.
    private func readEveryRow<M: Model>(_ type: M.Type, of table: String, from db: Database) throws -> Int {
        let query = db.query(type)
        #expect(
            query.sqlDescription.contains("FROM \(SQL.quoteIdentifier(table))"), "\(query.sqlDescription)")
        return try query.fetchAll().count
    }

    /// Every model reads all rows of its table (the models are listed in table name order).
    private func readEveryTable(_ models: [any Model.Type], path: String) throws {
        var configuration = Configuration()
        configuration.readOnly = true
        let db = try Database(path: path, configuration: configuration)
        let tables = try db.fetchAll(
            String.self,
            sql:
                "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite%' ORDER BY name"
        )
        #expect(models.count == tables.count, "one model per table")
        for (model, table) in zip(models, tables) {
            let rows = try db.fetchOne(
                Int.self, sql: SQL("SELECT count(*) FROM \(SQL.quoteIdentifier(table))" as String))
            let read = try readEveryRow(model, of: table, from: db)
            #expect(read == rows, "\(model): read \(read) of \(rows ?? 0) rows of \(table)")
        }
    }

    @Test func northwindSourceIsTheGoldenFileAndReadsEveryRow() throws {
        try withTemporaryDirectory { directory in
            let path = try CLIFixtures.northwind(in: directory)
            try checkGolden(path, namespace: "NorthwindModels")
            try readEveryTable(NorthwindModels.models, path: path)
            // Spot checks of the types chosen from the data.
            let db = try Database(path: path)
            let firstDetail = try db.query(NorthwindModels.OrderDetails.self).order { $0.orderID }.fetchOne()
            let detail = try #require(firstDetail)
            #expect(detail.orderID == 10248 && detail.unitPrice == 14)
            let order = try #require(try db.find(NorthwindModels.Orders.self, id: Int64(10248)))
            #expect(order.orderDate == (try Date.fromDatabaseValue(.text("1996-07-04"))))
        }
    }

    @Test func hostileNamesSourceIsTheGoldenFileAndReadsEveryRow() throws {
        try withTemporaryDirectory { directory in
            let path = try CLIFixtures.hostile(in: directory)
            try checkGolden(path, namespace: "HostileModels")
            try readEveryTable(HostileModels.models, path: path)
            let db = try Database(path: path)
            let events = try db.query(HostileModels.Events.self).order { $0.id }.fetchAll()
            #expect(events.map(\.mixed?.value) == [.integer(1), .text("text"), .real(2.5), .blob(Data([1]))])
            #expect(events.map(\.flag) == [true, false, true, false])
            #expect(events[0].badDate == "yesterday")
            let items = try db.query(HostileModels.OrderItems.self).order { $0.orderId }.fetchAll()
            #expect(items.map(\.unitPrice) == [10, 10.5, 3])
            let keywords = try db.query(HostileModels.Select.self).fetchAll()
            #expect(keywords.compactMap(\.`default`).sorted() == ["k1", "k2"])
            let quoted = try #require(try db.query(HostileModels.QuoteTable.self).fetchOne())
            #expect(quoted.sayHi == "\"hi\"" && quoted.semiColonX == "; DROP TABLE x; --")
            // Nothing was written to the file by reading through the models.
            #expect(try db.fetchAll(String.self, sql: "PRAGMA integrity_check") == ["ok"])
        }
    }

    @Test func onlyTheNamedTablesAreGenerated() throws {
        try withTemporaryDirectory { directory in
            let path = try CLIFixtures.hostile(in: directory)
            let output = directory.file("Models.swift")
            let run = try CLIFixtures.runTool([
                "generate", path, "--table", "order items", "--table", "Model", "--output", output,
            ])
            #expect(run.status == 0 && run.output.isEmpty, "\(run.error)")
            let source = try String(contentsOfFile: output, encoding: .utf8)
            #expect(
                source.contains("struct OrderItems: Model {")
                    && source.contains("struct ModelRecord: Model {"))
            #expect(!source.contains("struct Events"))

            let missing = try CLIFixtures.runTool(["generate", path, "--table", "nope"])
            #expect(missing.status == 1)
            #expect(missing.error.hasPrefix("literecord generate: no table named \"nope\" (tables: "))
            let errorLines = missing.error.filter { $0 == "\n" }.count
            #expect(errorLines == 1)
        }
    }
}
