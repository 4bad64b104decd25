import Foundation
import LiteRecord
import LiteRecordPostgres
import Synchronization
import Testing

/// Nested eager loading (`including` whose children closure includes again), its fetch into a
/// `Decodable`, and the statements a load runs, on SQLite or PostgreSQL. The children closures
/// are LiteRecord's on both backends; only the roots' query differs.
protocol NestedRelationTestBackend: RelationTestBackend {
    /// `query(Root)...including(all: Target.self) { children }.fetchAll()`, `children`
    /// including again.
    func fetchAll<Root: Model, Target: Model, Children: IncludingQuery>(
        _ root: RootShape<Root>, includingAll target: Target.Type, _ children: (Query<Target>) -> Children
    ) throws -> [(Root, [Children.Element])] where Children.Root == Target
    /// `query(Root)...including(one: Target.self) { child }.fetchAll()`, `child` including again.
    func fetchAll<Root: Model, Target: Model, Child: IncludingQuery>(
        _ root: RootShape<Root>, includingOne target: Target.Type, _ child: (Query<Target>) -> Child
    ) throws -> [(Root, Child.Element?)] where Child.Root == Target
    /// `query(Root)...including(all: Target.self, through: Junction.self) { children }.fetchAll()`.
    func fetchAll<Root: Model, Target: Model, Junction: Model, Children: IncludingQuery>(
        _ root: RootShape<Root>, includingAll target: Target.Type, through junction: Junction.Type,
        _ children: (Query<Target>) -> Children
    ) throws -> [(Root, [Children.Element])] where Children.Root == Target
    /// `query(Root)...including(all: Target.self) { children }.fetchAll(T.self)`, nested.
    func fetchAll<T: Decodable, Root: Model, Target: Model, Children: IncludingQuery>(
        _ type: T.Type, _ root: RootShape<Root>, includingAll target: Target.Type,
        _ children: (Query<Target>) -> Children
    ) throws -> [T] where Children.Root == Target
    /// `query(Root)...including(all: Target.self).fetchAll(T.self)`, one level.
    func fetchAll<T: Decodable, Root: Model, Target: Model>(
        _ type: T.Type, _ root: RootShape<Root>, includingAll target: Target.Type
    ) throws -> [T]
    /// Runs `body` on a backend inside a transaction and returns the `SELECT` statements it
    /// ran (the statements the database saw: SQLite's trace, PostgreSQL's statement log).
    func selects<T>(_ body: (Self) throws -> T) throws -> (value: T, selects: [String])
}

extension SQLiteBackend: NestedRelationTestBackend {
    func fetchAll<Root: Model, Target: Model, Children: IncludingQuery>(
        _ root: RootShape<Root>, includingAll target: Target.Type, _ children: (Query<Target>) -> Children
    ) throws -> [(Root, [Children.Element])] where Children.Root == Target {
        try rootQuery(root).including(all: Target.self, children).fetchAll()
    }

    func fetchAll<Root: Model, Target: Model, Child: IncludingQuery>(
        _ root: RootShape<Root>, includingOne target: Target.Type, _ child: (Query<Target>) -> Child
    ) throws -> [(Root, Child.Element?)] where Child.Root == Target {
        try rootQuery(root).including(one: Target.self, child).fetchAll()
    }

    func fetchAll<Root: Model, Target: Model, Junction: Model, Children: IncludingQuery>(
        _ root: RootShape<Root>, includingAll target: Target.Type, through junction: Junction.Type,
        _ children: (Query<Target>) -> Children
    ) throws -> [(Root, [Children.Element])] where Children.Root == Target {
        try rootQuery(root).including(all: Target.self, through: Junction.self, children).fetchAll()
    }

    func fetchAll<T: Decodable, Root: Model, Target: Model, Children: IncludingQuery>(
        _ type: T.Type, _ root: RootShape<Root>, includingAll target: Target.Type,
        _ children: (Query<Target>) -> Children
    ) throws -> [T] where Children.Root == Target {
        try rootQuery(root).including(all: Target.self, children).fetchAll(T.self)
    }

    func fetchAll<T: Decodable, Root: Model, Target: Model>(
        _ type: T.Type, _ root: RootShape<Root>, includingAll target: Target.Type
    ) throws -> [T] {
        try rootQuery(root).including(all: Target.self).fetchAll(T.self)
    }

    func selects<T>(_ body: (SQLiteBackend) throws -> T) throws -> (value: T, selects: [String]) {
        let database = try #require(context as? Database)
        let log = StatementTexts()
        database.trace { log.append($0) }
        defer { database.trace(nil) }
        let value = try database.transaction { tx in try body(SQLiteBackend(context: tx)) }
        return (value, log.texts.filter(Self.isSelect))
    }
}

extension PostgresBackend: NestedRelationTestBackend {
    func fetchAll<Root: Model, Target: Model, Children: IncludingQuery>(
        _ root: RootShape<Root>, includingAll target: Target.Type, _ children: (Query<Target>) -> Children
    ) throws -> [(Root, [Children.Element])] where Children.Root == Target {
        try rootQuery(root).including(all: Target.self, children).fetchAll()
    }

    func fetchAll<Root: Model, Target: Model, Child: IncludingQuery>(
        _ root: RootShape<Root>, includingOne target: Target.Type, _ child: (Query<Target>) -> Child
    ) throws -> [(Root, Child.Element?)] where Child.Root == Target {
        try rootQuery(root).including(one: Target.self, child).fetchAll()
    }

    func fetchAll<Root: Model, Target: Model, Junction: Model, Children: IncludingQuery>(
        _ root: RootShape<Root>, includingAll target: Target.Type, through junction: Junction.Type,
        _ children: (Query<Target>) -> Children
    ) throws -> [(Root, [Children.Element])] where Children.Root == Target {
        try rootQuery(root).including(all: Target.self, through: Junction.self, children).fetchAll()
    }

    func fetchAll<T: Decodable, Root: Model, Target: Model, Children: IncludingQuery>(
        _ type: T.Type, _ root: RootShape<Root>, includingAll target: Target.Type,
        _ children: (Query<Target>) -> Children
    ) throws -> [T] where Children.Root == Target {
        try rootQuery(root).including(all: Target.self, children).fetchAll(T.self)
    }

    func fetchAll<T: Decodable, Root: Model, Target: Model>(
        _ type: T.Type, _ root: RootShape<Root>, includingAll target: Target.Type
    ) throws -> [T] {
        try rootQuery(root).including(all: Target.self).fetchAll(T.self)
    }

    func selects<T>(_ body: (PostgresBackend) throws -> T) throws -> (value: T, selects: [String]) {
        let database = try #require(context as? PostgresDatabase)
        let (value, statements) = try database.transactionLoggingStatements { tx in
            try body(PostgresBackend(context: tx))
        }
        return (value, statements.map(\.text).filter(SQLiteBackend.isSelect))
    }
}

extension SQLiteBackend {
    /// Whether a statement's text is a `SELECT`.
    static func isSelect(_ text: String) -> Bool {
        text.trimmingCharacters(in: .whitespacesAndNewlines).uppercased().hasPrefix("SELECT")
    }
}

/// Statement texts a trace handler collects, from whatever thread runs the statement.
private final class StatementTexts: Sendable {
    private let lock = Mutex<[String]>([])

    var texts: [String] { lock.withLock { $0 } }

    func append(_ text: String) { lock.withLock { $0.append(text) } }
}
