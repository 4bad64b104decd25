import Foundation
import LiteRecord
import LiteRecordTestSupport
import Testing

/// `Configuration.existingFile`: a file another program made (here the `sqlite3` shell) is
/// left in its journal mode through sessions that read and write, while the default
/// configuration switches it to WAL for good.
@Suite(.offCooperativePool) struct ExistingFileConfigurationTests {
    struct Track: Model, Equatable {
        var id: Int64?
        var name: String
        static let schema = Schema<Track>(table: "track")
    }

    /// Bytes 18 and 19 of the header: the file format write and read versions, 1 for a
    /// rollback journal, 2 for WAL (https://sqlite.org/fileformat2.html#file_format_version_numbers).
    static func formatVersions(_ path: String) throws -> [UInt8] {
        let header = try Data(contentsOf: URL(fileURLWithPath: path)).prefix(100)
        return Array(header[18...19])
    }

    /// The names in `directory`, sorted: the database and any companion (`-wal`, `-shm`,
    /// `-journal`) file left beside it.
    static func files(in directory: TemporaryDirectory) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
    }

    /// A rollback-journal file written by the `sqlite3` shell, with two tracks.
    static func shellFile(in directory: TemporaryDirectory, journalMode: String = "DELETE") throws -> String {
        let path = directory.file("music.db")
        try CLIFixtures.shell(
            path: path,
            script: """
                PRAGMA journal_mode = \(journalMode);
                CREATE TABLE track (id INTEGER PRIMARY KEY, name TEXT NOT NULL);
                INSERT INTO track (name) VALUES ('Intro'), ('Outro');
                """)
        return path
    }

    @Test func theConfigurationKeepsTheFileAsItIsAndCreatesNothing() {
        let configuration = Configuration.existingFile
        #expect(configuration.journalMode == nil)
        #expect(configuration.synchronous == nil)
        #expect(!configuration.createIfMissing)
        // The rest is the default: writable, foreign keys on, the same timeout and readers.
        let defaults = Configuration()
        #expect(configuration.readOnly == defaults.readOnly && !configuration.readOnly)
        #expect(configuration.foreignKeys && configuration.busyTimeout == defaults.busyTimeout)
        #expect(configuration.maximumReaderCount == defaults.maximumReaderCount)
    }

    @Test func aRollbackJournalFileStaysInItsModeThroughAReadAndAWriteSession() throws {
        try withTemporaryDirectory { directory in
            let path = try Self.shellFile(in: directory)
            let versions = try Self.formatVersions(path)
            #expect(versions == [1, 1])
            let before = try Data(contentsOf: URL(fileURLWithPath: path))
            #expect(try Self.files(in: directory) == ["music.db"])

            // A session that reads: models, raw SQL, a read transaction.
            do {
                let db = try Database(path: path, configuration: .existingFile)
                #expect(try db.firstValue(String.self, sql: "PRAGMA journal_mode") == "delete")
                // SQLite's default durability, which a rollback journal needs: FULL (2).
                #expect(try db.firstValue(Int.self, sql: "PRAGMA synchronous") == 2)
                #expect(!db.readsInParallel)
                let names = try db.query(Track.self).order { $0.id }.fetchAll().map(\.name)
                #expect(names == ["Intro", "Outro"])
                let rowCount = try db.read { try $0.fetchOne(Int.self, sql: "SELECT count(*) FROM track") }
                #expect(rowCount == 2)
            }
            // Reading changed no byte of the file, its 100-byte header included.
            #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
            #expect(try Self.formatVersions(path) == versions)
            #expect(try Self.files(in: directory) == ["music.db"])

            // A session that writes: an insert, an update and raw SQL in a transaction.
            do {
                let db = try Database(path: path, configuration: .existingFile)
                var bonus = Track(id: nil, name: "Bonus")
                try db.insert(&bonus)
                #expect(bonus.id == 3)
                bonus.name = "Bonus (live)"
                try db.update(bonus)
                try db.transaction { tx in
                    try tx.execute(sql: "UPDATE track SET name = name || '!' WHERE id = \(1)")
                }
                #expect(try db.firstValue(String.self, sql: "PRAGMA journal_mode") == "delete")
            }
            #expect(try Self.formatVersions(path) == versions)
            #expect(try Self.files(in: directory) == ["music.db"])

            // The rows are there for the other tool, read with a new connection.
            let check = try Database(path: path, configuration: .existingFile)
            #expect(
                try check.fetchAll(String.self, sql: "SELECT name FROM track ORDER BY id")
                    == ["Intro!", "Outro", "Bonus (live)"])
            #expect(try check.fetchAll(String.self, sql: "PRAGMA integrity_check") == ["ok"])
        }
    }

    /// What the Existing databases article warns about: the default configuration turns the
    /// same file to WAL, and the change outlives the session.
    @Test func theDefaultConfigurationSwitchesTheFileToWALForGood() throws {
        try withTemporaryDirectory { directory in
            let path = try Self.shellFile(in: directory)
            do {
                let db = try Database(path: path)
                #expect(try db.query(Track.self).count() == 2)
            }
            #expect(try Self.formatVersions(path) == [2, 2])
            let later = try Database(path: path, configuration: .existingFile)
            #expect(try later.firstValue(String.self, sql: "PRAGMA journal_mode") == "wal")
        }
    }

    @Test func aWALFileKeepsItsReaderPool() throws {
        try withTemporaryDirectory { directory in
            let path = try Self.shellFile(in: directory, journalMode: "WAL")
            #expect(try Self.formatVersions(path) == [2, 2])
            let db = try Database(path: path, configuration: .existingFile)
            #expect(db.readsInParallel)
            #expect(try db.firstValue(String.self, sql: "PRAGMA journal_mode") == "wal")
            // A read on a reader sees what the writer committed.
            var track = Track(id: nil, name: "New")
            try db.insert(&track)
            let rowCount = try db.read { try $0.fetchOne(Int.self, sql: "SELECT count(*) FROM track") }
            #expect(rowCount == 3)
        }
    }

    @Test func aMissingFileIsAnErrorAndIsNotCreated() throws {
        try withTemporaryDirectory { directory in
            let path = directory.file("Chinook.sqlite")
            let error = #expect(throws: DatabaseError.self) {
                try Database(path: path, configuration: .existingFile)
            }
            #expect(error?.resultCode == .cannotOpen)
            #expect(error?.message.contains("Chinook.sqlite") == true, "\(String(describing: error))")
            #expect(!FileManager.default.fileExists(atPath: path))
        }
    }
}
