import CLibPQ
import Foundation
import LiteRecord

/// Versioned schema migrations on PostgreSQL: named steps, each applied once, in order, and
/// recorded in the database, with the API and the rules of SQLite's ``LiteRecord/Migrator``.
///
/// Register every migration your program has ever shipped, oldest first, and never change or
/// remove one that has shipped; add new ones at the end. ``migrate(_:)`` applies those the
/// database has not seen yet:
///
/// ```swift
/// var migrator = PostgresMigrator()
/// migrator.registerMigration("create posts") { tx in
///     try tx.execute(sql: "CREATE TABLE posts(id bigint PRIMARY KEY, title text)")
/// }
/// migrator.registerMigration("add userId") { tx in
///     try tx.execute(sql: "ALTER TABLE posts ADD COLUMN userId bigint")
/// }
/// try migrator.migrate(pg)                              // at every launch
/// ```
///
/// Rules, as on SQLite:
/// - Each migration runs in its own transaction together with the insert of its record in the
///   `literecord_migrations` table (the same name and columns as SQLite's), so it is either
///   applied and recorded, or neither: PostgreSQL's DDL is transactional, so a failing
///   migration leaves no half-created table behind. A migration that throws, or whose statement
///   failed (which aborts the transaction in PostgreSQL, even when the closure caught the
///   error), is rolled back, the run stops, and ``LiteRecord/MigrationError`` names it and wraps
///   its error. Earlier migrations stay applied; fix it and call `migrate` again.
/// - Names are any text without NUL characters (PostgreSQL text cannot hold one; such a name
///   fails before its migration runs); they are bound as values and compared by their exact
///   UTF-8 bytes (the column has the `"C"` collation).
/// - Registering a name twice makes ``migrate(_:)`` throw
///   (``LiteRecord/MigrationError/isDuplicateName``) before running anything.
/// - When the database records a migration this migrator does not know, ``migrate(_:)`` throws
///   (``LiteRecord/MigrationError/isUnknownAppliedMigration``) and runs nothing.
/// - Migrators running at the same time, in this process or others, apply each migration once:
///   each migration's transaction takes an advisory lock and checks again that the migration is
///   not recorded yet.
/// - Called inside a transaction, each migration runs in a savepoint of it, and the whole run
///   commits or rolls back with that transaction.
///
/// ## Topics
/// - ``init()``
/// - ``registerMigration(_:migrate:)``
/// - ``migrate(_:)``
/// - ``migrate(_:upTo:)``
/// - ``appliedMigrations(in:)``
/// - ``hasCompletedMigrations(in:)``
/// - ``migrationNames``
/// - ``tableName``
public struct PostgresMigrator: Sendable {
    private struct Migration: Sendable {
        let name: String
        let migrate: @Sendable (PostgresTransaction) throws -> Void
    }

    /// The table where applied migrations are recorded: `name`, `position` (the order they were
    /// applied in) and `applied_at` (UTC text), as ``LiteRecord/Migrator/tableName`` on SQLite.
    /// It is created, in the connection's current schema, by the first migration applied.
    public static let tableName = Migrator.tableName

    private var migrations: [Migration] = []
    private var registeredKeys: Set<[UInt8]> = []
    private var duplicateNames: [String] = []

    /// Creates a migrator with no migrations.
    public init() {}

    /// The names of the registered migrations, in registration order (duplicates left out).
    public var migrationNames: [String] {
        migrations.map(\.name)
    }

    /// Registers a migration, to run after those registered before it.
    ///
    /// Registering a name that is already registered keeps the first registration and makes
    /// every later ``migrate(_:)`` throw a ``LiteRecord/MigrationError`` before it runs anything.
    ///
    /// - Parameters:
    ///   - name: The migration's permanent identity: text compared by exact UTF-8 bytes.
    ///   - migrate: The work, on the transaction it receives. It must not commit or roll back
    ///     that transaction itself.
    public mutating func registerMigration(
        _ name: String, migrate: @escaping @Sendable (PostgresTransaction) throws -> Void
    ) {
        guard registeredKeys.insert(Self.key(name)).inserted else {
            if !duplicateNames.contains(where: { Self.key($0) == Self.key(name) }) {
                duplicateNames.append(name)
            }
            return
        }
        migrations.append(Migration(name: name, migrate: migrate))
    }

    /// Applies every registered migration the database has not applied yet, in registration
    /// order.
    ///
    /// When nothing is pending it only reads the migrations table and writes nothing.
    ///
    /// - Parameter db: The database, or a transaction.
    /// - Throws: ``LiteRecord/MigrationError``: when a migration fails (it is rolled back, later
    ///   ones do not run, earlier ones stay applied); when a name was registered twice; when the
    ///   database records a migration this migrator does not know. ``LiteRecord/DatabaseError``
    ///   when the migrations table cannot be read.
    public func migrate(_ db: some PostgresContext) throws {
        try checkRegistrations()
        try apply(migrations[...], in: db)
    }

    /// Applies the pending registered migrations up to and including the one named `name`.
    ///
    /// - Parameters:
    ///   - db: The database, or a transaction.
    ///   - name: The last migration to apply; it must be registered.
    /// - Throws: As ``migrate(_:)``, and a ``LiteRecord/MigrationError``
    ///   (``LiteRecord/MigrationError/isUnknownTarget``) when no migration named `name` is
    ///   registered.
    public func migrate(_ db: some PostgresContext, upTo name: String) throws {
        try checkRegistrations()
        let target = Self.key(name)
        guard let index = migrations.firstIndex(where: { Self.key($0.name) == target }) else {
            throw MigrationError.unknownTarget(name)
        }
        try apply(migrations[...index], in: db)
    }

    /// The names of the migrations the database has applied, in the order they were applied,
    /// including those this migrator does not know. A database never migrated gives `[]` and
    /// stays untouched.
    ///
    /// - Parameter db: The database, or a transaction.
    /// - Returns: The applied migrations' names.
    /// - Throws: ``LiteRecord/DatabaseError`` when the migrations table cannot be read.
    public func appliedMigrations(in db: some PostgresContext) throws -> [String] {
        try db.withSession { try Self.appliedNames($0) }
    }

    /// Whether the database has applied every registered migration.
    ///
    /// - Parameter db: The database, or a transaction.
    /// - Returns: `true` when no registered migration is pending.
    /// - Throws: ``LiteRecord/DatabaseError`` when the migrations table cannot be read.
    public func hasCompletedMigrations(in db: some PostgresContext) throws -> Bool {
        let applied = Set(try appliedMigrations(in: db).map(Self.key))
        return migrations.allSatisfy { applied.contains(Self.key($0.name)) }
    }

    // MARK: - Running

    private func checkRegistrations() throws {
        if let duplicate = duplicateNames.first {
            throw MigrationError.duplicateName(duplicate)
        }
    }

    /// Applies the pending migrations of `selected`, on one connection for the whole run.
    private func apply(_ selected: ArraySlice<Migration>, in db: some PostgresContext) throws {
        try db.withSession { session in
            let applied = try Self.appliedNames(session)
            let unknown = applied.filter { !registeredKeys.contains(Self.key($0)) }
            guard unknown.isEmpty else {
                throw MigrationError.unknownApplied(unknown)
            }
            let appliedKeys = Set(applied.map(Self.key))
            for migration in selected where !appliedKeys.contains(Self.key(migration.name)) {
                try apply(migration, on: session)
            }
        }
    }

    /// Runs one migration and records it, in one transaction (a savepoint when one is open).
    private func apply(_ migration: Migration, on session: PostgresSession) throws {
        let table = Self.tableName
        do {
            try session.runTransaction(begin: "BEGIN") { tx in
                // Serializes migrators (and automatic tables) on every connection until this
                // transaction ends; it also keeps two first runs from racing on CREATE TABLE IF
                // NOT EXISTS.
                try session.lockSchemaChanges()
                try session.execute(PostgresDialect().createMigrationsTable(named: table))
                // Another connection may have applied it since we looked.
                let recorded = try session.execute(
                    "SELECT 1 FROM \(identifier: table) WHERE name = \(migration.name)")
                guard recorded.rows.isEmpty else { return }
                try migration.migrate(tx)
                switch PQtransactionStatus(session.connection.handle) {
                case PQTRANS_INTRANS:
                    break
                case PQTRANS_INERROR:
                    throw DatabaseError(
                        resultCode: .abort,
                        message: "a statement of the migration failed, which aborted its transaction "
                            + "in PostgreSQL (even if the migration caught the error); nothing of it was kept"
                    )
                default:
                    throw DatabaseError(
                        resultCode: .misuse,
                        message: "the migration ended the transaction it runs in (COMMIT or ROLLBACK); "
                            + "leave transaction control to the migrator")
                }
                try session.execute(
                    """
                    INSERT INTO \(identifier: table)(name, position, applied_at) \
                    VALUES (\(migration.name), \
                    (SELECT coalesce(max(position), 0) + 1 FROM \(identifier: table)), \(Date()))
                    """)
            }
        } catch {
            throw MigrationError.failed(migration.name, underlying: error)
        }
    }

    // MARK: - The migrations table

    /// The applied names in order, or `[]` without creating anything when the table is missing.
    private static func appliedNames(_ session: PostgresSession) throws -> [String] {
        let exists = try session.execute(PostgresDialect().migrationsTableExists(named: tableName))
        guard !exists.rows.isEmpty else { return [] }
        return try session.execute(PostgresDialect().appliedMigrationNames(in: tableName)).rows.map { row in
            guard case .text(let name)? = row.first else {
                throw DatabaseError(
                    resultCode: .mismatch, message: "\(tableName) holds a name that is not text: \(row)")
            }
            return name
        }
    }

    /// Names are compared by their UTF-8 bytes, as the `"C"`-collated column compares them.
    private static func key(_ name: String) -> [UInt8] {
        Array(name.utf8)
    }
}
