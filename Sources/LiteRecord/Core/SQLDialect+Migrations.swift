/// The migrator's table in each dialect: `Migrator`, on SQLite and on PostgreSQL, records the
/// migrations they applied in a table of the same name and shape, created and read with this SQL.
extension SQLDialect {
    /// Creates the migrations table when it is missing: `name` (the primary key, compared by
    /// bytes), `position` (the order migrations were applied in) and `applied_at` (UTC text).
    ///
    /// - Parameter table: The table's name.
    /// - Returns: The statement; SQLite's text is the one `Migrator` has always run.
    package func createMigrationsTable(named table: String) -> SQL {
        switch self {
        case .sqlite:
            return """
                CREATE TABLE IF NOT EXISTS \(identifier: table) (
                    name TEXT PRIMARY KEY NOT NULL,
                    position INTEGER NOT NULL,
                    applied_at TEXT NOT NULL
                )
                """
        case .postgres:
            return """
                CREATE TABLE IF NOT EXISTS \(identifier: table) (
                    name text COLLATE "C" PRIMARY KEY NOT NULL,
                    position bigint NOT NULL,
                    applied_at text NOT NULL
                )
                """
        }
    }

    /// A query that returns one row when the migrations table exists, none otherwise, and
    /// creates nothing (PostgreSQL: in the connection's current schema).
    ///
    /// - Parameter table: The table's name.
    /// - Returns: The query.
    package func migrationsTableExists(named table: String) -> SQL {
        switch self {
        case .sqlite:
            return "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = \(table)"
        case .postgres:
            return """
                SELECT 1 FROM information_schema.tables
                WHERE table_schema = current_schema() AND table_name = \(table)
                """
        }
    }

    /// The applied migrations' names, in the order they were applied.
    ///
    /// - Parameter table: The table's name.
    /// - Returns: The query.
    package func appliedMigrationNames(in table: String) -> SQL {
        switch self {
        case .sqlite: return "SELECT name FROM \(identifier: table) ORDER BY position, rowid"
        case .postgres: return "SELECT name FROM \(identifier: table) ORDER BY position"
        }
    }
}
