import Foundation
import LiteRecord
import Testing

extension Reliability {
    /// A process killed in the middle of writing leaves a database that opens, passes
    /// `PRAGMA integrity_check`, and holds every commit it acknowledged (issue 8).
    ///
    /// `LiteRecordTestHelper kill-writer` writes numbered transactions and prints `committed <n>`
    /// after each commit returns; the test SIGKILLs it after a random delay, 20 times on the same
    /// file, and checks the file after each kill. The delays come from a fixed seed, so a failing
    /// run can be repeated: `LITERECORD_KILL_SEED=<seed> swift test --filter KillTests`.
    ///
    /// Odd runs count the delay from the helper's `ready` line, so some kills land while it opens
    /// the file or writes its first transaction; even runs count it from its first acknowledged
    /// commit, so at least half the kills land while it is writing however slow the machine
    /// (under the thread sanitizer on a loaded machine, a delay counted from `ready` sometimes
    /// ended before the first commit in most runs).
    @Suite("Killing a writing process")
    struct KillTests {
        static let kills = 20
        /// Delays from the helper's `ready` line to the kill: long enough for tens to hundreds of
        /// commits, short enough to keep the whole test within seconds.
        static let delays = 5..<250

        @Test func killedWriterKeepsEveryAcknowledgedCommit() throws {
            let seed = ProcessInfo.processInfo.environment["LITERECORD_KILL_SEED"].flatMap { UInt64($0) } ?? 8
            var random = SplitMix64(seed: seed)
            try withTemporaryDirectory { directory in
                let path = directory.file("killed.sqlite")
                var checked = CheckedState()
                var runsWithCommits = 0
                for run in 1...Self.kills {
                    let delay = Int.random(in: Self.delays, using: &random)
                    let countsFromFirstCommit = run.isMultiple(of: 2)
                    let start = countsFromFirstCommit ? "the first commit" : "ready"
                    let context = "run \(run) of \(Self.kills), seed \(seed), kill \(delay) ms after \(start)"
                    let writer = try HelperProcess(["kill-writer", path])
                    let ready = try #require(
                        writer.waitForLine(startingWith: "ready ", seconds: 30),
                        "\(context): the writer did not start: \(writer.errorText)")
                    let first = try #require(Int(ready.dropFirst("ready ".count)))
                    // It resumes after the last number in the file: the last acknowledged one, or
                    // one more when the previous run was killed between its commit and its print.
                    #expect(
                        first == checked.lastNumber + 1,
                        "\(context): resumed at \(first) after \(checked.lastNumber)")

                    if countsFromFirstCommit {
                        _ = try #require(
                            writer.waitForLine(startingWith: "committed ", seconds: 30),
                            "\(context): the writer acknowledged no commit: \(writer.errorText)")
                    }
                    Thread.sleep(forTimeInterval: Double(delay) / 1000)
                    writer.kill()
                    let exit = try #require(
                        writer.waitForExit(seconds: 30), "\(context): the writer did not die")
                    #expect(exit == .killed(signal: SIGKILL), "\(context): \(exit); \(writer.errorText)")

                    let acknowledged = writer.outputLines.dropFirst().map { line -> Int? in
                        line.hasPrefix("committed ") ? Int(line.dropFirst("committed ".count)) : nil
                    }
                    #expect(
                        !acknowledged.contains(nil), "\(context): unexpected output \(writer.outputLines)")
                    let numbers = acknowledged.compactMap { $0 }
                    #expect(
                        numbers == Array(first..<(first + numbers.count)),
                        "\(context): acknowledged \(numbers)")
                    if !numbers.isEmpty { runsWithCommits += 1 }
                    #expect(
                        !countsFromFirstCommit || !numbers.isEmpty,
                        "\(context): killed after its first commit, but no commit was acknowledged")

                    try checkDatabase(
                        at: path, acknowledged: numbers.last ?? checked.lastNumber, state: &checked,
                        context: context)
                }
                // The kills landed while the writer was busy writing, not before it started.
                #expect(
                    runsWithCommits >= Self.kills / 2, "only \(runsWithCommits) runs acknowledged a commit")
                #expect(
                    checked.lastNumber > Self.kills,
                    "only \(checked.lastNumber) transactions in \(Self.kills) runs")
            }
        }

        /// What the checks of earlier runs established: numbers up to `lastNumber` are all there.
        struct CheckedState {
            var lastNumber = 0
        }

        /// Opens the killed writer's database afresh and checks it: integrity, every acknowledged
        /// transaction present and whole, numbering contiguous from 1, rows exactly as written.
        private func checkDatabase(
            at path: String, acknowledged: Int, state: inout CheckedState, context: String
        ) throws {
            let db = try Database(path: path)
            #expect(
                try db.fetchAll(String.self, sql: "PRAGMA integrity_check") == ["ok"],
                "\(context): integrity_check")

            let summary = try #require(
                try db.fetchOne(
                    Row.self,
                    sql:
                        "SELECT count(DISTINCT number), coalesce(min(number), 0), coalesce(max(number), 0) FROM entries"
                ))
            let (distinct, lowest, highest) = (
                try summary.value(Int.self, at: 0), try summary.value(Int.self, at: 1),
                try summary.value(Int.self, at: 2)
            )
            // Every acknowledged commit is there; at most one more committed before the kill.
            #expect(
                highest >= acknowledged, "\(context): acknowledged \(acknowledged), found up to \(highest)")
            #expect(
                highest <= acknowledged + 1,
                "\(context): acknowledged \(acknowledged), found up to \(highest)")
            #expect(
                highest >= state.lastNumber,
                "\(context): \(state.lastNumber) was there before, now \(highest)")
            // Contiguous from 1: no transaction lost in the middle.
            #expect(
                distinct == highest && (highest == 0 || lowest == 1),
                "\(context): \(distinct) numbers in \(lowest)...\(highest)")

            // Each transaction is whole: all of its rows, or (had it not committed) none.
            let partCounts = try db.fetchAll(
                Row.self, sql: "SELECT number, count(*) FROM entries GROUP BY number ORDER BY number")
            for row in partCounts {
                let number = try row.value(Int.self, at: 0)
                let parts = try row.value(Int.self, at: 1)
                if parts != Self.parts(of: number) {
                    Issue.record(
                        "\(context): transaction \(number) has \(parts) rows, expected \(Self.parts(of: number))"
                    )
                    break
                }
            }
            // The rows written since the last check hold exactly what was written.
            let newRows = try db.fetchAll(
                Row.self,
                sql:
                    "SELECT number, part, payload FROM entries WHERE number > \(state.lastNumber) ORDER BY number, part"
            )
            for row in newRows {
                let number = try row.value(Int.self, at: 0)
                let part = try row.value(Int.self, at: 1)
                if try row.value(String.self, at: 2) != Self.payload(number: number, part: part) {
                    Issue.record("\(context): the payload of \(number).\(part) differs from what was written")
                    break
                }
            }
            // The progress row was updated in the same transactions.
            let progress = try db.fetchOne(Int.self, sql: "SELECT lastNumber FROM progress WHERE id = 1")
            #expect(
                progress == (highest == 0 ? nil : highest),
                "\(context): progress row \(String(describing: progress))")
            state.lastNumber = highest
        }

        // Keep in sync with KillEntry in Tests/LiteRecordTestHelper/KillWriter.swift.
        static func parts(of number: Int) -> Int {
            number % 50 == 0 ? 40 : 3
        }

        static func payload(number: Int, part: Int) -> String {
            let length = (number &* 7919 &+ part &* 104_729) % 3000
            let letter = Character(UnicodeScalar(UInt8(97 + (number + part) % 26)))
            return "\(number).\(part):" + String(repeating: letter, count: length)
        }
    }
}

/// A small seeded random number generator (SplitMix64), so random test schedules can be
/// replayed from their seed.
private struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
