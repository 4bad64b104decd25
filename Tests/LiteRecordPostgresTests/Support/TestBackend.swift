import Foundation
import LiteRecord
import LiteRecordPostgres
import Testing

/// The operations the backend-parity tests run, over SQLite (`Database`) or PostgreSQL
/// (`PostgresDatabase`), so that one test body checks both backends.
protocol TestBackend {
    var name: String { get }
    /// `query(M.self)` on the backend's database or transaction.
    func parityQuery<M: Model>(_ type: M.Type) -> any ParityQuery<M>
    func insert<M: Model>(_ model: inout M) throws
    func save<M: Model>(_ model: inout M) throws
    func update<M: Model>(_ model: M) throws
    func delete<M: Model>(_ model: M) throws -> Bool
    func find<M: Model>(_ type: M.Type, id: Int64) throws -> M?
    func fetchAll<M: Model>(
        _ type: M.Type, where condition: ((Columns<M>) -> Condition)?, order: ((Columns<M>) -> Ordering)?,
        limit: Int?
    ) throws -> [M]
    func count<M: Model>(_ type: M.Type, where condition: @escaping (Columns<M>) -> Condition) throws -> Int
    func execute(_ sql: SQL) throws
    func integer(_ sql: SQL) throws -> Int64?
    /// `fetchAll(_:fromTable:)`: a plain `Decodable` read from a table it names.
    func fetchAll<T: Decodable>(_ type: T.Type, fromTable table: String) throws -> [T]
    /// Runs `body` in a transaction, handing it a backend that runs inside it.
    func transaction(_ body: (any TestBackend) throws -> Void) throws
    /// Runs `body` in a savepoint (a transaction of its own outside one).
    func savepoint(_ name: String?, _ body: (any TestBackend) throws -> Void) throws
    /// `updateAll` of the rows a query selects; the number of rows changed.
    func updateAll<M: Model>(
        _ type: M.Type, where condition: ((Columns<M>) -> Condition)?, order: ((Columns<M>) -> Ordering)?,
        limit: Int?, offset: Int?, set assignments: (Columns<M>) -> [ColumnAssignment]
    ) throws -> Int
    /// `deleteAll` of the rows a query selects; the number of rows deleted.
    func deleteAll<M: Model>(
        _ type: M.Type, where condition: ((Columns<M>) -> Condition)?, order: ((Columns<M>) -> Ordering)?,
        limit: Int?, offset: Int?
    ) throws -> Int
    /// The aggregates of `TextRecord` columns over the rows a condition selects.
    func aggregates(where condition: @escaping (Columns<TextRecord>) -> Condition) throws -> TextAggregates
    /// One page of `TextRecord`s in an order, after a cursor.
    func page(
        order: @escaping (Columns<TextRecord>) -> Ordering, after cursor: TextRecord?, limit: Int
    ) throws -> [TextRecord]
}

/// `sum`, `min`, `max` and `average` of TextRecord columns, as one backend computed them.
struct TextAggregates: Equatable {
    var levelSum: Int
    var levelMin: Int?
    var levelMax: Int?
    var levelAverage: Double?
    var nickMax: String?
    var mathSum: Int
    var mathAverage: Double?
}

extension TestBackend {
    func fetchAll<M: Model>(_ type: M.Type) throws -> [M] {
        try fetchAll(M.self, where: nil, order: nil, limit: nil)
    }

    func fetchAll<M: Model>(
        _ type: M.Type, where condition: ((Columns<M>) -> Condition)?, order: ((Columns<M>) -> Ordering)?,
        limit: Int?
    ) throws -> [M] {
        try selection(M.self, where: condition, order: order, limit: limit, offset: nil).fetchAll()
    }

    func count<M: Model>(_ type: M.Type, where condition: @escaping (Columns<M>) -> Condition) throws -> Int {
        try parityQuery(M.self).where(condition).count()
    }

    func updateAll<M: Model>(
        _ type: M.Type, where condition: ((Columns<M>) -> Condition)?, order: ((Columns<M>) -> Ordering)?,
        limit: Int?, offset: Int?, set assignments: (Columns<M>) -> [ColumnAssignment]
    ) throws -> Int {
        try selection(M.self, where: condition, order: order, limit: limit, offset: offset).updateAll(
            assignments)
    }

    func deleteAll<M: Model>(
        _ type: M.Type, where condition: ((Columns<M>) -> Condition)?, order: ((Columns<M>) -> Ordering)?,
        limit: Int?, offset: Int?
    ) throws -> Int {
        try selection(M.self, where: condition, order: order, limit: limit, offset: offset).deleteAll()
    }

    func aggregates(where condition: @escaping (Columns<TextRecord>) -> Condition) throws -> TextAggregates {
        let query = parityQuery(TextRecord.self).where(condition)
        return TextAggregates(
            levelSum: try query.sum { $0.level }, levelMin: try query.min { $0.level },
            levelMax: try query.max { $0.level }, levelAverage: try query.average { $0.level },
            nickMax: try query.max { $0.nick }, mathSum: try query.sum { $0.scores["math"] },
            mathAverage: try query.average { $0.scores["math"] })
    }

    func page(
        order: @escaping (Columns<TextRecord>) -> Ordering, after cursor: TextRecord?, limit: Int
    ) throws -> [TextRecord] {
        try parityQuery(TextRecord.self).order(order).page(after: cursor, limit: limit).fetchAll()
    }

    /// The rows of `type` a query selects: its condition, order, limit and offset, each when given.
    private func selection<M: Model>(
        _ type: M.Type, where condition: ((Columns<M>) -> Condition)?, order: ((Columns<M>) -> Ordering)?,
        limit: Int?, offset: Int?
    ) -> any ParityQuery<M> {
        var query = parityQuery(M.self)
        if let condition { query = query.where(condition) }
        if let order { query = query.order(order) }
        if let limit { query = query.limit(limit, offset: nil) }
        if let offset { query = query.offset(offset) }
        return query
    }
}

/// SQLite: a `Database` or a transaction's connection.
struct SQLiteBackend: TestBackend {
    let context: any DatabaseContext
    var name: String { "SQLite" }

    static func temporary() throws -> SQLiteBackend {
        SQLiteBackend(context: try Database(.temporary))
    }

    func insert<M: Model>(_ model: inout M) throws { try context.insert(&model) }
    func save<M: Model>(_ model: inout M) throws { try context.save(&model) }
    func update<M: Model>(_ model: M) throws { try context.update(model) }
    func delete<M: Model>(_ model: M) throws -> Bool { try context.delete(model) }
    func find<M: Model>(_ type: M.Type, id: Int64) throws -> M? { try context.find(M.self, id: id) }
    func parityQuery<M: Model>(_ type: M.Type) -> any ParityQuery<M> { context.query(M.self) }
    func execute(_ sql: SQL) throws { try context.execute(sql: sql) }
    func integer(_ sql: SQL) throws -> Int64? { try context.fetchOne(Int64.self, sql: sql) }
    func fetchAll<T: Decodable>(_ type: T.Type, fromTable table: String) throws -> [T] {
        try context.fetchAll(T.self, fromTable: table)
    }
    func transaction(_ body: (any TestBackend) throws -> Void) throws {
        try context.transaction { tx in try body(SQLiteBackend(context: tx)) }
    }
    func savepoint(_ name: String?, _ body: (any TestBackend) throws -> Void) throws {
        try context.savepoint(name) { connection in try body(SQLiteBackend(context: connection)) }
    }
}

/// PostgreSQL: a `PostgresDatabase` or a transaction.
struct PostgresBackend: TestBackend {
    let context: any PostgresContext
    var name: String { "PostgreSQL" }

    func insert<M: Model>(_ model: inout M) throws { try context.insert(&model) }
    func save<M: Model>(_ model: inout M) throws { try context.save(&model) }
    func update<M: Model>(_ model: M) throws { try context.update(model) }
    func delete<M: Model>(_ model: M) throws -> Bool { try context.delete(model) }
    func find<M: Model>(_ type: M.Type, id: Int64) throws -> M? { try context.find(M.self, id: id) }
    func parityQuery<M: Model>(_ type: M.Type) -> any ParityQuery<M> { context.query(M.self) }
    func execute(_ sql: SQL) throws { try context.execute(sql: sql) }
    func integer(_ sql: SQL) throws -> Int64? { try context.fetchOne(Int64.self, sql: sql) }
    func fetchAll<T: Decodable>(_ type: T.Type, fromTable table: String) throws -> [T] {
        try context.fetchAll(T.self, fromTable: table)
    }
    func transaction(_ body: (any TestBackend) throws -> Void) throws {
        if let database = context as? PostgresDatabase {
            try database.transaction { tx in try body(PostgresBackend(context: tx)) }
        } else if let transaction = context as? PostgresTransaction {
            try transaction.transaction { tx in try body(PostgresBackend(context: tx)) }
        }
    }
    func savepoint(_ name: String?, _ body: (any TestBackend) throws -> Void) throws {
        if let database = context as? PostgresDatabase {
            try database.savepoint(name) { tx in try body(PostgresBackend(context: tx)) }
        } else if let transaction = context as? PostgresTransaction {
            try transaction.savepoint(name) { tx in try body(PostgresBackend(context: tx)) }
        }
    }
}

/// The PostgreSQL server the tests use: `LITERECORD_POSTGRES_URL` (`.ci/run` starts one with
/// `Scripts/postgres-test-server`). Without it the PostgreSQL tests are skipped.
enum PostgresTestServer {
    static let url: String? = {
        guard let url = ProcessInfo.processInfo.environment["LITERECORD_POSTGRES_URL"], !url.isEmpty else {
            return nil
        }
        return url
    }()

    static var isAvailable: Bool { url != nil }

    static let skipMessage: Comment =
        "LITERECORD_POSTGRES_URL is not set: start a server with Scripts/postgres-test-server start"

    /// A database in a schema of its own, so that tests running in parallel never share a table.
    static func freshDatabase(configuration: PostgresConfiguration = PostgresConfiguration()) throws
        -> PostgresDatabase
    {
        try freshDatabases(count: 1, configuration: configuration)[0]
    }

    /// Databases with pools of their own (as separate processes) on one fresh schema.
    static func freshDatabases(count: Int, configuration: PostgresConfiguration = PostgresConfiguration())
        throws -> [PostgresDatabase]
    {
        let url = try freshURL()
        return try (0..<count).map { _ in try PostgresDatabase(url: url, configuration: configuration) }
    }

    /// The URL of a fresh schema of its own on the test server, for code that opens the database
    /// itself.
    static func freshURL() throws -> String {
        guard let url else { throw DatabaseError(resultCode: .misuse, message: "no PostgreSQL server") }
        let schema = "t_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        let setup = try PostgresDatabase(url: url)
        try setup.execute(sql: SQL(verbatim: "CREATE SCHEMA \(schema)"))
        let separator = url.contains("?") ? "&" : "?"
        return url + separator + "options=-csearch_path%3D\(schema)"
    }

    static func backend() throws -> PostgresBackend {
        PostgresBackend(context: try freshDatabase())
    }
}
