import Foundation

/// Versioned schema migrations: named steps, each applied once, in order, and recorded in the
/// database.
///
/// Register every migration your program has ever shipped, oldest first, and never change or
/// remove one that has shipped; add new ones at the end. ``migrate(_:)-(DatabaseContext)`` applies those the
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
/// - Registering a name twice does not crash: ``migrate(_:)-(DatabaseContext)`` then throws a ``MigrationError``
///   (``MigrationError/isDuplicateName``) before running anything.
/// - When the database records a migration this migrator does not know (a newer version of the
///   program migrated it, or a migration was renamed or removed), the schema may be ahead of the
///   code: ``migrate(_:)-(DatabaseContext)`` throws a ``MigrationError`` (``MigrationError/isUnknownAppliedMigration``)
///   and runs nothing.
/// - A ``Database`` keeps its connection for the whole run, so threads calling `migrate` at the
///   same time apply each migration once; each migration also checks, inside its transaction,
///   that another connection to the same file has not just applied it.
///
/// One migrator serves every backend: `migrate(_:)` takes a SQLite database or connection, a
/// PostgreSQL database or transaction (LiteRecordPostgres), or any ``ModelContext``. A migration
/// whose closure uses only what every backend offers (``ModelContext``: `execute(sql:)`,
/// `migrate(_:)`, `query`, ...) runs on each; one whose closure uses SQLite's `Connection`
/// (or PostgreSQL's transaction) runs only there, and throws ``DatabaseError`` with
/// ``ResultCode/misuse`` elsewhere. SQL text inside a migration is the backend's own: a
/// migration that must run on both can ask `db is Connection`.
///
/// ## Topics
/// - ``init()``
/// - ``registerMigration(_:migrate:)-(_,(ModelContext)->Void)``
/// - ``registerMigration(_:migrate:)-(_,(Connection)->Void)``
/// - ``migrate(_:)-(DatabaseContext)``
/// - ``migrate(_:upTo:)-(DatabaseContext,_)``
/// - ``appliedMigrations(in:)-(DatabaseContext)``
/// - ``hasCompletedMigrations(in:)-(DatabaseContext)``
/// - ``migrationNames``
/// - ``tableName``
/// - ``MigrationError``
public struct Migrator: Sendable {
    /// A registered migration: its name and its work, on the context of any backend.
    package struct Migration: Sendable {
        package let name: String
        package let migrate: @Sendable (any ModelContext) throws -> Void
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
    /// every later ``migrate(_:)-(DatabaseContext)`` throw a ``MigrationError`` before it runs anything, so the
    /// mistake shows up at the first launch instead of crashing.
    ///
    /// - Parameters:
    ///   - name: The migration's permanent identity: any text, compared by exact UTF-8 bytes.
    ///     Never rename a migration that has shipped.
    ///   - migrate: The work: schema changes and data updates on the context it receives,
    ///     inside a transaction, on whichever backend the migrator runs. It must not commit or
    ///     roll back that transaction itself.
    public mutating func registerMigration(
        _ name: String, migrate: @escaping @Sendable (any ModelContext) throws -> Void
    ) {
        register(name, migrate: migrate)
    }

    /// Registers a migration that uses SQLite's `Connection` itself (`tableExists`, hooks, ...):
    /// chosen when the closure uses what only a `Connection` has. It runs only on SQLite.
    ///
    /// - Parameters:
    ///   - name: The migration's permanent identity, as in the other form.
    ///   - migrate: The work, on the SQLite connection it receives, inside a transaction.
    @_disfavoredOverload
    public mutating func registerMigration(
        _ name: String, migrate: @escaping @Sendable (Connection) throws -> Void
    ) {
        register(name) { context in
            guard let connection = context as? Connection else {
                throw DatabaseError.misuse(
                    "the migration \"\(name)\" takes SQLite's Connection and runs only on SQLite; register "
                        + "it with a closure over any ModelContext to run it on \(type(of: context))")
            }
            try migrate(connection)
        }
    }

    /// Registers a migration whose work another backend wraps (LiteRecordPostgres's form taking
    /// its transaction type).
    ///
    /// - Parameters:
    ///   - name: The migration's permanent identity.
    ///   - migrate: The work, on the backend's context.
    package mutating func register(
        _ name: String, migrate: @escaping @Sendable (any ModelContext) throws -> Void
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
    /// - Throws: As ``migrate(_:)-(DatabaseContext)``, and a ``MigrationError`` (``MigrationError/isUnknownTarget``)
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
    /// ``migrate(_:)-(DatabaseContext)`` throw.
    ///
    /// - Parameter db: The database, or a connection.
    /// - Returns: `true` when no registered migration is pending.
    /// - Throws: ``DatabaseError`` when the migrations table cannot be read.
    public func hasCompletedMigrations(in db: some DatabaseContext) throws -> Bool {
        let applied = Set(try appliedMigrations(in: db).map(Self.key))
        return migrations.allSatisfy { applied.contains(Self.key($0.name)) }
    }

    // MARK: - Any backend

    /// Applies every pending migration on any backend's database or transaction: what code
    /// written once for every backend (`some ModelDatabase`) calls.
    ///
    /// - Parameter db: A SQLite `Database` or `Connection`, a PostgreSQL database or
    ///   transaction.
    /// - Throws: As ``migrate(_:)-(DatabaseContext)``; ``DatabaseError`` with ``ResultCode/misuse`` for a context
    ///   of no backend LiteRecord knows.
    @_disfavoredOverload
    public func migrate(_ db: some ModelContext) throws {
        try migrate(db, upTo: nil)
    }

    /// Applies the pending migrations up to and including `name`, on any backend.
    ///
    /// - Parameters:
    ///   - db: As ``migrate(_:)-(ModelContext)``.
    ///   - name: The last migration to apply; it must be registered.
    /// - Throws: As ``migrate(_:upTo:)-(DatabaseContext,_)``.
    @_disfavoredOverload
    public func migrate(_ db: some ModelContext, upTo name: String) throws {
        try migrate(db, upTo: Optional(name))
    }

    /// The names of the migrations the database has applied, on any backend.
    ///
    /// - Parameter db: As ``migrate(_:)-(ModelContext)``.
    /// - Returns: The applied migrations' names, in the order they were applied.
    /// - Throws: ``DatabaseError`` when the migrations table cannot be read.
    @_disfavoredOverload
    public func appliedMigrations(in db: some ModelContext) throws -> [String] {
        if let sqlite = db as? any DatabaseContext { return try appliedMigrations(in: sqlite) }
        return try backend(of: db).appliedMigrationNames(table: Self.tableName)
    }

    /// Whether the database has applied every registered migration, on any backend.
    ///
    /// - Parameter db: As ``migrate(_:)-(ModelContext)``.
    /// - Returns: `true` when no registered migration is pending.
    /// - Throws: ``DatabaseError`` when the migrations table cannot be read.
    @_disfavoredOverload
    public func hasCompletedMigrations(in db: some ModelContext) throws -> Bool {
        let applied = Set(try appliedMigrations(in: db).map(Self.key))
        return migrations.allSatisfy { applied.contains(Self.key($0.name)) }
    }

    private func migrate(_ db: some ModelContext, upTo name: String?) throws {
        if let sqlite = db as? any DatabaseContext {
            return try name.map { try migrate(sqlite, upTo: $0) } ?? migrate(sqlite)
        }
        try backend(of: db).applyMigrations(try migrationsToRun(upTo: name), of: self)
    }

    private func backend(of db: some ModelContext) throws -> any MigrationBackend {
        guard let backend = db as? any MigrationBackend else {
            throw DatabaseError.misuse("\(type(of: db)) is no database LiteRecord's migrator can run on")
        }
        return backend
    }

    /// The registered migrations to consider, up to and including `name` (all when `nil`),
    /// after checking the registrations: what a backend applies (those not applied yet).
    ///
    /// - Throws: ``MigrationError`` for a name registered twice or an unknown `name`.
    package func migrationsToRun(upTo name: String?) throws -> ArraySlice<Migration> {
        try checkRegistrations()
        guard let name else { return migrations[...] }
        let target = Self.key(name)
        guard let index = migrations.firstIndex(where: { Self.key($0.name) == target }) else {
            throw MigrationError.unknownTarget(name)
        }
        return migrations[...index]
    }

    /// Of `selected`, those the database has not applied, after checking that it applied
    /// none this migrator does not know.
    ///
    /// - Parameters:
    ///   - selected: What ``migrationsToRun(upTo:)`` returned.
    ///   - applied: The names the database recorded.
    /// - Returns: The migrations to run, in order.
    /// - Throws: ``MigrationError`` naming the applied migrations this migrator does not know.
    package func pending(_ selected: ArraySlice<Migration>, applied: [String]) throws -> [Migration] {
        let unknown = applied.filter { !registeredKeys.contains(Self.key($0)) }
        guard unknown.isEmpty else {
            throw MigrationError.unknownApplied(unknown)
        }
        let appliedKeys = Set(applied.map(Self.key))
        return selected.filter { !appliedKeys.contains(Self.key($0.name)) }
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
            for migration in try pending(selected, applied: Self.appliedNames(connection)) {
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

/// A database other than SQLite that runs a ``Migrator``'s migrations (LiteRecordPostgres's
/// database and transaction): the same registrations, checks and rules, its own SQL.
package protocol MigrationBackend {
    /// Applies those of `migrations` the database has not applied yet (see
    /// ``Migrator/pending(_:applied:)``), each in a transaction with its record.
    ///
    /// - Parameters:
    ///   - migrations: The registered migrations to consider, in order.
    ///   - migrator: The migrator, for its checks.
    /// - Throws: ``MigrationError``, as SQLite's run does.
    func applyMigrations(_ migrations: ArraySlice<Migrator.Migration>, of migrator: Migrator) throws

    /// The names the database recorded as applied, in order; `[]` when it has no table.
    ///
    /// - Parameter table: The migrations table's name.
    /// - Throws: ``DatabaseError`` when the table cannot be read.
    func appliedMigrationNames(table: String) throws -> [String]
}
