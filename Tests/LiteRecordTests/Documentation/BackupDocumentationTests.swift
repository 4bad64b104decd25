// The README's "Backups" section, line for line (see ReadmeCodeBlockTests).
import Foundation
import LiteRecord
import Testing

@Suite struct BackupDocumentationTests {
    @Test func backupCopiesTheDatabase() throws {
        try inTemporaryCurrentDirectory {
            try Database(path: "game.sqlite").execute(sql: "CREATE TABLE t(x); INSERT INTO t VALUES (42)")
            let db = try Database(path: "game.sqlite")
            try db.backup(to: "game-backup.sqlite")           // a consistent copy; writers go on
            let copy = try Database(path: "game-backup.sqlite")
            #expect(try copy.fetchOne(Int.self, sql: "SELECT x FROM t") == 42)
            #expect(try copy.fetchAll(String.self, sql: "PRAGMA integrity_check") == ["ok"])
        }
    }
}
