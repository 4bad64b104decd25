import Foundation
import LiteRecord

/// Tracker issue 46: how soon a `LiveQuery` on the main actor shows a commit made elsewhere.
///
/// A `LiveQuery` of `items` (the row with the largest value) lives on the main actor of a
/// SQLite file (WAL, `synchronous = NORMAL`). First another `Database` on the file commits
/// values 1, 2, ... one at a time, on the main actor; after each `COMMIT` returns, the main
/// actor waits (suspended, free to run the live query's hop) until `value` shows it. The delay
/// is from the commit's return to the main actor seeing the new `value`: the commit's file
/// event, the observer's check and fetch, the hop to the main actor and the resumed wait.
///
/// For comparison, the live query's own `Database` then commits the same way (its commits reach
/// the observation without a file event). Then another process commits: a long-lived `sqlite3` shell, which reads one
/// `INSERT ...; SELECT 'ack ' || N;` per value on its standard input, so process start-up is not
/// measured. The delay runs from the moment the shell's acknowledgement is read (a reader thread
/// stamps it, a little after the shell's commit returned) to `value` showing the value; when the
/// value is seen first, the delay counts as zero, and the report says how often that happened.
/// LiteRecord only: C has no live query to compare.
enum LiveQueryDelay {
    static let slug = "live-query-delay"
    static let group = "live-data"
    static let description =
        "another Database on the file, then another process (a sqlite3 shell), commits; delay until "
        + "a LiveQuery's value on the main actor shows the commit"
    static let commits = 200
    static let quickCommits = 20
    /// Commits made before measuring, so that first-use costs (statement preparation, the
    /// first file event) are not counted.
    static let warmUpCommits = 5

    /// Whether `--filter` selects it.
    static func isSelected(by filter: String?) -> Bool {
        guard let filter else { return true }
        return slug.localizedCaseInsensitiveContains(filter) || group.localizedCaseInsensitiveContains(filter)
    }

    /// The delays of both writers.
    struct Result {
        let inProcess: [Duration]
        /// Commits through the live query's own `Database`.
        let sameDatabase: [Duration]
        /// `nil` when no `sqlite3` shell is installed (``skippedProcess`` says so).
        let otherProcess: [Duration]?
        let skippedProcess: String?
        /// Commits of the other process whose value the main actor saw before the reader
        /// thread read the shell's acknowledgement (counted as zero delay).
        let seenBeforeAcknowledged: Int

        func report() -> String {
            var lines = [
                "\(LiveQueryDelay.slug): \(LiveQueryDelay.description)",
                "  \(inProcess.count) commits by another Database in this process: delay "
                    + Percentiles.summary(inProcess),
                "  \(sameDatabase.count) commits by the live query's own Database (for comparison): delay "
                    + Percentiles.summary(sameDatabase),
            ]
            if let otherProcess {
                lines.append(
                    "  \(otherProcess.count) commits by a sqlite3 shell process: delay "
                        + Percentiles.summary(otherProcess)
                        + " (\(seenBeforeAcknowledged) seen before the shell's acknowledgement was read)")
            }
            if let skippedProcess { lines.append("  " + skippedProcess) }
            lines += DesignTargets.liveQueryDelayNotes(self).map { "  " + $0 }
            return lines.joined(separator: "\n")
        }
    }

    @MainActor
    static func run(options: Options, scratch: ScratchDirectory) async throws -> Result {
        let directory = try scratch.makeSubdirectory(slug)
        defer { try? scratch.remove(directory) }
        let path = directory.appendingPathComponent("live.sqlite").path
        let observer = try Database(path: path)
        // The query form, as a screen writes it; the live query creates the table.
        let live = LiveQuery(observer.query(DelayItem.self).order { $0.value.descending }.limit(1))
        if let error = live.error { throw error }
        let count = options.quick ? quickCommits : commits

        let inProcess = try await measureCommits(
            by: Database(path: path), label: "another Database", from: 1, count: count, live: live)
        // For comparison: the live query's own Database reports its commits table by table,
        // without the file event.
        let sameDatabase = try await measureCommits(
            by: observer, label: "the same Database", from: warmUpCommits + count + 1, count: count,
            live: live)

        guard let shellPath = ShellWriter.findShell() else {
            return Result(
                inProcess: inProcess, sameDatabase: sameDatabase, otherProcess: nil,
                skippedProcess: "commits by another process skipped: no sqlite3 shell on the PATH",
                seenBeforeAcknowledged: 0)
        }
        let shell = try ShellWriter(shell: shellPath, database: path)
        defer { shell.finish() }
        var otherProcess: [Duration] = []
        var seenFirst = 0
        let first = 2 * (warmUpCommits + count) + 1
        for value in first...(first + warmUpCommits + count - 1) {
            Console.progress(
                "[\(slug)] commit \(value - first + 1)/\(warmUpCommits + count) by a sqlite3 shell")
            try shell.send("INSERT INTO items(value) VALUES (\(value)); SELECT 'ack ' || \(value);")
            do {
                try await waitUntil(live, shows: value)
            } catch {
                throw ShellWriterError(description: "\(error); the shell said: \(shell.errorOutput())")
            }
            let seen = ContinuousClock.now
            guard let acknowledged = shell.acknowledgement(of: value) else {
                throw ShellWriterError(
                    description:
                        "the sqlite3 shell did not acknowledge value \(value): \(shell.errorOutput())")
            }
            if seen < acknowledged { seenFirst += 1 }
            if value - first >= warmUpCommits { otherProcess.append(max(.zero, seen - acknowledged)) }
        }
        return Result(
            inProcess: inProcess, sameDatabase: sameDatabase, otherProcess: otherProcess, skippedProcess: nil,
            seenBeforeAcknowledged: seenFirst)
    }

    /// Commits `count` values (after the warm-up ones) one at a time through `writer`, each once
    /// the live query showed the one before; returns each commit's delay.
    @MainActor
    private static func measureCommits(
        by writer: Database, label: String, from first: Int, count: Int, live: LiveQuery<[DelayItem]>
    ) async throws -> [Duration] {
        var delays: [Duration] = []
        for value in first..<(first + warmUpCommits + count) {
            Console.progress("[\(slug)] commit \(value - first + 1)/\(warmUpCommits + count) by \(label)")
            try commit(value, on: writer)
            let committed = ContinuousClock.now
            try await waitUntil(live, shows: value)
            if value - first >= warmUpCommits { delays.append(.now - committed) }
        }
        return delays
    }

    /// Commits `value` and returns when the commit did (the synchronous call, on the caller's
    /// thread: in an async function the asynchronous overload would be chosen).
    private static func commit(_ value: Int, on writer: Database) throws {
        try writer.execute(sql: "INSERT INTO items(value) VALUES (\(value))")
    }

    /// Suspends until the live query's top row holds `value` (or more).
    @MainActor
    private static func waitUntil(_ live: LiveQuery<[DelayItem]>, shows value: Int) async throws {
        guard await LiveValueWait.until(live, { ($0.first?.value ?? 0) >= value }) else {
            if let error = live.error { throw error }
            throw ObservationStalled(value: value)
        }
    }
}

/// The row a ``LiveQueryDelay`` live query shows.
private struct DelayItem: Model {
    var id: Int64?
    var value: Int
    static let schema = Schema<DelayItem>(table: "items")
}

/// Nearest-rank percentiles of delays, in milliseconds.
enum Percentiles {
    /// The value at `fraction` (0.5 for the median) of the sorted durations, or `nil` when
    /// there are none.
    static func of(_ durations: [Duration], _ fraction: Double) -> Duration? {
        let sorted = durations.sorted()
        guard !sorted.isEmpty else { return nil }
        let rank = Int((Double(sorted.count) * fraction).rounded(.up))
        return sorted[min(sorted.count - 1, max(0, rank - 1))]
    }

    /// `p50 1.23 ms, p99 4.56 ms, max 7.89 ms`.
    static func summary(_ durations: [Duration]) -> String {
        "p50 \(milliseconds(of(durations, 0.5))), p99 \(milliseconds(of(durations, 0.99))), "
            + "max \(milliseconds(of(durations, 1)))"
    }

    /// A duration in milliseconds with two decimals, `-` for none.
    static func milliseconds(_ duration: Duration?) -> String {
        guard let duration else { return "-" }
        return String(format: "%.2f ms", duration.milliseconds)
    }
}
