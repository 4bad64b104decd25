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
}

/// What runs migrations on a PostgreSQL session: a database or a transaction. The migrator's
/// entry points are the core's, for any backend (`migrate(_: some ModelContext)` and its
/// siblings), which hand the run to this backend.
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
                try session.connection.sendPendingBegin()
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
