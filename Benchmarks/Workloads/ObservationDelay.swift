import Foundation
import LiteRecord
import Synchronization

/// Tracker issue 18: how soon an observation sees a commit made by another connection, and
/// what an observation costs while nothing happens.
///
/// Two `Database` objects open one file (WAL, `synchronous = NORMAL`), as an app and its
/// extension would. The first observes `SELECT max(value) FROM items` with a callback; the
/// second commits values 1, 2, ... one at a time and, after each `COMMIT` returns, waits until
/// the observer has delivered that value. The delay is from the commit's return to the
/// delivery: the file event, the `data_version` check, the fetch and the callback. Then the
/// writer stops and the process's CPU time (user + system, `getrusage`) is taken over an idle
/// window with the observation still running. LiteRecord only: C has no observation to compare.
///
/// Then precision: a model observed by key while 1,000 commits each update another row of its
/// table, counting fetches, once observed through a closure (table-level: every commit to the
/// table fetches, unless commits coalesce) and once as a query (its ``RowFilter`` skips them).
enum ObservationDelay {
    static let slug = "observation-delay"
    static let group = "concurrency"
    static let description =
        "another Database on the file commits; delay until an observation delivers the value, "
        + "and CPU time of an idle observation"
    static let commits = 200
    static let quickCommits = 20
    static let idleSeconds = 10.0
    static let quickIdleSeconds = 1.0

    /// Whether `--filter` selects it.
    static func isSelected(by filter: String?) -> Bool {
        guard let filter else { return true }
        return slug.localizedCaseInsensitiveContains(filter) || group.localizedCaseInsensitiveContains(filter)
    }

    static let unrelatedWrites = 1_000

    struct Result {
        let delays: [Duration]
        let idleSeconds: Double
        let idleCPUSeconds: Double
        let tableLevelFetches: Int
        let rowFilterFetches: Int

        func report() -> String {
            let sorted = delays.sorted()
            func percentile(_ fraction: Double) -> String {
                guard !sorted.isEmpty else { return "-" }
                let index = min(sorted.count - 1, Int((Double(sorted.count) * fraction).rounded(.up)) - 1)
                return milliseconds(sorted[max(0, index)])
            }
            return """
                \(ObservationDelay.slug): \(ObservationDelay.description)
                  \(sorted.count) external commits: delay median \(percentile(0.5)), p99 \(percentile(0.99)), \
                max \(sorted.last.map(milliseconds) ?? "-")
                  idle observation: \(String(format: "%.1f", idleCPUSeconds * 1000)) ms CPU time \
                (whole process) in \(String(format: "%.0f", idleSeconds)) s
                  fetches of a model observed by key over \(ObservationDelay.unrelatedWrites) commits to \
                other rows, then 1 to it: \(tableLevelFetches) through a closure (table-level), \
                \(rowFilterFetches) as a query (row filter); the initial fetch included
                """
        }

        private func milliseconds(_ duration: Duration) -> String {
            let (seconds, attoseconds) = duration.components
            return String(format: "%.2f ms", Double(seconds) * 1000 + Double(attoseconds) / 1e15)
        }
    }

    static func run(options: Options, scratch: ScratchDirectory) throws -> Result {
        let directory = try scratch.makeSubdirectory(slug)
        defer { try? scratch.remove(directory) }
        let path = directory.appendingPathComponent("observed.sqlite").path
        let observer = try Database(path: path)
        let writer = try Database(path: path)
        try writer.execute(sql: "CREATE TABLE items(id INTEGER PRIMARY KEY, value INTEGER)")
        let delivered = DeliveredValue()
        let token = observer.observe(
            { try $0.fetchOne(Int.self, sql: "SELECT coalesce(max(value), 0) FROM items") ?? 0 },
            onChange: { delivered.set($0) }, onError: { _ in delivered.set(Int.max) })
        defer { token.cancel() }
        guard delivered.wait(for: 0) else { throw ObservationStalled(value: 0) }

        let count = options.quick ? quickCommits : commits
        let clock = ContinuousClock()
        var delays: [Duration] = []
        for value in 1...count {
            Console.progress("[\(slug)] commit \(value)/\(count)")
            try writer.execute(sql: "INSERT INTO items(value) VALUES (\(value))")
            let committed = clock.now
            guard delivered.wait(for: value) else { throw ObservationStalled(value: value) }
            delays.append(clock.now - committed)
        }

        let idle = options.quick ? quickIdleSeconds : idleSeconds
        Console.progress("[\(slug)] idle for \(Int(idle)) s")
        let before = processCPUSeconds()
        Thread.sleep(forTimeInterval: idle)
        let idleCPU = processCPUSeconds() - before
        return Result(
            delays: delays, idleSeconds: idle, idleCPUSeconds: idleCPU,
            tableLevelFetches: try countFetches(in: directory, asQuery: false),
            rowFilterFetches: try countFetches(in: directory, asQuery: true))
    }

    /// Observes one `Watched` model by key while other rows change, then changes it; returns
    /// the fetches the observation ran.
    private static func countFetches(in directory: URL, asQuery: Bool) throws -> Int {
        Console.progress("[\(slug)] \(unrelatedWrites) unrelated writes, \(asQuery ? "query" : "closure")")
        let path = directory.appendingPathComponent("precision-\(asQuery).sqlite").path
        let db = try Database(path: path)
        let rows = (0...unrelatedWrites).map { Watched(id: nil, value: $0) }
        try db.insert(contentsOf: rows)
        let fetches = FetchCounter()
        let delivered = DeliveredValue()
        let watchedID: Int64 = 1
        let stop: @Sendable () -> Void
        if asQuery {
            db.trace { if $0.hasPrefix("SELECT * FROM \"watched\"") { fetches.increment() } }
            let observation = db.observe(db.query(Watched.self).where { $0.id == watchedID })
            let task = Task.detached {
                for try await models in observation { delivered.set(models.first?.value ?? -1) }
            }
            stop = { task.cancel() }
        } else {
            let token = db.observe(
                { connection in
                    fetches.increment()
                    return try connection.query(Watched.self).where { $0.id == watchedID }.fetchAll()
                }, onChange: { delivered.set($0.first?.value ?? -1) })
            stop = { token.cancel() }
        }
        defer { stop() }
        guard delivered.wait(for: 0) else { throw ObservationStalled(value: 0) }
        for id in 2...Int64(unrelatedWrites + 1) {
            try db.execute(sql: "UPDATE watched SET value = value + 1 WHERE id = \(id)")
        }
        try db.execute(sql: "UPDATE watched SET value = \(unrelatedWrites * 10) WHERE id = \(watchedID)")
        guard delivered.wait(for: unrelatedWrites * 10) else {
            throw ObservationStalled(value: unrelatedWrites * 10)
        }
        return fetches.count
    }

    /// User plus system CPU time of the whole process so far.
    private static func processCPUSeconds() -> Double {
        var usage = rusage()
        #if os(Linux)
            getrusage(RUSAGE_SELF.rawValue, &usage)
        #else
            getrusage(RUSAGE_SELF, &usage)
        #endif
        func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
        return seconds(usage.ru_utime) + seconds(usage.ru_stime)
    }
}

/// The last value the observation delivered, which the writer waits on.
private final class DeliveredValue: @unchecked Sendable {
    // @unchecked Sendable: `value` is only touched under `condition`'s lock.
    private let condition = NSCondition()
    private var value: Int?

    func set(_ newValue: Int) {
        condition.withLock {
            value = newValue
            condition.broadcast()
        }
    }

    /// Whether `expected` (or a later value) arrived within a minute.
    func wait(for expected: Int) -> Bool {
        let deadline = Date(timeIntervalSinceNow: 60)
        condition.lock()
        defer { condition.unlock() }
        while (value ?? -1) < expected {
            guard condition.wait(until: deadline) else { return false }
        }
        return true
    }
}

/// The observation did not deliver a committed value within a minute.
struct ObservationStalled: Error, CustomStringConvertible {
    let value: Int
    var description: String { "the observation did not deliver value \(value) within 60 s" }
}

/// A model observed by key in the precision figure.
private struct Watched: Model {
    var id: Int64?
    var value: Int
}

/// Counts fetches from any thread.
private final class FetchCounter: Sendable {
    private let value = Mutex(0)
    func increment() { value.withLock { $0 += 1 } }
    var count: Int { value.withLock { $0 } }
}
