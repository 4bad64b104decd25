// The README's "Models" and "Automatic tables and migrations" sections, line for line (see
// ReadmeCodeBlockTests).
import Foundation
import LiteRecord
import Testing

@Suite struct ModelsDocumentationTests {
    struct Account: Model {
        var id: UUID                  // a key the caller chooses
        var email: String
        var displayName: String
        var level: Int
        var createdAt: Date

        static let schema = Schema<Account>(
            table: "accounts",        // default: the type name with a lowercased first letter ("account")
            primaryKey: \.id,         // default: `id` when the type has one
            unique: [\.email],
            indexes: [[\.level, \.createdAt]]
        )
        .uniqueTogether([\.displayName, \.level])
        .collation(.nocase, for: \.email)          // COLLATE NOCASE
        .defaultValue(1, for: \.level)             // fills old rows when the column is added later
        .dateStorage(.unixSeconds, for: \.createdAt)
        .columnNaming(.snakeCase)                  // displayName → display_name; also .pascalCase, .custom
    }

    @Test func theSchemaAnnotationsShapeTheTable() throws {
        let db = try Database(.inMemory)
        let account = Account(id: UUID(), email: "a@b.c", displayName: "Ann", level: 2, createdAt: Date())
        try db.insert(account)
        #expect(try db.find(Account.self, id: account.id)?.email == "a@b.c")
        let columns = try db.fetchAll(String.self, sql: "SELECT name FROM pragma_table_info('accounts')")
        #expect(columns == ["id", "email", "display_name", "level", "created_at"])
        #expect(try db.fetchOne(String.self, sql: "SELECT typeof(created_at) FROM accounts") == "real")
        let duplicate = Account(id: UUID(), email: "A@B.C", displayName: "Bo", level: 1, createdAt: Date())
        let error = #expect(throws: DatabaseError.self) { try db.insert(duplicate) }  // NOCASE
        #expect(error?.resultCode == .constraintUnique)
    }

    @Test func versionedMigrationsRunOnceInOrder() throws {
        let db = try Database(.inMemory)
        try db.execute(sql: "CREATE TABLE seed(x)")
        var migrator = Migrator()
        migrator.registerMigration("create posts") { db in
            try db.execute(sql: "CREATE TABLE posts(id INTEGER PRIMARY KEY, title TEXT)")
            try db.execute(sql: "INSERT INTO posts(title) VALUES ('old')")
        }
        migrator.registerMigration("add userId") { db in
            try db.execute(sql: "ALTER TABLE posts ADD COLUMN userId INTEGER")
        }
        migrator.registerMigration("fill userId") { db in      // runs once: later rows keep NULL
            try db.execute(sql: "UPDATE posts SET userId = \(1) WHERE userId IS NULL")
        }
        try migrator.migrate(db)                                 // or migrate(db, upTo: "add userId")
        let applied = try migrator.appliedMigrations(in: db)     // in the order they were applied
        #expect(applied == ["create posts", "add userId", "fill userId"])
        try db.execute(sql: "INSERT INTO posts(title) VALUES ('new')")
        try migrator.migrate(db)
        #expect(try db.fetchAll(Int?.self, sql: "SELECT userId FROM posts ORDER BY id") == [1, nil])
    }
}
