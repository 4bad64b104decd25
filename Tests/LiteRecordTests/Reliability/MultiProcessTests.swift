import Foundation
import LiteRecord
import Testing

extension Reliability {
    /// Several processes writing one file at once: every write lands, none fails with
    /// "database is locked", because each waits for the others' locks with the busy timeout (issue 6).
    @Suite("Processes writing the same file")
    struct MultiProcessTests {
        @Test func twoWriterProcessesLoseNothing() throws {
            let rowsPerWriter = 2000
            try withTemporaryDirectory { directory in
                let path = directory.file("shared.sqlite")
                let writerIDs = ["alpha", "beta"]
                let writers = try writerIDs.map { id in
                    try HelperProcess([
                        "concurrent-writer", path, id, "\(rowsPerWriter)", "--wait-for-go", "--meet-halfway",
                    ])
                }
                // Both have opened the file before either writes: their first writes (which also
                // create the tables) collide.
                for (id, writer) in zip(writerIDs, writers) {
                    try #require(
                        writer.waitForLine(startingWith: "ready", seconds: 30) != nil,
                        "\(id) did not start: \(writer.errorText)")
                }
                for writer in writers { try writer.send("go") }

                var tallies: [String: Int] = [:]
                for (id, writer) in zip(writerIDs, writers) {
                    let exit = writer.waitForExit(seconds: 120)
                    #expect(
                        exit == .exited(0),
                        "\(id): \(exit?.description ?? "still running"); \(writer.errorText)")
                    let done = writer.outputLines.last { $0.hasPrefix("done ") }
                    let words = done?.split(separator: " ") ?? []
                    #expect(
                        words.count == 4 && words[1] == "\(rowsPerWriter)", "\(id): \(writer.outputLines)")
                    tallies[id] = words.count == 4 ? Int(words[3]) : nil
                }

                let db = try Database(path: path)
                #expect(try db.fetchAll(String.self, sql: "PRAGMA integrity_check") == ["ok"])
                for id in writerIDs {
                    let summary = try #require(
                        try db.fetchOne(
                            Row.self,
                            sql: """
                                SELECT count(*), count(DISTINCT sequence), min(sequence), max(sequence),
                                       sum(payload = writer || '-' || sequence)
                                FROM tagged WHERE writer = \(id)
                                """))
                    #expect(try summary.value(Int.self, at: 0) == rowsPerWriter, "\(id): rows")
                    #expect(try summary.value(Int.self, at: 1) == rowsPerWriter, "\(id): distinct sequences")
                    #expect(try summary.value(Int.self, at: 2) == 0, "\(id): first sequence")
                    #expect(try summary.value(Int.self, at: 3) == rowsPerWriter - 1, "\(id): last sequence")
                    #expect(try summary.value(Int.self, at: 4) == rowsPerWriter, "\(id): payloads")
                    // The read-modify-write transactions each counted themselves exactly once.
                    let tally = try db.fetchOne(
                        Int.self, sql: "SELECT transactions FROM tallies WHERE writer = \(id)")
                    #expect(tally != nil && tally == tallies[id], "\(id): tally \(String(describing: tally))")
                }
                let total = try db.fetchOne(Int.self, sql: "SELECT count(*) FROM tagged")
                #expect(total == rowsPerWriter * writerIDs.count)
                // They wrote at the same time, not one after the other: their rows interleave. A
                // writer keeps the lock for many transactions in a row while the other sleeps in
                // SQLite's busy handler (up to 100 ms at a time), so there are few turns; each
                // writer waits halfway for the other's first row, so there are at least two.
                let turns = try db.fetchOne(
                    Int.self,
                    sql: """
                        SELECT count(*) FROM (SELECT writer, lag(writer) OVER (ORDER BY id) AS previous FROM tagged)
                        WHERE writer <> previous
                        """)
                #expect((turns ?? 0) >= 2, "the writers took turns only \(turns ?? 0) times")
            }
        }

        @Test func helperReportsFailuresWithNonZeroStatus() throws {
            // The writer test relies on a failing helper saying so; check that it does.
            try withTemporaryDirectory { directory in
                let path = directory.file("no/such/dir/shared.sqlite")
                let writer = try HelperProcess(["concurrent-writer", path, "gamma", "10", "--wait-for-go"])
                let exit = writer.waitForExit(seconds: 30)
                #expect(exit == .exited(1))
                #expect(writer.errorText.contains("concurrent-writer gamma:"))
                #expect(writer.errorText.contains("SQLITE_CANTOPEN"))
                #expect(writer.errorText.contains(path))
                #expect(writer.outputLines.isEmpty)
                // Writing to the dead helper is an error, not a SIGPIPE that ends the test run.
                #expect(throws: (any Error).self) { try writer.send("go") }
            }
        }
    }
}
