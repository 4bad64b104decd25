/// The workloads of DESIGN.md's performance table, each with its target ratio.
///
/// The targets are stated for each workload's default size (N = 100,000 rows; 200 loads for
/// Northwind); a note says when a result was measured at another N (`--quick`, `--size`),
/// where fixed costs weigh more.
enum DesignTargets {
    /// Each workload with its target ratio (LiteRecord median / C median), in the order of
    /// DESIGN.md's workloads (tracker issue 7's numbering).
    static let targets: [(workload: Workload, ratio: Double)] = [
        (ModelInserts.workload, 1.3),
        (FetchAll.workload, 1.3),
        (FindByKey.workload, 1.5),
        (ModelUpdates.workload, 1.3),
        (FetchTenInts.workload, 1.3),
        (IndexedQuery.workload, 1.5),
        (NorthwindLoads.orders, 1.3),
        (NorthwindLoads.orderDetails, 1.3),
        (FullText.workload, 1.3),
        (EagerLoading.workload, 1.5),
    ]

    static let group = WorkloadGroup(
        slug: "design-targets",
        description: "DESIGN.md's performance targets (ratio LiteRecord / C at each workload's default N)",
        workloads: targets.map(\.workload),
        notes: notes)

    /// Tracker issues 32 and 45's PostgreSQL targets, against hand-written libpq in the same run (the
    /// workloads stay in the `postgres` group, which needs a server; its notes give these
    /// verdicts in the same form).
    static let postgresTargets: [(workload: Workload, ratio: Double)] = [
        (PostgresWorkloads.insertBatch, 1.5),
        (PostgresWorkloads.fetchAll, 1.3),
        (PostgresWorkloads.findByKey, 1.3),
        // Tracker issue 45, item 13: a contended read-modify-write transaction.
        (PostgresCounter.workloads[0], 1.3),
        (PostgresCounter.workloads[1], 1.3),
    ]

    /// Tracker issue 32's raw SQL targets (item 4), measured with the calls as users write them
    /// (the workloads stay in the `classic-inserts` group, whose notes give these verdicts).
    static let rawSQLTargets: [(workload: Workload, ratio: Double)] = [
        (ClassicInserts.transaction, 1.3),
        (FindByKey.rawSQLWorkload, 1.3),
    ]

    /// Per-row costs, the extra cost per row, and each ratio against its target.
    @Sendable
    static func notes(_ results: [WorkloadResult]) -> [String] {
        results.map { result in
            var line = costs(result)
            let allTargets = targets + postgresTargets + rawSQLTargets
            guard let target = allTargets.first(where: { $0.workload.slug == result.slug }) else {
                return line
            }
            let verdict = result.ratio <= target.ratio ? "met" : "missed"
            line +=
                "; ratio \(Report.format(result.ratio, decimals: 2)) vs target ≤ "
                + "\(Report.format(target.ratio, decimals: 1)): \(verdict)"
            let targetSize = target.workload.defaultSize
            if result.size != targetSize { line += " (at N = \(result.size), not \(targetSize))" }
            return line
        }
    }

    /// Tracker issue 32's targets for ``PeakMemory``: `fetchAll`'s peak at most this times C's,
    /// and `forEach`'s at most this many MB (10^6 bytes), whatever N.
    static let peakMemoryRatio = 1.1
    static let forEachPeakMegabytes = 30.0

    /// ``PeakMemory``'s figures against their targets, stated for its default N (1,000,000).
    static func memoryNotes(_ result: PeakMemory.Result) -> [String] {
        func verdict(_ met: Bool) -> String { met ? "met" : "missed" }
        let ratio = result.ratio(.fetchAll)
        let forEach = result.megabytes(.forEach)
        var atSize = ""
        if result.rows != PeakMemory.defaultSize {
            atSize = " (at N = \(result.rows), not \(PeakMemory.defaultSize))"
        }
        return [
            "\(PeakMemory.slug): fetchAll peak \(Report.format(result.megabytes(.fetchAll), decimals: 1)) MB, "
                + "C \(Report.format(result.megabytes(.c), decimals: 1)) MB; ratio \(Report.format(ratio, decimals: 2)) "
                + "vs target ≤ \(Report.format(peakMemoryRatio, decimals: 1))× C: \(verdict(ratio <= peakMemoryRatio))"
                + atSize,
            "\(PeakMemory.slug): forEach peak \(Report.format(forEach, decimals: 1)) MB "
                + "(\(Report.format(result.aboveFloor(.forEach), decimals: 1)) above the process floor) vs target ≤ "
                + "\(Report.format(forEachPeakMegabytes, decimals: 0)) MB: \(verdict(forEach <= forEachPeakMegabytes))"
                + atSize,
        ]
    }

    /// Tracker issue 46's live query targets (DESIGN.md: commit to value p50 ≤ 2 ms, p99 ≤ 10 ms
    /// in the same process), stated for ``LiveQueryDelay/commits`` commits.
    static let liveQueryP50: Duration = .milliseconds(2)
    static let liveQueryP99: Duration = .milliseconds(10)
    /// Commits by another process: p50 at most this.
    static let liveQueryProcessP50: Duration = .milliseconds(20)
    /// Insert throughput with 100 live queries open on other tables, relative to none open.
    static let liveQueryLoadRatio = 0.9
    /// Re-fetches of live queries whose predicates exclude every written row.
    static let liveQueryExcludedRefetches = 0

    /// ``LiveQueryDelay``'s percentiles against their targets.
    static func liveQueryDelayNotes(_ result: LiveQueryDelay.Result) -> [String] {
        func verdict(_ durations: [Duration], _ fraction: Double, _ target: Duration) -> String {
            guard let measured = Percentiles.of(durations, fraction) else { return "no commits: missed" }
            var line =
                "\(Percentiles.milliseconds(measured)) vs target ≤ \(Percentiles.milliseconds(target)): "
            line += measured <= target ? "met" : "missed"
            if durations.count != LiveQueryDelay.commits {
                line += " (over \(durations.count) commits, not \(LiveQueryDelay.commits))"
            }
            return line
        }
        var notes = [
            "target: same-process p50 " + verdict(result.inProcess, 0.5, liveQueryP50),
            "target: same-process p99 " + verdict(result.inProcess, 0.99, liveQueryP99),
        ]
        if let otherProcess = result.otherProcess {
            notes.append("target: other-process p50 " + verdict(otherProcess, 0.5, liveQueryProcessP50))
        }
        return notes
    }

    /// ``LiveQueryLoad``'s ratio and re-fetch count against their targets.
    static func liveQueryLoadNotes(_ result: LiveQueryLoad.Result) -> [String] {
        let ratio = result.ratio(.otherTables)
        var atSize = ""
        if result.inserts != LiveQueryLoad.defaultSize {
            atSize = " (at N = \(result.inserts), not \(LiveQueryLoad.defaultSize))"
        }
        return [
            "target: throughput with \(LiveQueryLoad.liveQueries) LiveQuery on other tables / none open "
                + "\(Report.format(ratio, decimals: 3)) vs target ≥ \(Report.format(liveQueryLoadRatio, decimals: 1)): "
                + (ratio >= liveQueryLoadRatio ? "met" : "missed") + atSize,
            "target: re-fetches of LiveQuery whose predicates exclude the written rows \(result.refetches) vs "
                + "target \(liveQueryExcludedRefetches): "
                + (result.refetches <= liveQueryExcludedRefetches ? "met" : "missed"),
        ]
    }

    /// `slug: C 1.234 µs/row, LiteRecord 2.345 µs/row (+1.111)`: both sides' cost per operation
    /// and LiteRecord's extra cost.
    static func costs(_ result: WorkloadResult) -> String {
        let c = result.cMicrosecondsPerOperation
        let literecord = result.literecordMicrosecondsPerOperation
        return "\(result.slug): C \(Report.format(c, decimals: 3)) µs/\(result.unit), LiteRecord "
            + "\(Report.format(literecord, decimals: 3)) µs/\(result.unit) "
            + "(+\(Report.format(literecord - c, decimals: 3)))"
    }
}
