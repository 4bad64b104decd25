// The README's "Opening a database" section, line for line (see ReadmeCodeBlockTests).
import Foundation
import LiteRecord
import Testing

@Suite struct OpeningDocumentationTests {
    @Test func databasesOpenInEveryLocation() throws {
        try inTemporaryCurrentDirectory {
            try Database(path: "data.sqlite").execute(sql: "CREATE TABLE t(x)")  // for the URI line
            let db = try Database(path: "game.sqlite")    // created when missing
            let memory = try Database(.inMemory)           // private, gone when released
            let scratch = try Database(.temporary)         // private temporary file, deleted on close
            let shared = try Database(.uri("file:data.sqlite?mode=ro"))   // SQLite URI filenames
            #expect(FileManager.default.fileExists(atPath: "game.sqlite"))
            try db.execute(sql: "CREATE TABLE players(name TEXT)")
            try memory.execute(sql: "CREATE TABLE t(x)")
            try scratch.execute(sql: "CREATE TABLE t(x)")
            #expect(shared.isReadOnly)
            let refused = #expect(throws: DatabaseError.self) { try shared.execute(sql: "INSERT INTO t VALUES (1)") }
            #expect(refused?.resultCode.primary == .readOnly)

            var configuration = Configuration()
            configuration.readOnly = true
            configuration.busyTimeout = .milliseconds(200)
            let reader = try Database(path: "game.sqlite", configuration: configuration)
            #expect(reader.isReadOnly)
            let error = #expect(throws: DatabaseError.self) {
                try reader.execute(sql: "INSERT INTO players VALUES ('x')")
            }
            #expect(error?.resultCode.primary == .readOnly)
        }
    }
}
