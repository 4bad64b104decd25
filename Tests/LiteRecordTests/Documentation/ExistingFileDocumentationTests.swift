// The Existing databases article's first block, line for line (see ReadmeCodeBlockTests).
import Foundation
import LiteRecord
import LiteRecordTestSupport
import Testing

@Suite(.offCooperativePool) struct ExistingFileDocumentationTests {
    @Test func aFileAnotherToolMadeIsOpenedAsItIs() throws {
        try inTemporaryCurrentDirectory {
            // Another tool's file: the sqlite3 shell, rollback journal.
            let path = FileManager.default.currentDirectoryPath + "/Chinook.sqlite"
            try CLIFixtures.shell(
                path: path,
                script: """
                    CREATE TABLE Artist (ArtistId INTEGER PRIMARY KEY, Name NVARCHAR(120));
                    INSERT INTO Artist (Name) VALUES ('AC/DC'), ('Accept');
                    """)
            do {
                let chinook = try Database(path: "Chinook.sqlite", configuration: .existingFile)
                let artistCount = try chinook.fetchOne(Int.self, sql: "SELECT count(*) FROM Artist")
                #expect(artistCount == 2)
                #expect(!chinook.readsInParallel)
                #expect(try chinook.fetchOne(String.self, sql: "PRAGMA journal_mode") == "delete")
            }
            #expect(try FileManager.default.contentsOfDirectory(atPath: ".") == ["Chinook.sqlite"])
        }
    }
}
