import Foundation

/// Versioned schema migrations: named steps, each applied once, in order, and recorded in the
/// database.
///
/// Register every migration your program has ever shipped, oldest first, and never change or
/// remove one that has shipped; add new ones at the end. ``migrate(_:)`` applies those the
/// database has not seen yet:
///
/// ```swift
/// var migrator = Migrator()
/// migrator.registerMigration("create posts") { db in
///     try db.execute(sql: "CREATE TABLE posts(id INTEGER PRIMARY KEY, title TEXT)")
/// }
/// migrator.registerMigration("add userId") { db in
///     try db.execute(sql: "ALTER TABLE posts ADD COLUMN userId INTEGER")
/// }
/// migrator.registerMigration("fill userId") { db in   // runs once: rows added later keep NULL
///     try db.execute(sql: "UPDATE posts SET userId = \(1) WHERE userId IS NULL")
/// }
/// try migrator.migrate(db)                              // at every launch
/// ```
///
/// Rules:
/// - Each migration runs in its own `IMMEDIATE` transaction together with the insert of its
///   record in the `literecord_migrations` table, so it is either applied and recorded, or
///   neither. A migration that throws is rolled back (the database is exactly as before it,
///   earlier migrations stay applied), the run stops, and ``MigrationError`` names it and wraps
///   its error. Fix it and call `migrate` again: the run resumes from it.
/// - Names are any text (quotes, NUL characters, empty, very long); they are bound as values,
///   never spliced into SQL, and compared by their exact UTF-8 bytes, as SQLite compares them.
/// - Registering a name twice does not crash: ``migrate(_:)`` then throws a ``MigrationError``
///   (``MigrationError/isDuplicateName``) before running anything.
/// - When the database records a migration this migrator does not know (a newer version of the
///   program migrated it, or a migration was renamed or removed), the schema may be ahead of the
///   code: ``migrate(_:)`` throws a ``MigrationError`` (``MigrationError/isUnknownAppliedMigration``)
///   and runs nothing.
/// - A ``Database`` keeps its connection for the whole run, so threads calling `migrate` at the
///   same time apply each migration once; each migration also checks, inside its transaction,
///   that another connection to the same file has not just applied it.
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
/// - ``MigrationError``
public struct Migrator: Sendable {
    private struct Migration: Sendable {
        let name: String
        let migrate: @Sendable (Connection) throws -> Void
    }

    /// The table where applied migrations are recorded: `name`, `position` (the order they were
    /// applied in) and `applied_at` (UTC text). It is created by the first migration applied.
    public static let tableName = "literecord_migrations"

    private var migrations: [Migration] = []
    /// The UTF-8 bytes of every registered name.
    private var registeredKeys: Set<[UInt8]> = []
    /// Names registered more than once, each listed once, in registration order.
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
    /// every later ``migrate(_:)`` throw a ``MigrationError`` before it runs anything, so the
    /// mistake shows up at the first launch instead of crashing.
    ///
    /// - Parameters:
    ///   - name: The migration's permanent identity: any text, compared by exact UTF-8 bytes.
    ///     Never rename a migration that has shipped.
    ///   - migrate: The work: schema changes and data updates on the connection it receives,
    ///     inside a transaction. It must not commit or roll back that transaction itself.
    public mutating func registerMigration(
        _ name: String, migrate: @escaping @Sendable (Connection) throws -> Void
    ) {
        guard registeredKeys.insert(Self.key(name)).inserted else {
            if !duplicateNames.contains(where: { Self.key($0) == Self.key(name) }) {
                duplicateNames.append(name)
            }
            return
        }
        migrations.append(Migration(name: name, migrate: migrate))
    }

    /// Applies every registered migration the database has not applied yet, in registration order.
    ///
    /// Migrations already applied are skipped, so calling it at every launch is cheap: when
    /// nothing is pending it only reads the migrations table and writes nothing (it works on a
    /// read-only database that is up to date). Called inside a transaction, each migration runs
    /// in a savepoint of it, and the whole run commits or rolls back with that transaction.
    ///
    /// - Parameter db: The database, or a connection inside a transaction.
    /// - Throws: ``MigrationError``: when a migration fails (it is rolled back, later ones do not
    ///   run, earlier ones stay applied); when a name was registered twice; when the database
    ///   records a migration this migrator does not know. ``DatabaseError`` when the migrations
    ///   table cannot be read.
    public func migrate(_ db: some DatabaseContext) throws {
        try checkRegistrations()
        try apply(migrations[...], in: db)
    }

    /// Applies the pending registered migrations up to and including the one named `name`.
    ///
    /// Migrations registered after `name` are not run. When `name` and everything before it are
    /// already applied, it does nothing, also when later migrations are applied too.
    ///
    /// - Parameters:
    ///   - db: The database, or a connection inside a transaction.
    ///   - name: The last migration to apply; it must be registered.
    /// - Throws: As ``migrate(_:)``, and a ``MigrationError`` (``MigrationError/isUnknownTarget``)
    ///   when no migration named `name` is registered.
    public func migrate(_ db: some DatabaseContext, upTo name: String) throws {
        try checkRegistrations()
        let target = Self.key(name)
        guard let index = migrations.firstIndex(where: { Self.key($0.name) == target }) else {
            throw MigrationError.unknownTarget(name)
        }
        try apply(migrations[...index], in: db)
    }

    /// The names of the migrations the database has applied, in the order they were applied.
    ///
    /// The list includes migrations this migrator does not know. It reads only: a database
    /// that was never migrated gives `[]` and stays untouched.
    ///
    /// - Parameter db: The database, or a connection.
    /// - Returns: The applied migrations' names, exactly as registered.
    /// - Throws: ``DatabaseError`` when the migrations table cannot be read.
    public func appliedMigrations(in db: some DatabaseContext) throws -> [String] {
        try db.withConnection { connection in
            try Self.appliedNames(connection)
        }
    }

    /// Whether the database has applied every registered migration.
    ///
    /// Applied migrations this migrator does not know are not looked at here, although they make
    /// ``migrate(_:)`` throw.
    ///
    /// - Parameter db: The database, or a connection.
    /// - Returns: `true` when no registered migration is pending.
    /// - Throws: ``DatabaseError`` when the migrations table cannot be read.
    public func hasCompletedMigrations(in db: some DatabaseContext) throws -> Bool {
        let applied = Set(try appliedMigrations(in: db).map(Self.key))
        return migrations.allSatisfy { applied.contains(Self.key($0.name)) }
    }

    // MARK: - Running

    private func checkRegistrations() throws {
        if let duplicate = duplicateNames.first {
            throw MigrationError.duplicateName(duplicate)
        }
    }

    /// Applies the pending migrations of `selected`, holding the connection for the whole run.
    private func apply(_ selected: ArraySlice<Migration>, in db: some DatabaseContext) throws {
        try db.withConnection { connection in
            let applied = try Self.appliedNames(connection)
            let unknown = applied.filter { !registeredKeys.contains(Self.key($0)) }
            guard unknown.isEmpty else {
                throw MigrationError.unknownApplied(unknown)
            }
            let appliedKeys = Set(applied.map(Self.key))
            for migration in selected where !appliedKeys.contains(Self.key(migration.name)) {
                try apply(migration, on: connection)
            }
        }
    }

    /// Runs one migration and records it, in one transaction.
    private func apply(_ migration: Migration, on connection: Connection) throws {
        do {
            try connection.transaction(.immediate) { tx in
                try tx.execute(sql: Self.createTableSQL)
                // Another connection to the same file may have applied it since we looked.
                let recorded = try tx.fetchOne(
                    Row.self,
                    sql: "SELECT 1 FROM \(identifier: Self.tableName) WHERE name = \(migration.name)")
                guard recorded == nil else { return }
                try migration.migrate(tx)
                // SQLite rolled back after an error the migration caught: say that, not misuse.
                if let failure = tx.transactionState.closureFailure() { throw failure }
                guard tx.isInsideTransaction else {
                    throw DatabaseError.misuse(
                        "the migration ended the transaction it runs in (COMMIT or ROLLBACK); "
                            + "leave transaction control to the migrator")
                }
                try tx.execute(
                    sql: """
                        INSERT INTO \(identifier: Self.tableName)(name, position, applied_at) \
                        VALUES (\(migration.name), \
                        (SELECT coalesce(max(position), 0) + 1 FROM \(identifier: Self.tableName)), \
                        \(Date()))
                        """)
            }
        } catch {
            throw MigrationError.failed(migration.name, underlying: error)
        }
    }

    // MARK: - The migrations table

    private static let createTableSQL = SQLiteDialect().createMigrationsTable(named: tableName)

    /// The applied names in order, or `[]` without creating anything when the table is missing.
    private static func appliedNames(_ connection: Connection) throws -> [String] {
        let exists = try connection.fetchOne(
            Row.self, sql: SQLiteDialect().migrationsTableExists(named: tableName))
        guard exists != nil else { return [] }
        return try connection.fetchAll(Row.self, sql: SQLiteDialect().appliedMigrationNames(in: tableName))
            .map { try $0.value(String.self, at: 0) }
    }

    /// Names are compared by their UTF-8 bytes, as SQLite compares them; Swift's `==` would
    /// also match canonically equivalent spellings that the table keeps apart.
    private static func key(_ name: String) -> [UInt8] {
        Array(name.utf8)
    }
}
