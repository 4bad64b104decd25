import Foundation
import LiteRecord
import LiteRecordPostgres
import Testing

/// Where a parity check runs. The checks call the library's `ModelContext` / `ModelDatabase`
/// on the database they are handed; this fixture holds only what genuinely differs per
/// backend: its name in messages, whether it is SQLite (where a check asserts each backend's
/// own documented behaviour), how to make a fresh database of it, and catalog queries written
/// the way each backend's own tools read its schema.
enum ParityBackend: String, Sendable, CaseIterable {
    case sqliteMemory = "SQLite (in memory)"
    case sqliteFile = "SQLite (file)"
    case postgres = "PostgreSQL"

    var name: String { rawValue }

    /// Whether the database is SQLite, whose documented behaviour differs from PostgreSQL's in
    /// a few places a check states (NUL in text, several statements in one string).
    var isSQLite: Bool { self != .postgres }

    /// Runs `body` on a fresh, empty database of this backend (a file in a directory of its
    /// own, removed afterwards; a PostgreSQL schema of its own).
    func run<T>(_ body: (any ParityDatabase, ParityBackend) throws -> T) throws -> T {
        switch self {
        case .sqliteMemory: return try body(Database(.inMemory), self)
        case .sqliteFile:
            let directory = try Self.makeDirectory()
            defer { try? FileManager.default.removeItem(at: directory) }
            return try body(Database(path: directory.appendingPathComponent("db.sqlite").path), self)
        case .postgres: return try body(PostgresTestServer.freshDatabase(), self)
        }
    }

    /// ``run(_:)`` for an async check.
    func runAsync<T>(_ body: (any ParityDatabase, ParityBackend) async throws -> T) async throws -> T {
        switch self {
        case .sqliteMemory: return try await body(Database(.inMemory), self)
        case .sqliteFile:
            let directory = try Self.makeDirectory()
            defer { try? FileManager.default.removeItem(at: directory) }
            return try await body(Database(path: directory.appendingPathComponent("db.sqlite").path), self)
        case .postgres: return try await body(PostgresTestServer.freshDatabase(), self)
        }
    }

    private static func makeDirectory() throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "literecord-parity-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }

    /// The names of the tables in the database (its schema, on PostgreSQL), from the catalog.
    func tableNames(in db: some ModelContext) throws -> [String] {
        let sql: SQL =
            isSQLite
            ? "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name"
            : """
            SELECT table_name::text FROM information_schema.tables WHERE table_schema = current_schema()
            ORDER BY table_name
            """
        return try db.fetchAll(String.self, sql: sql)
    }

    /// The foreign keys of a table: its columns (joined by `,`) and `ON DELETE` action, in
    /// SQLite's spelling (`CASCADE`, `SET NULL`, `RESTRICT`, `NO ACTION`), sorted; read from
    /// the backend's catalog, as another tool would.
    func foreignKeys(of table: String, in db: some ModelContext) throws -> [String] {
        if isSQLite {
            return try db.fetchAll(
                String.self,
                sql: """
                    SELECT group_concat("from", ',') || ' ' || on_delete FROM pragma_foreign_key_list(\(table))
                    GROUP BY id ORDER BY 1
                    """)
        }
        return try db.fetchAll(
            String.self,
            sql: """
                SELECT (SELECT string_agg(a.attname, ',' ORDER BY k.o) FROM unnest(c.conkey) WITH ORDINALITY AS k(n, o)
                        JOIN pg_attribute AS a ON a.attrelid = c.conrelid AND a.attnum = k.n)
                    || ' ' || CASE c.confdeltype WHEN 'c' THEN 'CASCADE' WHEN 'n' THEN 'SET NULL'
                        WHEN 'r' THEN 'RESTRICT' WHEN 'a' THEN 'NO ACTION' ELSE 'SET DEFAULT' END
                FROM pg_constraint AS c WHERE c.conrelid = CAST(quote_ident(\(table)) AS regclass) AND c.contype = 'f'
                ORDER BY 1
                """)
    }

    /// The column lists (joined by `,`) of a table's indexes, sorted, read from the catalog.
    func indexedColumns(of table: String, in db: some ModelContext) throws -> [String] {
        if isSQLite {
            return try db.fetchAll(
                String.self,
                sql: """
                    SELECT (SELECT group_concat(name, ',') FROM pragma_index_info(list.name)) AS columns
                    FROM pragma_index_list(\(table)) AS list ORDER BY 1
                    """)
        }
        return try db.fetchAll(
            String.self,
            sql: """
                SELECT (SELECT string_agg(a.attname, ',' ORDER BY k.o) FROM unnest(i.indkey) WITH ORDINALITY AS k(n, o)
                        JOIN pg_attribute AS a ON a.attrelid = i.indrelid AND a.attnum = k.n)
                FROM pg_index AS i WHERE i.indrelid = CAST(quote_ident(\(table)) AS regclass) ORDER BY 1
                """)
    }
}

/// A database the parity checks run on: the library's `ModelDatabase`, with the one reading
/// both backends offer outside the protocol (`fetchAll(_:fromTable:)`, the same method on
/// both) and the statement log each keeps its own way.
protocol ParityDatabase: ModelDatabase {
    func fetchAll<T: Decodable>(_ type: T.Type, fromTable table: String) throws -> [T]
    /// Runs `body` in a transaction and returns the `SELECT` statements it ran (the statements
    /// the database saw: SQLite's trace, PostgreSQL's statement log).
    func selects<T>(_ body: (Transaction) throws -> T) throws -> (value: T, selects: [String])
}

extension Database: ParityDatabase {
    func selects<T>(_ body: (Connection) throws -> T) throws -> (value: T, selects: [String]) {
        let log = StatementTexts()
        trace { log.append($0) }
        defer { trace(nil) }
        let value = try transaction(body)
        return (value, log.texts.filter(isSelect))
    }
}

extension PostgresDatabase: ParityDatabase {
    func selects<T>(_ body: (PostgresTransaction) throws -> T) throws -> (value: T, selects: [String]) {
        let (value, statements) = try transactionLoggingStatements(body)
        return (value, statements.map(\.text).filter(isSelect))
    }
}

/// Whether a statement's text is a `SELECT`.
func isSelect(_ text: String) -> Bool {
    text.trimmingCharacters(in: .whitespacesAndNewlines).uppercased().hasPrefix("SELECT")
}

/// Statement texts a trace handler collects, from whatever thread runs the statement.
///
/// Behind `Locked`, not `Synchronization.Mutex`, whose futex waits the thread sanitizer cannot
/// see: a statement traced on a reader's thread would be reported as a data race.
private final class StatementTexts: Sendable {
    private let lock = Locked<[String]>([])

    var texts: [String] { lock.withLock { $0 } }

    func append(_ text: String) { lock.withLock { $0.append(text) } }
}
