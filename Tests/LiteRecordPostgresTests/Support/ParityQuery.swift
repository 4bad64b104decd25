import Foundation
import LiteRecord
import LiteRecordPostgres

/// A query of either backend, a SQLite `Query` or a `PostgresQuery`, with the operations the
/// projection checks run (ProjectionParityChecks.swift), so that one source builds both.
protocol ParityQuery<M> {
    associatedtype M: Model
    func `where`(_ condition: (Columns<M>) -> Condition) -> Self
    func order(_ ordering: (Columns<M>) -> Ordering) -> Self
    func limit(_ count: Int, offset: Int?) -> Self
    func group(by keyPaths: PartialKeyPath<M>...) -> Self
    func count() throws -> Int
    func fetchAll() throws -> [M]
    func forEach(_ body: (M) throws -> Void) throws
    /// `select(T.self)`, then `fetchAll()`, `fetchOne()` or `forEach`.
    func selectAll<T: Decodable>(_ type: T.Type) throws -> [T]
    func selectOne<T: Decodable>(_ type: T.Type) throws -> T?
    func selectForEach<T: Decodable>(_ type: T.Type, _ body: (T) throws -> Void) throws
    /// `select(T.self) { selection }`, then `fetchAll()`, `fetchOne()` or `forEach`.
    func selectAll<T: Decodable>(_ type: T.Type, _ selection: (Columns<M>) -> [SelectedColumn]) throws -> [T]
    func selectOne<T: Decodable>(_ type: T.Type, _ selection: (Columns<M>) -> [SelectedColumn]) throws -> T?
    func selectForEach<T: Decodable>(
        _ type: T.Type, _ selection: (Columns<M>) -> [SelectedColumn], _ body: (T) throws -> Void
    ) throws
}

extension Query: ParityQuery {
    func selectAll<T: Decodable>(_ type: T.Type) throws -> [T] { try select(T.self).fetchAll() }
    func selectOne<T: Decodable>(_ type: T.Type) throws -> T? { try select(T.self).fetchOne() }
    func selectForEach<T: Decodable>(_ type: T.Type, _ body: (T) throws -> Void) throws {
        try select(T.self).forEach(body)
    }
    func selectAll<T: Decodable>(_ type: T.Type, _ selection: (Columns<M>) -> [SelectedColumn]) throws -> [T]
    {
        try select(T.self, selection).fetchAll()
    }
    func selectOne<T: Decodable>(_ type: T.Type, _ selection: (Columns<M>) -> [SelectedColumn]) throws -> T? {
        try select(T.self, selection).fetchOne()
    }
    func selectForEach<T: Decodable>(
        _ type: T.Type, _ selection: (Columns<M>) -> [SelectedColumn], _ body: (T) throws -> Void
    ) throws {
        try select(T.self, selection).forEach(body)
    }
}

extension PostgresQuery: ParityQuery {
    func selectAll<T: Decodable>(_ type: T.Type) throws -> [T] { try select(T.self).fetchAll() }
    func selectOne<T: Decodable>(_ type: T.Type) throws -> T? { try select(T.self).fetchOne() }
    func selectForEach<T: Decodable>(_ type: T.Type, _ body: (T) throws -> Void) throws {
        try select(T.self).forEach(body)
    }
    func selectAll<T: Decodable>(_ type: T.Type, _ selection: (Columns<M>) -> [SelectedColumn]) throws -> [T]
    {
        try select(T.self, selection).fetchAll()
    }
    func selectOne<T: Decodable>(_ type: T.Type, _ selection: (Columns<M>) -> [SelectedColumn]) throws -> T? {
        try select(T.self, selection).fetchOne()
    }
    func selectForEach<T: Decodable>(
        _ type: T.Type, _ selection: (Columns<M>) -> [SelectedColumn], _ body: (T) throws -> Void
    ) throws {
        try select(T.self, selection).forEach(body)
    }
}

/// A backend whose queries the projection checks build.
protocol ProjectionTestBackend: TestBackend {
    /// `query(M.self)` on the backend's database or transaction.
    func parityQuery<M: Model>(_ type: M.Type) -> any ParityQuery<M>
}

extension SQLiteBackend: ProjectionTestBackend {
    func parityQuery<M: Model>(_ type: M.Type) -> any ParityQuery<M> { context.query(M.self) }
}

extension PostgresBackend: ProjectionTestBackend {
    func parityQuery<M: Model>(_ type: M.Type) -> any ParityQuery<M> { context.query(M.self) }
}
