import CLibPQ
import Foundation
import LiteRecord

// LiteRecord's one `Migrator` on PostgreSQL: the same registrations, checks and rules as on
// SQLite, run here. Each migration runs in its own transaction together with the insert of its
// record in `literecord_migrations` (the same name and columns as SQLite's); PostgreSQL's DDL is
// transactional, so a failing migration leaves no half-created table behind, and a statement
// that failed aborts the transaction even when the closure caught the error. Migrators running
// at the same time, in this process or others, apply each migration once: each migration's
// transaction takes an advisory lock and checks again that it is not recorded yet. Names cannot
// hold NUL (PostgreSQL text cannot); such a name fails before its migration runs.

/// Migrations on PostgreSQL are LiteRecord's ``LiteRecord/Migrator``, as on SQLite.
@available(*, deprecated, renamed: "Migrator", message: "one Migrator runs on every backend")
public typealias PostgresMigrator = Migrator

extension Migrator {
    /// Registers a migration that uses PostgreSQL's transaction itself: chosen when the closure
    /// uses what only a ``LiteRecordPostgres/PostgresTransaction`` has. It runs only on PostgreSQL.
    ///
    /// - Parameters:
    ///   - name: The migration's permanent identity: text compared by exact UTF-8 bytes.
    ///   - migrate: The work, on the transaction it receives. It must not commit or roll back
    ///     that transaction itself.
    @_disfavoredOverload
    public mutating func registerMigration(
        _ name: String, migrate: @escaping @Sendable (PostgresTransaction) throws -> Void
    ) {
        register(name) { context in
            guard let transaction = context as? PostgresTransaction else {
                throw DatabaseError(
                    backendName: "PostgreSQL",
                    resultCode: .misuse,
                    message: "the migration \"\(name)\" takes a PostgresTransaction and runs only on "
                        + "PostgreSQL; register it with a closure over any ModelContext to run it on "
                        + "\(type(of: context))")
            }
            try migrate(transaction)
        }
    }

    /// Applies every registered migration the database has not applied yet, in registration
    /// order. When nothing is pending it only reads the migrations table and writes nothing.
    ///
    /// - Parameter db: The database, or a transaction (each migration then runs in a savepoint
    ///   of it, and the whole run commits or rolls back with it).
    /// - Throws: ``LiteRecord/MigrationError``: when a migration fails (it is rolled back, later
    ///   ones do not run, earlier ones stay applied); when a name was registered twice; when the
    ///   database records a migration this migrator does not know. ``LiteRecord/DatabaseError``
    ///   when the migrations table cannot be read.
    public func migrate(_ db: some PostgresContext) throws {
        try postgresBackend(db).applyMigrations(migrationsToRun(upTo: nil), of: self)
    }

    /// Applies the pending registered migrations up to and including the one named `name`.
    ///
    /// - Parameters:
    ///   - db: The database, or a transaction.
    ///   - name: The last migration to apply; it must be registered.
    /// - Throws: As ``LiteRecord/Migrator/migrate(_:)-(PostgresContext)``, and a
    ///   ``LiteRecord/MigrationError`` (``LiteRecord/MigrationError/isUnknownTarget``) when no
    ///   migration named `name` is registered.
    public func migrate(_ db: some PostgresContext, upTo name: String) throws {
        try postgresBackend(db).applyMigrations(migrationsToRun(upTo: name), of: self)
    }

    /// The names of the migrations the database has applied, in the order they were applied,
    /// including those this migrator does not know. A database never migrated gives `[]` and
    /// stays untouched.
    ///
    /// - Parameter db: The database, or a transaction.
    /// - Returns: The applied migrations' names.
    /// - Throws: ``LiteRecord/DatabaseError`` when the migrations table cannot be read.
    public func appliedMigrations(in db: some PostgresContext) throws -> [String] {
        try postgresBackend(db).appliedMigrationNames(table: Self.tableName)
    }

    /// Whether the database has applied every registered migration.
    ///
    /// - Parameter db: The database, or a transaction.
    /// - Returns: `true` when no registered migration is pending.
    /// - Throws: ``LiteRecord/DatabaseError`` when the migrations table cannot be read.
    public func hasCompletedMigrations(in db: some PostgresContext) throws -> Bool {
        // By UTF-8 bytes, as the names are compared everywhere (Swift's `==` would also match
        // canonically equivalent spellings the table keeps apart).
        let applied = Set(try appliedMigrations(in: db).map { Array($0.utf8) })
        return migrationNames.allSatisfy { applied.contains(Array($0.utf8)) }
    }

    private func postgresBackend(_ db: some PostgresContext) -> any MigrationBackend {
        PostgresMigrationRun(context: db)
    }
}

/// Any PostgreSQL context, as the migrator's backend.
private struct PostgresMigrationRun<Context: PostgresContext>: PostgresMigrationBackend {
    let context: Context
    func withSession<T>(_ body: (PostgresSession) throws -> T) throws -> T { try context.withSession(body) }
}

/// What runs migrations on a PostgreSQL session: a database, a transaction, or any context
/// (``PostgresMigrationRun``); the database and the transaction also serve the migrator's
/// form for any backend (`migrate(_: some ModelContext)`).
protocol PostgresMigrationBackend: MigrationBackend {
    func withSession<T>(_ body: (PostgresSession) throws -> T) throws -> T
}

extension PostgresDatabase: PostgresMigrationBackend {}
extension PostgresTransaction: PostgresMigrationBackend {}

extension PostgresMigrationBackend {
    /// Applies the pending migrations of `selected`, on one connection for the whole run.
    package func applyMigrations(_ selected: ArraySlice<Migrator.Migration>, of migrator: Migrator) throws {
        try withSession { session in
            let applied = try Self.appliedNames(session)
            for migration in try migrator.pending(selected, applied: applied) {
                try Self.apply(migration, on: session)
            }
        }
    }

    package func appliedMigrationNames(table: String) throws -> [String] {
        try withSession { try Self.appliedNames($0) }
    }

    /// Runs one migration and records it, in one transaction (a savepoint when one is open).
    private static func apply(_ migration: Migrator.Migration, on session: PostgresSession) throws {
        let table = Migrator.tableName
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
                        backendName: "PostgreSQL",
                        resultCode: .abort,
                        message: "a statement of the migration failed, which aborted its transaction "
                            + "in PostgreSQL (even if the migration caught the error); nothing of it was kept"
                    )
                default:
                    throw DatabaseError(
                        backendName: "PostgreSQL",
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
        let exists = try session.execute(PostgresDialect().migrationsTableExists(named: Migrator.tableName))
        guard !exists.rows.isEmpty else { return [] }
        return try session.execute(PostgresDialect().appliedMigrationNames(in: Migrator.tableName)).rows.map {
            row in
            guard case .text(let name)? = row.first else {
                throw DatabaseError(
                    backendName: "PostgreSQL",
                    resultCode: .mismatch,
                    message: "\(Migrator.tableName) holds a name that is not text: \(row)")
            }
            return name
        }
    }
}
