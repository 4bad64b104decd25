import Foundation
import LiteRecord
import Testing

/// `Database.backup(to:)`: a consistent online copy, while this and other processes write.
@Suite struct BackupTests {
    private struct Note: Model, Equatable {
        var id: Int64?
        var batch: Int
        var body: String
        static let schema = Schema<Note>(table: "notes")
    }

    /// `PRAGMA integrity_check` of the file at `path`, opened read-only.
    private func integrity(_ path: String) throws -> [String] {
        var configuration = Configuration()
        configuration.readOnly = true
        return try Database(path: path, configuration: configuration)
            .fetchAll(String.self, sql: "PRAGMA integrity_check")
    }

    @Test func copyHoldsEveryRowAndPassesIntegrityCheck() throws {
        try withTemporaryDirectory { directory in
            let db = try Database(path: directory.file("source.sqlite"))
            var notes = (0..<300).map { Note(id: nil, batch: $0, body: String(repeating: "x", count: $0)) }
            try db.write { connection in
                for index in notes.indices { try connection.insert(&notes[index]) }
            }
            let destination = directory.file("copy.sqlite")
            try db.backup(to: destination, pagesPerStep: 1)

            #expect(try integrity(destination) == ["ok"])
            let copy = try Database(path: destination)
            let copied = try copy.query(Note.self).order { $0.id }.fetchAll()
            #expect(copied == notes)
        }
    }

    @Test func asyncBackupCopiesTheDatabase() async throws {
        let directory = NSTemporaryDirectory() + "LiteRecordTests-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let db = try Database(path: directory + "/source.sqlite")
        var note = Note(id: nil, batch: 1, body: "kept")
        try await db.insert(&note)
        try await db.backup(to: directory + "/copy.sqlite")
        #expect(try await Database(path: directory + "/copy.sqlite").query(Note.self).fetchAll() == [note])
    }

    @Test func inMemoryDatabaseBacksUpToAFile() throws {
        try withTemporaryDirectory { directory in
            let db = try Database(.inMemory)
            try db.execute(sql: "CREATE TABLE t(x); INSERT INTO t VALUES (1), (2)")
            try db.backup(to: directory.file("copy.sqlite"))
            let copy = try Database(path: directory.file("copy.sqlite"))
            #expect(try copy.fetchAll(Int.self, sql: "SELECT x FROM t ORDER BY x") == [1, 2])
        }
    }

    /// A writer thread commits batches of 10 rows while the backup copies one page per step:
    /// the copy holds whole transactions only, and at least every row committed before it began.
    @Test func copyIsOneSnapshotWhileThisProcessWrites() throws {
        try withTemporaryDirectory { directory in
            let db = try Database(path: directory.file("source.sqlite"))
            let body = String(repeating: "payload ", count: 40)
            try db.write { connection in
                for batch in 0..<50 {
                    for _ in 0..<10 {
                        var note = Note(id: nil, batch: batch, body: body)
                        try connection.insert(&note)
                    }
                }
            }
            let writer = BackgroundThread {
                for batch in 50..<250 {
                    try db.write { connection in
                        for _ in 0..<10 {
                            var note = Note(id: nil, batch: batch, body: body)
                            try connection.insert(&note)
                        }
                    }
                }
            }
            var copies: [Int] = []
            for round in 0..<5 {
                let destination = directory.file("copy-\(round).sqlite")
                try db.backup(to: destination, pagesPerStep: 1)
                #expect(try integrity(destination) == ["ok"])
                let copy = try Database(path: destination)
                let count = try #require(try copy.fetchOne(Int.self, sql: "SELECT count(*) FROM notes"))
                let batches = try copy.fetchOne(Int.self, sql: "SELECT count(DISTINCT batch) FROM notes")
                #expect(count >= 500 && count % 10 == 0, "a transaction was cut: \(count) rows")
                #expect(batches == count / 10)
                copies.append(count)
            }
            let outcome = try #require(writer.result(waitingAtMost: 120))
            try outcome.get()
            #expect(copies == copies.sorted(), "later copies never lose rows: \(copies)")
        }
    }

    /// Another process writes the source (the test helper, in WAL mode) while backups run:
    /// every copy passes the integrity check and holds a gap-free prefix of the writer's rows.
    @Test func copyIsConsistentWhileAnotherProcessWrites() throws {
        let rows = 3000
        try withTemporaryDirectory { directory in
            let path = directory.file("shared.sqlite")
            let writer = try HelperProcess(["concurrent-writer", path, "w", "\(rows)", "--wait-for-go"])
            try #require(
                writer.waitForLine(startingWith: "ready", seconds: 30) != nil, "writer: \(writer.errorText)")
            let db = try Database(path: path)
            try writer.send("go")
            var round = 0
            var sawPartialCopy = false
            repeat {
                let destination = directory.file("copy-\(round).sqlite")
                try db.backup(to: destination, pagesPerStep: 2)
                #expect(try integrity(destination) == ["ok"])
                let copy = try Database(path: destination)
                let hasTable = try copy.fetchOne(
                    Int.self, sql: "SELECT count(*) FROM sqlite_master WHERE name = 'tagged'")
                if hasTable == 1 {
                    let summary = try #require(
                        try copy.fetchOne(
                            Row.self,
                            sql: "SELECT count(*), count(DISTINCT sequence), max(sequence) FROM tagged"))
                    let count = try summary.value(Int.self, at: 0)
                    #expect(try summary.value(Int.self, at: 1) == count)
                    #expect(try summary.value(Int?.self, at: 2) == (count == 0 ? nil : count - 1))
                    if count > 0 && count < rows { sawPartialCopy = true }
                }
                round += 1
            } while !writer.outputLines.contains(where: { $0.hasPrefix("done ") }) && round < 500
            #expect(writer.waitForExit(seconds: 120) == .exited(0), "writer: \(writer.errorText)")
            #expect(sawPartialCopy, "no backup ran while the writer was writing (\(round) rounds)")

            try db.backup(to: directory.file("final.sqlite"))
            let final = try Database(path: directory.file("final.sqlite"))
            #expect(try final.fetchOne(Int.self, sql: "SELECT count(*) FROM tagged") == rows)
        }
    }

    // MARK: - Errors

    @Test func destinationThatIsNotADatabaseIsLeftUntouched() throws {
        try withTemporaryDirectory { directory in
            let db = try Database(.inMemory)
            try db.execute(sql: "CREATE TABLE t(x)")
            let destination = directory.file("notes.txt")
            let text = Data(String(repeating: "not a database\n", count: 100).utf8)
            try text.write(to: URL(fileURLWithPath: destination))
            let error = try #require(throws: DatabaseError.self) { try db.backup(to: destination) }
            #expect(error.resultCode == .notADatabase)
            #expect(error.message.contains("cannot back up to \(destination)"))
            #expect(try Data(contentsOf: URL(fileURLWithPath: destination)) == text)
        }
    }

    @Test func destinationInAMissingDirectoryFailsAndCreatesNothing() throws {
        try withTemporaryDirectory { directory in
            let db = try Database(.inMemory)
            let destination = directory.file("missing/copy.sqlite")
            let error = try #require(throws: DatabaseError.self) { try db.backup(to: destination) }
            #expect(error.resultCode == .cannotOpen)
            #expect(error.message.contains(destination))
            #expect(!FileManager.default.fileExists(atPath: directory.file("missing")))
        }
    }

    @Test func existingDatabaseIsReplacedWhole() throws {
        try withTemporaryDirectory { directory in
            let destination = directory.file("copy.sqlite")
            try Database(path: destination).execute(sql: "CREATE TABLE old(x); INSERT INTO old VALUES (1)")
            let db = try Database(.inMemory)
            try db.execute(sql: "CREATE TABLE new(y); INSERT INTO new VALUES (2)")
            try db.backup(to: destination)
            let copy = try Database(path: destination)
            #expect(try copy.fetchAll(String.self, sql: "SELECT name FROM sqlite_master") == ["new"])
        }
    }
}
