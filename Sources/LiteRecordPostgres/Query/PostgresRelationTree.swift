import LiteRecord

/// How a query with `including` loads its rows and their related rows on PostgreSQL: one
/// `SELECT` per level of the tree, whatever the number of rows, in one snapshot. Built by
/// LiteRecordPostgres from LiteRecord's own tree (the same relations, SQL and grouping as on
/// SQLite).
struct PostgresRelationTree<Root: Model, Element: Sendable>: Sendable {
    let target: PostgresQueryTarget
    let tree: RelationTree<Root, Element>

    /// Every model whose table the query reads, at any level.
    var models: [any Model.Type] { tree.models }

    /// Runs the tree on its query's database or transaction.
    func fetchAll() throws -> [Element] {
        try fetch(on: target.context()).elements
    }

    /// Runs the tree on `context`: the tables are created first, then every level is read in
    /// one snapshot. `recordingRows` keeps every statement's rows, to tell a change.
    func fetch(on context: any PostgresContext, recordingRows: Bool = false) throws -> FetchedTree<Element> {
        try context.withReadingSession { session in
            try session.prepareTables(of: models)
            let reader = PostgresTreeReader(session: session, recordsRows: recordingRows)
            let elements = try session.inOneSnapshot {
                try tree.fetchAll(on: reader)
            }
            return FetchedTree(rows: reader.rows, elements: elements)
        }
    }
}

/// The rows of every statement of a tree's fetch (compared to tell a change) and the elements
/// decoded from them.
struct FetchedTree<Element: Sendable>: Sendable {
    let rows: [[[DatabaseValue]]]
    let elements: [Element]
}

/// Runs a tree's statements on a session, for LiteRecord's tree code.
final class PostgresTreeReader: RelationTreeBackend {
    let session: PostgresSession
    let recordsRows: Bool
    /// The rows of each statement run, when ``recordsRows``.
    private(set) var rows: [[[DatabaseValue]]] = []

    init(session: PostgresSession, recordsRows: Bool) {
        self.session = session
        self.recordsRows = recordsRows
    }

    func fetchRows<M: Model>(_ type: M.Type, sql: SQL, columns: [String]) throws -> (
        models: [M], values: [[DatabaseValue]]
    ) {
        guard let table = try session.readableTable(for: M.self) else { return ([], []) }
        let result = try session.execute(sql)
        if recordsRows { rows.append(result.rows) }
        let positions = try columns.map { column in
            guard let position = result.columnNames.firstIndex(of: column) else {
                throw SchemaError("the rows of \(table.name) have no column \(column) to relate them by")
            }
            return position
        }
        let decoder = table.rowDecoder(dateStorage: session.dateStorage)
        let models = try result.lrRows.map { try decoder.decode(M.self, from: $0) }
        return (models, result.rows.map { row in positions.map { row[$0] } })
    }
}

extension PostgresSession {
    /// Runs `body` in one `REPEATABLE READ` snapshot, so that the statements of an eager load
    /// see the same data, or right there inside the transaction already open.
    func inOneSnapshot<T>(_ body: () throws -> T) throws -> T {
        if transactionDepth > 0 { return try body() }
        return try runTransaction(begin: "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY") { _ in try body()
        }
    }
}
