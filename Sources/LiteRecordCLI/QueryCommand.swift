import Foundation
import LiteRecord

/// `literecord query DB SQL [--json]`.
enum QueryCommand {
    static let specification = CommandSpecification(
        name: "query", summary: "Run one SQL statement on a database, read-only, and print its rows.",
        operands: ["DB", "SQL"],
        flags: [.init("--json", help: "Print a JSON array of objects instead of a table.")],
        discussion: """
            SQL is one statement per call (a trailing semicolon or comment is fine). Text output \
            aligns the columns, shows NULL as NULL and cuts values longer than \
            \(TextTable.cellLimit) characters with …; blobs are shown as x'hex'. In JSON, keys \
            keep the column order; blobs are base64 strings; integers and finite reals are \
            numbers, infinite reals the strings "Infinity" and "-Infinity"; a column name that \
            repeats an earlier one gets the first free suffix :2, :3, ... (SELECT 1 AS a, 2 AS a \
            gives "a" and "a:2"). Statements that write fail: nothing is ever written to the \
            database, and its directory is left as it was found (no -wal, -shm or -journal file \
            added or removed).
            """)

    /// The column names and values of every row of `sql`.
    static func fetch(_ sql: String, from db: Database) throws -> (columns: [String], rows: [[DatabaseValue]])
    {
        try db.read { connection in
            let statement = try connection.makeStatement(sql: sql)
            let columns = (0..<statement.columnCount).map { statement.columnName(at: $0) }
            var rows: [[DatabaseValue]] = []
            while try statement.step() {
                rows.append(try (0..<columns.count).map { try statement.value(at: $0) })
            }
            return (columns, rows)
        }
    }

    static func run(_ arguments: ParsedArguments) throws -> String {
        let path = arguments.operand(0)
        let sql = arguments.operand(1)
        let db = try ReadOnlyDatabase.open(path)
        let result = try SingleStatement.perform(command: "query", verb: "runs") { try fetch(sql, from: db) }
        if arguments.flags.contains("--json") {
            return QueryJSON.text(columns: result.columns, rows: result.rows)
        }
        return text(columns: result.columns, rows: result.rows)
    }

    /// The aligned table, with numbers right-aligned, and a row count line.
    static func text(columns: [String], rows: [[DatabaseValue]]) -> String {
        let count = rows.count == 1 ? "(1 row)\n" : "(\(rows.count) rows)\n"
        guard !columns.isEmpty else { return count }
        let numeric = Set(
            columns.indices.filter { index in
                rows.allSatisfy { row in
                    switch row[index] {
                    case .integer, .real, .null: true
                    default: false
                    }
                }
            })
        let cells = rows.map { $0.map(TextTable.cell) }
        return TextTable.render(header: columns, rows: cells, rightAligned: numeric) + count
    }
}

/// `literecord explain DB SQL`.
enum ExplainCommand {
    static let specification = CommandSpecification(
        name: "explain", summary: "Show SQLite's query plan for a statement as a tree.",
        operands: ["DB", "SQL"],
        discussion: """
            Each full table scan (SCAN of a table without an index) adds a warning line at the \
            end. The statement is planned, not run.
            """)

    /// One step of the plan.
    struct Step: Equatable {
        var id: Int
        var parent: Int
        var detail: String
    }

    static func run(_ arguments: ParsedArguments) throws -> String {
        let db = try ReadOnlyDatabase.open(arguments.operand(0))
        let steps = try SingleStatement.perform(command: "explain", verb: "plans") {
            try plan(arguments.operand(1), in: db)
        }
        return render(steps)
    }

    static func plan(_ sql: String, in db: Database) throws -> [Step] {
        let result = try QueryCommand.fetch("EXPLAIN QUERY PLAN " + sql, from: db)
        return result.rows.compactMap { row in
            guard row.count >= 4, case .integer(let id) = row[0], case .integer(let parent) = row[1],
                case .text(let detail) = row[3]
            else { return nil }
            return Step(id: Int(id), parent: Int(parent), detail: detail)
        }
    }

    /// The plan as a tree (`├──`, `└──`), then a warning line per full table scan.
    static func render(_ steps: [Step]) -> String {
        var children: [Int: [Step]] = [:]
        for step in steps { children[step.parent, default: []].append(step) }
        let ids = Set(steps.map(\.id))
        // Roots: steps whose parent is no step (0 in SQLite's output).
        let roots = steps.filter { !ids.contains($0.parent) }
        var lines = ["QUERY PLAN"]
        func walk(_ nodes: [Step], prefix: String) {
            for (index, node) in nodes.enumerated() {
                let isLast = index == nodes.count - 1
                lines.append(prefix + (isLast ? "└── " : "├── ") + node.detail)
                walk(children[node.id] ?? [], prefix: prefix + (isLast ? "    " : "│   "))
            }
        }
        walk(roots, prefix: "")
        for table in fullScans(steps) {
            lines.append("warning: full table scan of \(table): every row is read (no index is used)")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// The tables that `SCAN <table>` steps read without an index.
    static func fullScans(_ steps: [Step]) -> [String] {
        steps.compactMap { step in
            guard step.detail.hasPrefix("SCAN ") else { return nil }
            let target = step.detail.dropFirst("SCAN ".count)
            if target.hasPrefix("(") || target.hasPrefix("CONSTANT ROW") { return nil }
            if target.contains(" USING ") || target.contains("VIRTUAL TABLE") { return nil }
            return String(target)
        }
    }
}
