/// The workloads of DESIGN.md's performance table, each with its target ratio.
///
/// The targets are stated for N = 100,000, each workload's default size; a note says when a
/// result was measured at another N (`--quick`, `--size`), where fixed costs weigh more.
enum DesignTargets {
    /// The targets' size N.
    static let targetSize = 100_000

    /// Each workload with its target ratio (LiteRecord median / C median), in DESIGN.md's order.
    static let targets: [(workload: Workload, ratio: Double)] = [
        (FetchAll.workload, 1.3),
        (FetchTenInts.workload, 1.5),
    ]

    static let group = WorkloadGroup(
        slug: "design-targets",
        description: "DESIGN.md's performance targets (ratio LiteRecord / C at N = 100,000)",
        workloads: targets.map(\.workload),
        notes: notes)

    /// Per-row costs, the extra cost per row, and each ratio against its target.
    @Sendable
    private static func notes(_ results: [WorkloadResult]) -> [String] {
        results.map { result in
            let c = result.cMicrosecondsPerOperation
            let literecord = result.literecordMicrosecondsPerOperation
            var line =
                "\(result.slug): C \(Report.format(c, decimals: 3)) µs/\(result.unit), LiteRecord "
                + "\(Report.format(literecord, decimals: 3)) µs/\(result.unit) "
                + "(+\(Report.format(literecord - c, decimals: 3)))"
            guard let target = targets.first(where: { $0.workload.slug == result.slug })?.ratio else {
                return line
            }
            let verdict = result.ratio <= target ? "met" : "missed"
            line +=
                "; ratio \(Report.format(result.ratio, decimals: 2)) vs target ≤ "
                + "\(Report.format(target, decimals: 1)): \(verdict)"
            if result.size != targetSize { line += " (at N = \(result.size), not \(targetSize))" }
            return line
        }
    }
}
