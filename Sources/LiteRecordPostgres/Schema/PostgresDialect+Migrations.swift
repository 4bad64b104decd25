import LiteRecord

/// The migrator's table in PostgreSQL: `PostgresMigrator` records the migrations it applied in
/// a table of the same name and shape as SQLite's `Migrator`.
extension PostgresDialect {
    package func createMigrationsTable(named table: String) -> SQL {
        """
        CREATE TABLE IF NOT EXISTS \(identifier: table) (
            name text COLLATE "C" PRIMARY KEY NOT NULL,
            position bigint NOT NULL,
            applied_at text NOT NULL
        )
        """
    }

    /// In the connection's current schema.
    package func migrationsTableExists(named table: String) -> SQL {
        """
        SELECT 1 FROM information_schema.tables
        WHERE table_schema = current_schema() AND table_name = \(table)
        """
    }

    package func appliedMigrationNames(in table: String) -> SQL {
        "SELECT name FROM \(identifier: table) ORDER BY position"
    }
}
