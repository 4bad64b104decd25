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

extension PostgresTestServer {
    static func backend() throws -> PostgresBackend {
        PostgresBackend(context: try freshDatabase())
    }
}
