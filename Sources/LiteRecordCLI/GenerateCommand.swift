import Foundation
import LiteRecord

/// `literecord generate DB [--table NAME]... [--output PATH] [--namespace NAME]`.
package enum GenerateCommand {
    /// Whether generated schemas declare foreign keys with `Schema.foreignKey` (a switch kept
    /// for tests of the writer with and without them).
    static let emitsForeignKeys = true

    static let specification = CommandSpecification(
        name: "generate", summary: "Write Swift source with a LiteRecord model for each table.",
        operands: ["DB"],
        options: [
            .init(
                "--table", valueName: "NAME", help: "Only this table (exact name); repeat for several.",
                repeats: true),
            .init(
                "--output", valueName: "PATH",
                help: "Write the source to the file PATH, or into the directory PATH as Models.swift "
                    + "(NAME.swift with --namespace NAME), instead of standard output."),
            .init(
                "--namespace", valueName: "NAME", help: "Nest the models in `enum NAME` with a `models` list."
            ),
        ],
        discussion: """
            Each table becomes `struct Name: Model` with its exact table name, primary key, \
            unique constraints and indexes in `static let schema`. Property types come from the \
            declared types and from the values stored now: a column holding reals and integers \
            is Double, text dates are Date only when every value parses, NULL-able columns are \
            optional. Only a rowid primary key (SQLite assigns it) is `Int64?`; an integer \
            key SQLite does not assign (WITHOUT ROWID, INTEGER PRIMARY KEY DESC) is not \
            optional. Names that are not Swift identifiers map back through CodingKeys.
            """)

    static func run(_ arguments: ParsedArguments) throws -> String {
        let path = arguments.operand(0)
        if let namespace = arguments.option("--namespace"), SwiftNaming.typeName(namespace) != namespace {
            throw ToolError(
                "--namespace \(namespace): not a Swift type name (try \(SwiftNaming.typeName(namespace)))")
        }
        // A path that cannot be written fails before the tables are read.
        let fileName = (arguments.option("--namespace") ?? "Models") + ".swift"
        let destination = try arguments.option("--output").map {
            try OutputFile.resolve($0, defaultName: fileName)
        }
        let db = try ReadOnlyDatabase.open(path)
        let source: String
        do {
            let models = try generate(from: db, tables: arguments.options["--table"] ?? [])
            let writer = ModelSourceWriter(
                sourceName: URL(fileURLWithPath: path).lastPathComponent,
                namespace: arguments.option("--namespace"),
                emitsForeignKeys: emitsForeignKeys)
            source = writer.source(for: models)
        } catch let error as ToolError {
            throw error
        } catch {
            throw ToolError(ToolError.describing(error, context: path))
        }
        guard let destination else { return source }
        try OutputFile.write(source, to: destination)
        return ""
    }

    /// The models of `db`'s tables (all, or those named in `tables`), in table name order.
    ///
    /// - Throws: ``ToolError`` naming a requested table that does not exist.
    package static func generate(from db: Database, tables requested: [String]) throws -> [GeneratedModel] {
        let description = try DatabaseDescription.read(from: db, countingRows: false)
        var tables = description.tables
        if !requested.isEmpty {
            for name in requested where !tables.contains(where: { $0.name == name }) {
                let known = tables.map(\.name).joined(separator: ", ")
                throw ToolError("no table named \(SwiftNaming.stringLiteral(name)) (tables: \(known))")
            }
            tables = tables.filter { requested.contains($0.name) }
        }
        let typeNames = SwiftNaming.uniqued(tables.map { SwiftNaming.typeName($0.name) })
        return try db.read { connection in
            try zip(tables, typeNames).map { table, typeName in
                let visible = table.columns.filter { !$0.isHidden || $0.primaryKeyPosition > 0 }
                var visibleTable = table
                visibleTable.columns = visible
                let types = try ColumnTypeInference.infer(visibleTable, on: connection)
                let names = SwiftNaming.uniqued(visible.map { SwiftNaming.propertyName($0.name) })
                let properties = try zip(visible, zip(names, types)).map { column, nameAndType in
                    let isRowID = table.hasRowIDPrimaryKey && column.primaryKeyPosition > 0
                    var isOptional = isRowID || !column.isNotNull
                    if isOptional && !isRowID,
                        try isRequiredIntegerKey(column, type: nameAndType.1, of: table, on: connection)
                    {
                        isOptional = false
                    }
                    return GeneratedProperty(
                        name: nameAndType.0, column: column.name, type: isRowID ? .int64 : nameAndType.1,
                        isOptional: isOptional)
                }
                return GeneratedModel(typeName: typeName, table: visibleTable, properties: properties)
            }
        }
    }

    /// Whether a NULL-able column must still be a non-optional property: the single integer
    /// primary key of a table where SQLite does not assign it (`INTEGER PRIMARY KEY DESC`, or a
    /// key declared `INT`), while no row holds NULL there.
    ///
    /// LiteRecord reads an optional integer key as "nil until inserted, assigned by SQLite", so
    /// such a model would insert rows with a NULL key and then report the rowid as their key.
    /// (A `WITHOUT ROWID` table's key columns are `NOT NULL` already.)
    private static func isRequiredIntegerKey(
        _ column: ColumnDescription, type: SwiftColumnType, of table: TableDescription,
        on connection: Connection
    ) throws -> Bool {
        guard table.primaryKey.count == 1, column.primaryKeyPosition > 0, !table.hasRowIDPrimaryKey,
            type == .int || type == .int64
        else { return false }
        let holdsNull = try connection.fetchOne(
            Bool.self,
            sql: SQL(
                "SELECT EXISTS (SELECT 1 FROM \(SQL.quoteIdentifier(table.name)) "
                    + "WHERE \(SQL.quoteIdentifier(column.name)) IS NULL)" as String))
        return holdsNull == false
    }
}
