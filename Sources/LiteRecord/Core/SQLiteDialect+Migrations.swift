/// The migrator's table in SQLite: `Migrator` records the migrations it applied in it.
extension SQLiteDialect {
    /// The statement `Migrator` has always run.
    package func createMigrationsTable(named table: String) -> SQL {
        """
        CREATE TABLE IF NOT EXISTS \(identifier: table) (
            name TEXT PRIMARY KEY NOT NULL,
            position INTEGER NOT NULL,
            applied_at TEXT NOT NULL
        )
        """
    }

    package func migrationsTableExists(named table: String) -> SQL {
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = \(table)"
    }

    package func appliedMigrationNames(in table: String) -> SQL {
        "SELECT name FROM \(identifier: table) ORDER BY position, rowid"
    }
}
