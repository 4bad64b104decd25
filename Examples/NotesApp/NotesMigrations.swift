import LiteRecord

/// Every schema change the app has ever shipped, oldest first.
///
/// The steps are SQL, not `db.migrate(Note.self)`: a shipped step must do tomorrow exactly what
/// it did the day it shipped, while the models change with the app. Never edit or rename a
/// shipped step; add a new one at the end. After the steps, the first use of each model checks
/// that its table fits and adds what the schema declares beyond them (the full-text index).
enum NotesMigrations {
    static let version1 = "v1: notebooks and notes"
    static let version2 = "v2: pinned notes"

    static var migrator: Migrator {
        var migrator = Migrator()
        migrator.registerMigration(version1) { db in
            try db.execute(
                sql: """
                    CREATE TABLE notebooks (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);
                    CREATE TABLE notes (
                        id INTEGER PRIMARY KEY,
                        notebookID INTEGER NOT NULL REFERENCES notebooks (id) ON DELETE CASCADE,
                        title TEXT NOT NULL,
                        body TEXT NOT NULL,
                        tags TEXT NOT NULL,
                        createdAt TEXT NOT NULL);
                    CREATE INDEX notes_on_notebookID ON notes (notebookID);
                    """)
        }
        // Version 2 lets users pin notes: a new column (old notes start unpinned) and an index
        // for the list's order, pinned first. Rows written by version 1 are kept as they are.
        migrator.registerMigration(version2) { db in
            try db.execute(
                sql: """
                    ALTER TABLE notes ADD COLUMN pinned INTEGER NOT NULL DEFAULT 0;
                    CREATE INDEX notes_on_pinned_createdAt ON notes (pinned, createdAt);
                    """)
        }
        return migrator
    }
}
