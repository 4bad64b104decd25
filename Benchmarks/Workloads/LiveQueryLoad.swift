import Foundation
import LiteRecord
import Synchronization

/// Tracker issue 46: what open live queries cost the writes that do not concern them.
///
/// N single-row insert transactions (`insert(&row)`, one `COMMIT` each) into the table
/// `load_rows` of a SQLite file (WAL), on the main actor, with:
/// - no live query open;
/// - one `LiveQuery` open on another table (what observing at all costs);
/// - 100 `LiveQuery` open on two other tables (50 each, one predicate each);
/// - 100 `LiveQuery` open on the written table, whose predicates (`bucket == -k`) exclude every
///   written row (their `bucket` is never negative).
/// Each round runs the four setups on a fresh file, interleaved; the throughput ratio is the
/// median time with none open over the median time with 100 open.
///
/// In the third setup a trace (`Database.trace`, on the writer and every reader) counts what the
/// observations run after the initial fetches: their query's `SELECT` (a re-fetch) and the row
/// filter's probes (`SELECT EXISTS ...`, one per observation per commit, which read the written
/// row by rowid), with a pause for stragglers after the last write. Then one row matching one of
/// the queries is written, and that live query must show it: the observations were alive.
enum LiveQueryLoad {
    static let slug = "live-query-load"
    static let group = "live-data"
    static let description =
        "single-row insert transactions with 100 LiveQuery open on other tables, or on the written "
        + "table with predicates excluding the written rows, vs none open"
    static let defaultSize = 2_000
    static let quickSize = 200
    static let liveQueries = 100

    /// Whether `--filter` selects it.
    static func isSelected(by filter: String?) -> Bool {
        guard let filter else { return true }
        return slug.localizedCaseInsensitiveContains(filter) || group.localizedCaseInsensitiveContains(filter)
    }

    static func size(_ options: Options) -> Int {
        options.size ?? (options.quick ? quickSize : defaultSize)
    }

    /// What is open while the inserts run.
    enum Setup: CaseIterable {
        case none, oneOtherTable, otherTables, excludedRows

        var label: String {
            switch self {
            case .none: "no LiveQuery open"
            case .oneOtherTable: "1 LiveQuery on another table"
            case .otherTables: "\(LiveQueryLoad.liveQueries) LiveQuery on other tables"
            case .excludedRows: "\(LiveQueryLoad.liveQueries) LiveQuery on the written table, rows excluded"
            }
        }
    }

    /// The timings and counts of every round.
    struct Result {
        let inserts: Int
        let rounds: Int
        let samples: [Setup: Samples]
        /// Query fetches the excluded-rows observations ran after their initial fetch, all rounds.
        let refetches: Int
        /// Row-filter probes they ran, all rounds.
        let probes: Int

        /// Median inserts per second of a setup.
        func throughput(_ setup: Setup) -> Double {
            let median = samples[setup]?.median ?? 0
            return median > 0 ? Double(inserts) / (median / 1000) : 0
        }

        /// Throughput with `setup` open over throughput with none.
        func ratio(_ setup: Setup) -> Double {
            let none = throughput(.none)
            return none > 0 ? throughput(setup) / none : 0
        }

        func report() -> String {
            var lines = ["\(LiveQueryLoad.slug): \(LiveQueryLoad.description)"]
            for setup in Setup.allCases {
                let median = samples[setup]?.median ?? 0
                lines.append(
                    "  \(setup.label): \(inserts) inserts in \(Report.milliseconds(median)) ms (median of "
                        + "\(rounds)), \(Report.format(throughput(setup), decimals: 0)) inserts/s, "
                        + "ratio \(Report.format(ratio(setup), decimals: 3))")
            }
            lines.append(
                "  counted by tracing the database's connections, over \(rounds) rounds of \(inserts) inserts: "
                    + "\(refetches) re-fetches of the \(LiveQueryLoad.liveQueries) excluded-rows queries beyond "
                    + "their initial fetches (their SELECT of the query's rows), and \(probes) row-filter probes "
                    + "(SELECT EXISTS of the committed rowids against the predicate, no fetch); the trace runs "
                    + "in that setup only")
            lines += DesignTargets.liveQueryLoadNotes(self).map { "  " + $0 }
            return lines.joined(separator: "\n")
        }
    }

    @MainActor
    static func run(options: Options, scratch: ScratchDirectory) async throws -> Result {
        let inserts = size(options)
        var samples: [Setup: Samples] = [:]
        var (refetches, probes) = (0, 0)
        // One warm-up round, then the recorded ones; the setups rotate so none always goes first.
        for round in 0...options.rounds {
            let order = Setup.allCases.indices.map { Setup.allCases[($0 + round) % Setup.allCases.count] }
            for setup in order {
                Console.progress("[\(slug)] round \(round)/\(options.rounds), \(setup.label)")
                let counts = StatementCounts()
                let elapsed = try await measure(setup, inserts: inserts, scratch: scratch, counts: counts)
                guard round > 0 else { continue }
                samples[setup, default: Samples()].append(elapsed)
                refetches += counts.fetches
                probes += counts.probes
            }
        }
        return Result(
            inserts: inserts, rounds: options.rounds, samples: samples, refetches: refetches, probes: probes)
    }

    /// One round of one setup on a fresh file: opens the live queries, times the inserts, and for
    /// the excluded rows counts what the observations ran and checks they are alive.
    @MainActor
    private static func measure(
        _ setup: Setup, inserts: Int, scratch: ScratchDirectory, counts: StatementCounts
    ) async throws -> Duration {
        let directory = try scratch.makeSubdirectory("\(slug)-\(setup)")
        defer { try? scratch.remove(directory) }
        let db = try Database(path: directory.appendingPathComponent("load.sqlite").path)
        try await db.insert(contentsOf: (1...liveQueries).map { LoadRow(id: nil, bucket: -$0, value: 0) })
        try await db.insert(contentsOf: (0..<liveQueries).map { OtherA(id: nil, bucket: $0 / 2) })
        try await db.insert(contentsOf: (0..<liveQueries).map { OtherB(id: nil, bucket: $0 / 2) })

        var openOthers: [LiveQuery<[OtherA]>] = []
        var openOthersB: [LiveQuery<[OtherB]>] = []
        var openExcluded: [LiveQuery<[LoadRow]>] = []
        switch setup {
        case .none:
            break
        case .oneOtherTable:
            openOthers.append(LiveQuery(db.query(OtherA.self).where { $0.bucket == 0 }))
        case .otherTables:
            for bucket in 0..<(liveQueries / 2) {
                openOthers.append(LiveQuery(db.query(OtherA.self).where { $0.bucket == bucket }))
                openOthersB.append(LiveQuery(db.query(OtherB.self).where { $0.bucket == bucket }))
            }
        case .excludedRows:
            // Traced from before the initial fetches, which check that the trace recognises a fetch.
            db.trace { counts.classify($0) }
            for bucket in 1...liveQueries {
                openExcluded.append(LiveQuery(db.query(LoadRow.self).where { $0.bucket == -bucket }))
            }
            let initial = counts.fetches
            guard initial == liveQueries else {
                throw ShellWriterError(
                    description:
                        "\(slug): the trace saw \(initial) initial fetches of \(liveQueries) live queries")
            }
            counts.reset()
        }
        let failed =
            (openOthers.compactMap(\.error) + openOthersB.compactMap(\.error)
                + openExcluded.compactMap(\.error))
        if let error = failed.first { throw error }

        let elapsed = try Stopwatch.measure {
            for index in 0..<inserts {
                var row = LoadRow(id: nil, bucket: index % 10, value: index)
                try db.insert(&row)
            }
        }
        guard setup == .excludedRows, let watched = openExcluded.first else { return elapsed }
        // Stragglers: an observation still busy with the last commits would fetch now.
        try? await Task.sleep(for: .milliseconds(300))
        db.trace(nil)
        guard openExcluded.allSatisfy({ $0.value.count == 1 }) else {
            throw ObservationStalled(value: -1)
        }
        var entering = LoadRow(id: nil, bucket: -1, value: 1)
        try await db.insert(&entering)
        guard await LiveValueWait.until(watched, { $0.count == 2 }) else {
            throw ObservationStalled(value: 1)
        }
        return elapsed
    }
}

/// What the trace saw the excluded-rows observations run.
private final class StatementCounts: Sendable {
    private let counts = Mutex((fetches: 0, probes: 0))

    var fetches: Int { counts.withLock { $0.fetches } }
    var probes: Int { counts.withLock { $0.probes } }

    func reset() { counts.withLock { $0 = (0, 0) } }

    /// Counts a query fetch (`SELECT * FROM "load_rows" ...`) or a row-filter probe; ignores the
    /// rest (the inserts, the fetch's follow-up read of the rowids it returned).
    func classify(_ sql: String) {
        if sql.hasPrefix("SELECT EXISTS") {
            counts.withLock { $0.probes += 1 }
        } else if sql.hasPrefix("SELECT * FROM \"load_rows\"") {
            counts.withLock { $0.fetches += 1 }
        }
    }
}

/// The written table.
private struct LoadRow: Model {
    var id: Int64?
    var bucket: Int
    var value: Int
    static let schema = Schema<LoadRow>(table: "load_rows")
}

/// Another table, which the inserts never touch.
private struct OtherA: Model {
    var id: Int64?
    var bucket: Int
    static let schema = Schema<OtherA>(table: "other_a")
}

/// A third table, which the inserts never touch.
private struct OtherB: Model {
    var id: Int64?
    var bucket: Int
    static let schema = Schema<OtherB>(table: "other_b")
}
