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

    /// Per-row costs, the extra cost per row, and each ratio against its target.
    @Sendable
    private static func notes(_ results: [WorkloadResult]) -> [String] {
        results.map { result in
            var line = costs(result)
            guard let target = targets.first(where: { $0.workload.slug == result.slug }) else {
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
