import Foundation
import LiteRecord
import Testing

// A type of another package may adopt `ModelDatabase` by writing the synchronous operations,
// the transactions and the observations: the async model and SQL operations come with the
// protocol. Written without LiteRecord's package access, they run in the type's own async
// `write` (writes) and `read` (reads); this test checks that they do, and that they work.

/// A database of "another package": forwards to a SQLite `Database` and counts the async
/// transactions it is asked for. Its synchronous operations come from a protocol extension, as
/// LiteRecord's own do: a synchronous method declared in the type itself would satisfy the
/// protocol's async requirement of the same name (Swift lets it), and run on the caller's task.
private final class CountingDatabase: ForwardingContext, ModelDatabase {
    typealias Transaction = Connection
    let base: Database
    let asyncWrites = Counter()
    let asyncReads = Counter()

    init(_ base: Database) { self.base = base }

    final class Counter: @unchecked Sendable {
        // @unchecked Sendable: `count` is only touched under `lock` (NSLock, which the thread
        // sanitizer understands).
        private let lock = NSLock()
        private var count = 0
        var value: Int { lock.withLock { count } }
        func increment() { lock.withLock { count += 1 } }
    }

    func write<T>(_ body: (Connection) throws -> T) throws -> T { try base.write(body) }
    func read<T>(_ body: (Connection) throws -> T) throws -> T { try base.read(body) }
    func transaction<T: Sendable>(_ body: @escaping @Sendable (Connection) throws -> T) async throws -> T {
        try await base.transaction(body)
    }
    func write<T: Sendable>(_ body: @escaping @Sendable (Connection) throws -> T) async throws -> T {
        asyncWrites.increment()
        return try await base.write(body)
    }
    func read<T: Sendable>(_ body: @escaping @Sendable (Connection) throws -> T) async throws -> T {
        asyncReads.increment()
        return try await base.read(body)
    }
    func savepoint<T: Sendable>(_ name: String?, _ body: @escaping @Sendable (Connection) throws -> T)
        async throws -> T
    {
        try await base.savepoint(name, body)
    }
    func observe<M: Model>(_ query: Query<M>) -> DatabaseObservation<[M]> { base.observe(query) }
    func observe<Including: IncludingQuery>(_ query: Including) -> DatabaseObservation<[Including.Element]> {
        base.observe(query)
    }
    func observe<Value: Sendable & Equatable>(_ fetch: @escaping @Sendable (Connection) throws -> Value)
        -> DatabaseObservation<Value>
    {
        base.observe(fetch)
    }
}

/// The synchronous operations, forwarded to a SQLite database.
private protocol ForwardingContext: ModelContext where Transaction == Connection {
    var base: Database { get }
}

extension ForwardingContext {
    func insert<M: Model>(_ model: inout M) throws { try base.insert(&model) }
    func insert<M: Model>(_ model: M) throws { try base.insert(model) }
    func insert<M: Model, S: Sequence<M>>(contentsOf models: S) throws -> [M] {
        try base.insert(contentsOf: models)
    }
    func save<M: Model>(_ model: inout M) throws { try base.save(&model) }
    func update<M: Model>(_ model: M) throws { try base.update(model) }
    func update<M: Model>(_ model: M, columns: [PartialKeyPath<M>]) throws {
        try base.update(model, columns: columns)
    }
    func upsert<M: Model>(_ model: inout M, onConflict: [PartialKeyPath<M>], update: [PartialKeyPath<M>]?)
        throws
    {
        try base.upsert(&model, onConflict: onConflict, update: update)
    }
    func insertOrIgnore<M: Model>(_ model: inout M, onConflict: [PartialKeyPath<M>]) throws -> Bool {
        try base.insertOrIgnore(&model, onConflict: onConflict)
    }
    func insertAndFetch<M: Model>(_ model: M) throws -> M { try base.insertAndFetch(model) }
    func updateAndFetch<M: Model>(_ model: M) throws -> M { try base.updateAndFetch(model) }
    func upsertAndFetch<M: Model>(_ model: M, onConflict: [PartialKeyPath<M>], update: [PartialKeyPath<M>]?)
        throws -> M
    {
        try base.upsertAndFetch(model, onConflict: onConflict, update: update)
    }
    func delete<M: Model>(_ model: M) throws -> Bool { try base.delete(model) }
    func delete<M: Model>(_ type: M.Type, id: some DatabaseValueConvertible) throws -> Bool {
        try base.delete(M.self, id: id)
    }
    func delete<M: Model>(_ type: M.Type, key: [any DatabaseValueConvertible]) throws -> Bool {
        try base.delete(M.self, key: key)
    }
    func migrate<M: Model>(_ type: M.Type) throws { try base.migrate(M.self) }
    func find<M: Model>(_ type: M.Type, id: some DatabaseValueConvertible) throws -> M? {
        try base.find(M.self, id: id)
    }
    func find<M: Model>(_ type: M.Type, key: [any DatabaseValueConvertible]) throws -> M? {
        try base.find(M.self, key: key)
    }
    func exists<M: Model>(_ type: M.Type, id: some DatabaseValueConvertible) throws -> Bool {
        try base.exists(M.self, id: id)
    }
    func fetchAll<M: Model>(_ type: M.Type) throws -> [M] { try base.fetchAll(M.self) }
    func count<M: Model>(_ type: M.Type) throws -> Int { try base.count(M.self) }
    func query<M: Model>(_ type: M.Type) -> Query<M> { base.query(M.self) }
    func execute(sql: SQL) throws -> Int { try base.execute(sql: sql) }
    func execute(sql: String, arguments: StatementArguments) throws -> Int {
        try base.execute(sql: sql, arguments: arguments)
    }
    func fetchAll<T: Decodable>(_ type: T.Type, sql: SQL) throws -> [T] {
        try base.fetchAll(T.self, sql: sql)
    }
    func fetchAll<T: Decodable>(_ type: T.Type, sql: String, arguments: StatementArguments) throws -> [T] {
        try base.fetchAll(T.self, sql: sql, arguments: arguments)
    }
    func fetchOne<T: Decodable>(_ type: T.Type, sql: SQL) throws -> T? { try base.fetchOne(T.self, sql: sql) }
    func fetchAll<T: Decodable>(_ type: T.Type, fromTable table: String) throws -> [T] {
        try base.fetchAll(T.self, fromTable: table)
    }
    func fetchAll(_ type: Row.Type, sql: SQL) throws -> [Row] { try base.fetchAll(Row.self, sql: sql) }
    func fetchAll(_ type: Row.Type, sql: String, arguments: StatementArguments) throws -> [Row] {
        try base.fetchAll(Row.self, sql: sql, arguments: arguments)
    }
    func fetchOne(_ type: Row.Type, sql: SQL) throws -> Row? { try base.fetchOne(Row.self, sql: sql) }
    func forEachRow(sql: SQL, _ body: (Row) throws -> Void) throws { try base.forEachRow(sql: sql, body) }
    func transaction<T>(_ body: (Connection) throws -> T) throws -> T { try base.transaction(body) }
    func savepoint<T>(_ name: String?, _ body: (Connection) throws -> T) throws -> T {
        try base.savepoint(name, body)
    }
}

private struct Pet: Model, Equatable {
    var id: Int64?
    var name: String
    var age: Int
}

/// The data layer, written once against the protocol as a user's would be.
private func writeAndRead(_ db: some ModelDatabase) async throws -> Int64 {
    var rex = Pet(id: nil, name: "Rex", age: 3)
    try await db.insert(&rex)
    let rexID = try #require(rex.id)
    try await db.insert(Pet(id: 10, name: "Tom", age: 5))
    let batch = try await db.insert(contentsOf: [Pet(id: nil, name: "Kit", age: 1)])
    #expect(batch.first?.id != nil)
    rex.age = 4
    try await db.update(rex)
    try await db.update(Pet(id: rexID, name: "unwritten", age: 6), columns: [\.age])
    return rexID
}

private func readAndDelete(_ db: some ModelDatabase, rexID: Int64) async throws {
    #expect(try await db.find(Pet.self, id: rexID) == Pet(id: rexID, name: "Rex", age: 6))
    #expect(try await db.count(Pet.self) == 3)
    #expect(try await db.fetchAll(Int.self, sql: "SELECT age FROM pet ORDER BY age") == [1, 5, 6])
}

private func deleteSome(_ db: some ModelDatabase) async throws {
    #expect(try await db.execute(sql: "DELETE FROM pet WHERE age < \(2)") == 1)
    #expect(try await db.delete(Pet.self, id: 10))
}

@Suite(.offCooperativePool) struct ThirdPartyModelDatabaseTests {
    @Test func asyncOperationsRunInTheTypesOwnWriteAndRead() async throws {
        let db = CountingDatabase(try Database(.inMemory))
        let rexID = try await writeAndRead(db)
        #expect(db.asyncWrites.value == 5)
        #expect(db.asyncReads.value == 0)

        // Reads: the type's own `read`, which sees the writes.
        try await readAndDelete(db, rexID: rexID)
        #expect(db.asyncReads.value == 3)

        try await deleteSome(db)
        #expect(db.asyncWrites.value == 7)
        #expect(try await db.base.fetchAll(Pet.self).map(\.name) == ["Rex"])
    }
}
