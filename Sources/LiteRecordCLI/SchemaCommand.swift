import Foundation
import LiteRecord

/// `literecord schema DB [--json]`.
enum SchemaCommand {
    static let specification = CommandSpecification(
        name: "schema",
        summary: "Show the tables and views of a database: columns, keys, indexes, row counts.",
        operands: ["DB"], flags: [.init("--json", help: "Print JSON instead of text.")],
        discussion: """
            Nothing is written to the database, and its directory is left as it was found (no \
            -wal, -shm or -journal file added or removed). The title line of a table gives its row count and STRICT or WITHOUT \
            ROWID; a generated column shows its expression where a default would be.
            """)

    static func run(_ arguments: ParsedArguments) throws -> String {
        let path = arguments.operand(0)
        let db = try ReadOnlyDatabase.open(path)
        let description: DatabaseDescription
        do {
            description = try DatabaseDescription.read(from: db)
        } catch {
            throw ToolError(ToolError.describing(error, context: path))
        }
        return arguments.flags.contains("--json")
            ? json(description).text(indent: 2) + "\n" : text(description)
    }

    // MARK: - Text

    static func text(_ description: DatabaseDescription) -> String {
        var blocks: [String] = []
        for table in description.tables + description.views {
            blocks.append(text(table))
        }
        if blocks.isEmpty { return "no tables or views\n" }
        return blocks.joined(separator: "\n")
    }

    private static func text(_ table: TableDescription) -> String {
        let kind = table.isView ? "view" : "table"
        let rows = table.rowCount == 1 ? "1 row" : "\(table.rowCount) rows"
        let options = (table.isStrict ? ["STRICT"] : []) + (table.isWithoutRowID ? ["WITHOUT ROWID"] : [])
        let details = ([rows] + options).joined(separator: ", ")
        var output = "\(kind) \(quotedIfNeeded(table.name)) (\(details))\n"
        let cells = table.columns.map { column in
            [
                column.name, column.declaredType, column.isNotNull ? "NOT NULL" : "",
                valueSource(column),
                column.primaryKeyPosition > 0
                    ? (table.primaryKey.count > 1 ? "PK \(column.primaryKeyPosition)" : "PK") : "",
            ]
        }
        let columnTable = TextTable.render(header: ["column", "type", "null", "default", "key"], rows: cells)
        output +=
            columnTable.split(separator: "\n").map { "  " + trimmedTrailing($0) }.joined(separator: "\n")
            + "\n"
        for index in table.indexes {
            let columns = index.columns.map { $0.map(quotedIfNeeded) ?? "<expression>" }.joined(
                separator: ", ")
            let kind = index.origin == "pk" ? "primary key" : index.isUnique ? "unique" : "index"
            let source = index.origin == "u" ? " (UNIQUE constraint)" : index.origin == "pk" ? "" : ""
            let partial = index.isPartial ? " WHERE ..." : ""
            output += "  \(kind) \(quotedIfNeeded(index.name)) (\(columns))\(partial)\(source)\n"
        }
        for key in table.foreignKeys {
            let parentColumns =
                key.parentColumns.isEmpty
                ? "" : "(\(key.parentColumns.map(quotedIfNeeded).joined(separator: ", ")))"
            output +=
                "  foreign key (\(key.columns.map(quotedIfNeeded).joined(separator: ", "))) references "
                + "\(quotedIfNeeded(key.parentTable))\(parentColumns) ON DELETE \(key.onDelete) ON UPDATE \(key.onUpdate)\n"
        }
        return output
    }

    /// Where a column's value comes from when a row does not give it: its default, or the
    /// expression of a generated column (`GENERATED ALWAYS AS (w * h) VIRTUAL`, computed when
    /// read, or `... STORED`), or `HIDDEN` for a virtual table's hidden column.
    private static func valueSource(_ column: ColumnDescription) -> String {
        if let kind = column.generated {
            let expression = column.generatedExpression.map { " ALWAYS AS (\($0))" } ?? ""
            return "GENERATED\(expression) \(kind.rawValue.uppercased())"
        }
        if column.isHidden { return "HIDDEN" }
        return column.defaultSQL.map { "DEFAULT \($0)" } ?? ""
    }

    private static func trimmedTrailing(_ line: Substring) -> String {
        var text = String(line)
        while text.last == " " { text.removeLast() }
        return text
    }

    /// A name as SQL would need it: bare when it is a plain identifier, double-quoted otherwise.
    static func quotedIfNeeded(_ name: String) -> String {
        let plain =
            name.first.map { $0 == "_" || ($0.isASCII && $0.isLetter) } ?? false
            && name.allSatisfy { $0 == "_" || ($0.isASCII && ($0.isLetter || $0.isNumber)) }
        return plain ? name : SQL.quoteIdentifier(name)
    }

    // MARK: - JSON

    static func json(_ description: DatabaseDescription) -> JSONValue {
        .object([
            ("tables", .array(description.tables.map(json))),
            ("views", .array(description.views.map(json))),
        ])
    }

    private static func json(_ table: TableDescription) -> JSONValue {
        var members: [(String, JSONValue)] = [
            ("name", .string(table.name)),
            ("rowCount", .integer(Int64(table.rowCount))),
            (
                "columns",
                .array(
                    table.columns.map { column in
                        .object([
                            ("name", .string(column.name)),
                            ("type", .string(column.declaredType)),
                            ("notNull", .bool(column.isNotNull)),
                            ("default", column.defaultSQL.map(JSONValue.string) ?? .null),
                            ("primaryKeyPosition", .integer(Int64(column.primaryKeyPosition))),
                            ("generated", column.generated.map { JSONValue.string($0.rawValue) } ?? .null),
                            ("generatedAs", column.generatedExpression.map(JSONValue.string) ?? .null),
                            ("hidden", .bool(column.isHidden && column.generated == nil)),
                        ])
                    })
            ),
        ]
        guard !table.isView else { return .object(members) }
        members.append(("strict", .bool(table.isStrict)))
        members.append(("withoutRowID", .bool(table.isWithoutRowID)))
        members.append(("primaryKey", .array(table.primaryKey.map(JSONValue.string))))
        members.append(
            (
                "indexes",
                .array(
                    table.indexes.map { index in
                        .object([
                            ("name", .string(index.name)),
                            ("unique", .bool(index.isUnique)),
                            ("origin", .string(index.origin)),
                            ("partial", .bool(index.isPartial)),
                            ("columns", .array(index.columns.map { $0.map(JSONValue.string) ?? .null })),
                        ])
                    })
            ))
        members.append(
            (
                "foreignKeys",
                .array(
                    table.foreignKeys.map { key in
                        .object([
                            ("columns", .array(key.columns.map(JSONValue.string))),
                            ("parentTable", .string(key.parentTable)),
                            ("parentColumns", .array(key.parentColumns.map(JSONValue.string))),
                            ("onDelete", .string(key.onDelete)),
                            ("onUpdate", .string(key.onUpdate)),
                        ])
                    })
            ))
        return .object(members)
    }
}
