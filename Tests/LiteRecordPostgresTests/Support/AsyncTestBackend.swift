import Foundation
import LiteRecord
import LiteRecordPostgres

/// The async operations the async parity checks await, on SQLite (`Database`) or PostgreSQL
/// (`PostgresDatabase`), so that one check body holds both backends to the same semantics.
protocol AsyncTestBackend: Sendable {
    var name: String { get }
    func execute(_ sql: SQL) async throws
    func integers(_ sql: SQL) async throws -> [Int64]
    func migrate<M: Model>(_ type: M.Type) async throws
    func insert<M: Model>(_ model: inout M) async throws
    func insert<M: Model>(_ model: M) async throws
    func insert<M: Model>(contentsOf models: [M]) async throws -> [M]
    func update<M: Model>(_ model: M) async throws
    func save<M: Model>(_ model: inout M) async throws
    func delete<M: Model>(_ model: M) async throws -> Bool
    func delete<M: Model>(_ type: M.Type, id: Int64) async throws -> Bool
    func find<M: Model>(_ type: M.Type, id: Int64) async throws -> M?
    func exists<M: Model>(_ type: M.Type, id: Int64) async throws -> Bool
    func fetchAll<M: Model>(_ type: M.Type) async throws -> [M]
    func count<M: Model>(_ type: M.Type) async throws -> Int
    /// `first`, `exists` and the aggregates of the kettles drawing more than `watts`.
    func kettleSummary(above watts: Int) async throws -> KettleSummary
    /// `updateAll` adding `bonus` watts to the kettles above `watts`; the rows changed.
    func boostKettles(above watts: Int, by bonus: Int) async throws -> Int
    /// `deleteAll` of the kettles of at least `litres`; the rows deleted.
    func deleteKettles(holdingAtLeast litres: Double) async throws -> Int
}

/// The model the async parity checks store.
struct AsyncKettle: Model, Equatable {
    var id: Int64?
    var brand: String
    var litres: Double
    var watts: Int
    static let schema = Schema<AsyncKettle>(table: "async_parity_kettles", unique: [\.brand])
}

/// What the async query operations returned, on one backend.
struct KettleSummary: Equatable {
    var first: String?
    var exists: Bool
    var wattsSum: Int
    var litresMin: Double?
    var brandMax: String?
    var wattsAverage: Double?
}

/// SQLite: a `Database`.
struct SQLiteAsyncBackend: AsyncTestBackend {
    let database: Database
    var name: String { "SQLite" }

    func execute(_ sql: SQL) async throws { try await database.execute(sql: sql) }
    func integers(_ sql: SQL) async throws -> [Int64] { try await database.fetchAll(Int64.self, sql: sql) }
    func migrate<M: Model>(_ type: M.Type) async throws { try await database.migrate(M.self) }
    func insert<M: Model>(_ model: inout M) async throws { try await database.insert(&model) }
    func insert<M: Model>(_ model: M) async throws { try await database.insert(model) }
    func insert<M: Model>(contentsOf models: [M]) async throws -> [M] {
        try await database.insert(contentsOf: models)
    }
    func update<M: Model>(_ model: M) async throws { try await database.update(model) }
    func save<M: Model>(_ model: inout M) async throws { try await database.save(&model) }
    func delete<M: Model>(_ model: M) async throws -> Bool { try await database.delete(model) }
    func delete<M: Model>(_ type: M.Type, id: Int64) async throws -> Bool {
        try await database.delete(M.self, id: id)
    }
    func find<M: Model>(_ type: M.Type, id: Int64) async throws -> M? {
        try await database.find(M.self, id: id)
    }
    func exists<M: Model>(_ type: M.Type, id: Int64) async throws -> Bool {
        try await database.exists(M.self, id: id)
    }
    func fetchAll<M: Model>(_ type: M.Type) async throws -> [M] { try await database.fetchAll(M.self) }
    func count<M: Model>(_ type: M.Type) async throws -> Int { try await database.count(M.self) }
    func kettleSummary(above watts: Int) async throws -> KettleSummary {
        let query = database.query(AsyncKettle.self).where { $0.watts > watts }
        return KettleSummary(
            first: try await query.order { $0.watts.descending }.first()?.brand,
            exists: try await query.exists(), wattsSum: try await query.sum { $0.watts },
            litresMin: try await query.min { $0.litres }, brandMax: try await query.max { $0.brand },
            wattsAverage: try await query.average { $0.watts })
    }
    func boostKettles(above watts: Int, by bonus: Int) async throws -> Int {
        try await database.query(AsyncKettle.self).where { $0.watts > watts }
            .updateAll { [$0.watts.set(to: $0.watts + bonus)] }
    }
    func deleteKettles(holdingAtLeast litres: Double) async throws -> Int {
        try await database.query(AsyncKettle.self).where { $0.litres >= litres }.deleteAll()
    }
}

/// PostgreSQL: a `PostgresDatabase`.
struct PostgresAsyncBackend: AsyncTestBackend {
    let database: PostgresDatabase
    var name: String { "PostgreSQL" }

    func execute(_ sql: SQL) async throws { try await database.execute(sql: sql) }
    func integers(_ sql: SQL) async throws -> [Int64] { try await database.fetchAll(Int64.self, sql: sql) }
    func migrate<M: Model>(_ type: M.Type) async throws { try await database.migrate(M.self) }
    func insert<M: Model>(_ model: inout M) async throws { try await database.insert(&model) }
    func insert<M: Model>(_ model: M) async throws { try await database.insert(model) }
    func insert<M: Model>(contentsOf models: [M]) async throws -> [M] {
        try await database.insert(contentsOf: models)
    }
    func update<M: Model>(_ model: M) async throws { try await database.update(model) }
    func save<M: Model>(_ model: inout M) async throws { try await database.save(&model) }
    func delete<M: Model>(_ model: M) async throws -> Bool { try await database.delete(model) }
    func delete<M: Model>(_ type: M.Type, id: Int64) async throws -> Bool {
        try await database.delete(M.self, id: id)
    }
    func find<M: Model>(_ type: M.Type, id: Int64) async throws -> M? {
        try await database.find(M.self, id: id)
    }
    func exists<M: Model>(_ type: M.Type, id: Int64) async throws -> Bool {
        try await database.exists(M.self, id: id)
    }
    func fetchAll<M: Model>(_ type: M.Type) async throws -> [M] { try await database.fetchAll(M.self) }
    func count<M: Model>(_ type: M.Type) async throws -> Int { try await database.count(M.self) }
    func kettleSummary(above watts: Int) async throws -> KettleSummary {
        let query = database.query(AsyncKettle.self).where { $0.watts > watts }
        return KettleSummary(
            first: try await query.order { $0.watts.descending }.first()?.brand,
            exists: try await query.exists(), wattsSum: try await query.sum { $0.watts },
            litresMin: try await query.min { $0.litres }, brandMax: try await query.max { $0.brand },
            wattsAverage: try await query.average { $0.watts })
    }
    func boostKettles(above watts: Int, by bonus: Int) async throws -> Int {
        try await database.query(AsyncKettle.self).where { $0.watts > watts }
            .updateAll { [$0.watts.set(to: $0.watts + bonus)] }
    }
    func deleteKettles(holdingAtLeast litres: Double) async throws -> Int {
        try await database.query(AsyncKettle.self).where { $0.litres >= litres }.deleteAll()
    }
}
