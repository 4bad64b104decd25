import Foundation
import LiteRecord

/// A query on PostgreSQL whose rows come with related rows: what ``PostgresQuery/including(all:_:)->PostgresQueryIncludingAll<M,Target>``
/// and its siblings return, at any depth.
///
/// Besides its tuples, such a query fetches into a `Decodable` of your own whose properties are
/// the models, as LiteRecord's ``LiteRecord/IncludingQuery`` does on SQLite:
///
/// ```swift
/// struct Shelf: Decodable { var author: Author; var books: [Book] }
/// let shelves = try pg.query(Author.self).including(all: Book.self).fetchAll(Shelf.self)
/// ```
///
/// LiteRecordPostgres's own query types conform; there is nothing to implement.
///
/// ## Topics
/// - ``Root``
/// - ``Element``
/// - ``postgresRelationTree``
/// - ``fetchAll(_:)-3mn9h``
/// - ``fetchAll(_:)-7yicf``
public protocol PostgresIncludingQuery: Sendable {
    /// The model of the query's own rows: `Author`.
    associatedtype Root: Model
    /// What each root is fetched as: `(Author, [Book])`.
    associatedtype Element: Sendable
    /// How the query loads its rows and their related rows on PostgreSQL, level by level.
    var postgresRelationTree: PostgresRelationTree<Root, Element> { get }
}

/// How a query with `including` loads its rows and their related rows on PostgreSQL: one
/// `SELECT` per level of the tree, whatever the number of rows, in one snapshot. Built by
/// LiteRecordPostgres from LiteRecord's own tree (the same relations, SQL and grouping as on
/// SQLite); opaque.
public struct PostgresRelationTree<Root: Model, Element: Sendable>: Sendable {
    let target: PostgresQueryTarget
    let tree: RelationTree<Root, Element>
    /// Models whose tables the roots' conditions read, besides those the tree knows.
    let tables: [any Model.Type]

    /// Every model whose table the query reads, at any level.
    var models: [any Model.Type] { tree.models + tables }

    /// Runs the tree on its query's database or transaction.
    func fetchAll() throws -> [Element] {
        try fetch(on: target.context()).elements
    }

    /// Runs the tree on `context`: the tables are created first, then every level is read in
    /// one snapshot. `recordingRows` keeps every statement's rows, to tell a change.
    func fetch(on context: any PostgresContext, recordingRows: Bool = false) throws -> FetchedTree<Element> {
        try context.withSession { session in
            try session.prepareTables(of: models)
            let reader = PostgresTreeReader(session: session, recordsRows: recordingRows)
            let elements = try session.inOneSnapshot {
                try SQLDialect.$current.withValue(.postgres) { try tree.fetchAll(on: reader) }
            }
            return FetchedTree(rows: reader.rows, elements: elements)
        }
    }

    /// ``fetchAll()`` and `transform` off the calling task; inside a transaction, right there.
    func fetchAsync<T: Sendable>(_ transform: @escaping @Sendable ([Element]) throws -> T) async throws -> T {
        guard let database = target.database else {
            // A query on a transaction runs inside that transaction's closure, on its thread.
            return try transform(fetchAll())
        }
        let tree = self
        return try await database.runCancellable { _ in try transform(tree.fetchAll()) }
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

extension PostgresIncludingQuery {
    /// Every matching root with its related rows, each decoded into a `Decodable` of your own
    /// whose properties are the models: `struct Shelf: Decodable { var author: Author; var
    /// books: [Book] }`.
    ///
    /// Properties are matched by type, whatever their names: the root model (`Author`), the
    /// related rows (`[Book]` for `including(all:)`, `Author?` for `including(one:)`), or, for
    /// a nested tree, a `Decodable` of the same kind for each related row (`[BookWithReviews]`),
    /// as on SQLite.
    ///
    /// - Parameter type: The type of each result: `Shelf.self`.
    /// - Returns: One value per root, in the root query's order.
    /// - Throws: ``LiteRecord/SchemaError`` when a property asks for something the query does
    ///   not fetch, for a type that is both the root and the related model, or for a
    ///   non-optional related row that is missing; as `fetchAll()` otherwise.
    /// - Complexity: One `SELECT` per level (in one snapshot), whatever the number of rows.
    public func fetchAll<T: Decodable>(_ type: T.Type) throws -> [T] {
        let tree = postgresRelationTree
        return try tree.fetchAll().map { try tree.tree.decode(T.self, from: $0) }
    }

    /// Every matching root with its related rows, each decoded into a `Decodable` of your own,
    /// off the calling task.
    ///
    /// - Parameter type: The type of each result.
    /// - Returns: As ``fetchAll(_:)-3mn9h``.
    /// - Throws: As ``fetchAll(_:)-3mn9h``; ``LiteRecord/ResultCode/interrupt`` when cancelled.
    public func fetchAll<T: Decodable & Sendable>(_ type: T.Type) async throws -> [T] {
        let tree = postgresRelationTree
        return try await tree.fetchAsync { elements in
            try elements.map { try tree.tree.decode(T.self, from: $0) }
        }
    }
}
