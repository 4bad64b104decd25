import Foundation
import LiteRecord
import Testing

@Suite("Opening a database")
struct DatabaseOpeningTests {
    @Test func inMemoryDatabasesArePrivate() throws {
        let first = try Database(.inMemory)
        let second = try Database(.inMemory)
        try first.execute(sql: "CREATE TABLE t(a); INSERT INTO t VALUES (42)")
        #expect(try first.firstValue(Int.self, sql: "SELECT a FROM t") == 42)
        #expect(first.location == .inMemory)
        #expect(!first.isReadOnly)

        let error = #expect(throws: DatabaseError.self) {
            try second.execute(sql: "SELECT a FROM t")
        }
        #expect(error?.resultCode == .error)
        #expect(error?.message.contains("no such table: t") == true)
    }

    @Test func temporaryDatabasesArePrivateAndWritable() throws {
        let first = try Database(.temporary)
        let second = try Database(.temporary)
        try first.execute(sql: "CREATE TABLE t(a); INSERT INTO t VALUES ('x'), ('y')")
        #expect(try first.firstValue(Int.self, sql: "SELECT count(*) FROM t") == 2)
        #expect(try second.firstValue(Int.self, sql: "SELECT count(*) FROM sqlite_master") == 0)
    }

    @Test func fileDatabaseIsCreatedAndKeepsItsRows() throws {
        try withTemporaryDirectory { directory in
            let path = directory.file("players.sqlite")
            #expect(!FileManager.default.fileExists(atPath: path))
            do {
                let db = try Database(path: path)
                #expect(db.location == .file(path))
                try db.execute(sql: "CREATE TABLE players(name TEXT); INSERT INTO players VALUES ('Alice')")
            }
            #expect(FileManager.default.fileExists(atPath: path))
            let reopened = try Database(path: path)
            #expect(try reopened.firstValue(String.self, sql: "SELECT name FROM players") == "Alice")
        }
    }

    @Test func fileDatabaseDefaults() throws {
        try withTemporaryDirectory { directory in
            let db = try Database(path: directory.file("defaults.sqlite"))
            #expect(try db.firstValue(Int.self, sql: "PRAGMA busy_timeout") == 5000)
            #expect(try db.firstValue(Int.self, sql: "PRAGMA foreign_keys") == 1)
            #expect(try db.firstValue(String.self, sql: "PRAGMA journal_mode") == "wal")
            #expect(try db.firstValue(Int.self, sql: "PRAGMA synchronous") == 1)
        }
    }

    @Test func inMemoryDefaults() throws {
        let db = try Database(.inMemory)
        #expect(try db.firstValue(Int.self, sql: "PRAGMA busy_timeout") == 5000)
        #expect(try db.firstValue(Int.self, sql: "PRAGMA foreign_keys") == 1)
        #expect(try db.firstValue(String.self, sql: "PRAGMA journal_mode") == "memory")
    }

    @Test func configurationOverridesTheDefaults() throws {
        try withTemporaryDirectory { directory in
            var configuration = Configuration()
            configuration.busyTimeout = .milliseconds(250)
            configuration.foreignKeys = false
            configuration.journalMode = .delete
            configuration.synchronous = .full
            let db = try Database(path: directory.file("custom.sqlite"), configuration: configuration)
            #expect(try db.firstValue(Int.self, sql: "PRAGMA busy_timeout") == 250)
            #expect(try db.firstValue(Int.self, sql: "PRAGMA foreign_keys") == 0)
            #expect(try db.firstValue(String.self, sql: "PRAGMA journal_mode") == "delete")
            #expect(try db.firstValue(Int.self, sql: "PRAGMA synchronous") == 2)
        }
    }

    @Test(arguments: [
        (Duration.milliseconds(1500), 1500), (.microseconds(2500), 2), (.zero, 0), (.seconds(-3), 0),
        (.seconds(10_000_000), Int(Int32.max)),
    ])
    func busyTimeoutIsSetInMilliseconds(timeout: Duration, milliseconds: Int) throws {
        var configuration = Configuration()
        configuration.busyTimeout = timeout
        let db = try Database(.inMemory, configuration: configuration)
        #expect(try db.firstValue(Int.self, sql: "PRAGMA busy_timeout") == milliseconds)
    }

    @Test func foreignKeysAreEnforcedByDefault() throws {
        let db = try Database(.inMemory)
        try db.execute(
            sql: """
                CREATE TABLE teams(id INTEGER PRIMARY KEY);
                CREATE TABLE players(id INTEGER PRIMARY KEY, teamID INTEGER REFERENCES teams(id));
                INSERT INTO teams(id) VALUES (1);
                INSERT INTO players(teamID) VALUES (1);
                """)
        let error = #expect(throws: DatabaseError.self) {
            try db.execute(sql: "INSERT INTO players(teamID) VALUES (\(99))")
        }
        #expect(error?.resultCode == .constraintForeignKey)
        #expect(error?.message.contains("FOREIGN KEY constraint failed") == true)
        #expect(try db.firstValue(Int.self, sql: "SELECT count(*) FROM players") == 1)
    }

    @Test func foreignKeysCanBeTurnedOff() throws {
        var configuration = Configuration()
        configuration.foreignKeys = false
        let db = try Database(.inMemory, configuration: configuration)
        try db.execute(
            sql: """
                CREATE TABLE teams(id INTEGER PRIMARY KEY);
                CREATE TABLE players(teamID INTEGER REFERENCES teams(id));
                INSERT INTO players(teamID) VALUES (99);
                """)
        #expect(try db.firstValue(Int.self, sql: "SELECT teamID FROM players") == 99)
    }

    @Test(arguments: [Configuration.JournalMode.wal, .delete])
    func readOnlyURIFilename(journalMode: Configuration.JournalMode) throws {
        try withTemporaryDirectory { directory in
            let path = directory.file("uri.sqlite")
            var configuration = Configuration()
            configuration.journalMode = journalMode
            do {
                let writer = try Database(path: path, configuration: configuration)
                try writer.execute(sql: "CREATE TABLE t(a); INSERT INTO t VALUES (1)")
            }
            // Default configuration: the URI alone makes the connection read-only.
            let db = try Database(.uri("file:\(path)?mode=ro"))
            #expect(db.isReadOnly)
            #expect(try db.firstValue(Int.self, sql: "SELECT a FROM t") == 1)
            let error = #expect(throws: DatabaseError.self) {
                try db.execute(sql: "INSERT INTO t VALUES (2)")
            }
            #expect(error?.primaryResultCode == .readOnly)
            #expect(error?.message.contains("readonly") == true)
            #expect(try db.firstValue(Int.self, sql: "SELECT count(*) FROM t") == 1)
        }
    }

    @Test func sharedCacheMemoryURIIsSharedBetweenDatabases() throws {
        let uri = "file:literecord-\(UUID().uuidString)?mode=memory&cache=shared"
        let first = try Database(.uri(uri))
        let second = try Database(.uri(uri))
        try first.execute(sql: "CREATE TABLE shared(a); INSERT INTO shared VALUES ('seen')")
        #expect(try second.firstValue(String.self, sql: "SELECT a FROM shared") == "seen")
        #expect(try second.firstValue(String.self, sql: "PRAGMA journal_mode") == "memory")

        let other = try Database(.uri("file:literecord-\(UUID().uuidString)?mode=memory&cache=shared"))
        #expect(try other.firstValue(Int.self, sql: "SELECT count(*) FROM sqlite_master") == 0)
    }

    @Test func readOnlyConfigurationRefusesWrites() throws {
        try withTemporaryDirectory { directory in
            let path = directory.file("readonly.sqlite")
            let writer = try Database(path: path)
            try writer.execute(sql: "CREATE TABLE t(a); INSERT INTO t VALUES ('kept')")

            var configuration = Configuration()
            configuration.readOnly = true
            let reader = try Database(path: path, configuration: configuration)
            #expect(reader.isReadOnly)
            #expect(try reader.firstValue(String.self, sql: "SELECT a FROM t") == "kept")

            let insertError = #expect(throws: DatabaseError.self) {
                try reader.execute(sql: "INSERT INTO t VALUES (\("lost"))")
            }
            #expect(insertError?.primaryResultCode == .readOnly)
            #expect(insertError?.message.contains("attempt to write a readonly database") == true)
            #expect(insertError?.sql == "INSERT INTO t VALUES (?)")

            let ddlError = #expect(throws: DatabaseError.self) {
                try reader.execute(sql: "CREATE TABLE other(b)")
            }
            #expect(ddlError?.primaryResultCode == .readOnly)

            let transactionError = #expect(throws: DatabaseError.self) {
                try reader.transaction { tx in try tx.execute(sql: "DELETE FROM t") }
            }
            #expect(transactionError?.primaryResultCode == .readOnly)
            #expect(!reader.isInsideTransaction)

            let kept = try writer.fetchAll(Row.self, sql: "SELECT a FROM t").map {
                try $0.value(String.self, at: 0)
            }
            #expect(kept == ["kept"])
        }
    }

    @Test func readOnlyOnAMissingFileFailsWithCannotOpen() throws {
        try withTemporaryDirectory { directory in
            let path = directory.file("missing.sqlite")
            var configuration = Configuration()
            configuration.readOnly = true
            let error = #expect(throws: DatabaseError.self) {
                try Database(path: path, configuration: configuration)
            }
            #expect(error?.primaryResultCode == .cannotOpen)
            #expect(error?.message.contains(path) == true)
            #expect(!FileManager.default.fileExists(atPath: path))
        }
    }

    @Test func createIfMissingFalseOnAMissingFileFailsWithCannotOpen() throws {
        try withTemporaryDirectory { directory in
            let path = directory.file("missing.sqlite")
            var configuration = Configuration()
            configuration.createIfMissing = false
            let error = #expect(throws: DatabaseError.self) {
                try Database(path: path, configuration: configuration)
            }
            #expect(error?.primaryResultCode == .cannotOpen)
            #expect(error?.message.contains(path) == true)
            #expect(error?.message.contains("unable to open database file") == true)
            #expect(!FileManager.default.fileExists(atPath: path))
        }
    }

    @Test func fileInAMissingDirectoryFailsWithCannotOpen() throws {
        try withTemporaryDirectory { directory in
            let path = directory.file("no/such/dir/db.sqlite")
            let error = #expect(throws: DatabaseError.self) { try Database(path: path) }
            #expect(error?.primaryResultCode == .cannotOpen)
            #expect(error?.message.contains(path) == true)
        }
    }

    @Test func fileThatIsNotADatabaseFailsAtOpen() throws {
        try withTemporaryDirectory { directory in
            let path = directory.file("garbage.sqlite")
            let garbage = Data(String(repeating: "this is not an SQLite database\n", count: 200).utf8)
            try garbage.write(to: URL(fileURLWithPath: path))

            let error = #expect(throws: DatabaseError.self) { try Database(path: path) }
            #expect(error?.resultCode == .notADatabase)
            #expect(error?.message.contains(path) == true)
            #expect(error?.message.contains("file is not a database") == true)
            // The failed open did not touch the file.
            #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == garbage)
        }
    }

    @Test func sqliteVersionIsTheLibraryInUse() throws {
        #expect(Database.sqliteVersion.hasPrefix("3."))
        let db = try Database(.inMemory)
        #expect(try db.firstValue(String.self, sql: "SELECT sqlite_version()") == Database.sqliteVersion)
    }
}
