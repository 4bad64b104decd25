import Foundation

/// One benchmark: the same work done by hand-written `sqlite3_*` code and by LiteRecord.
///
/// A workload has a slug (its row in the report and the name `--filter` matches), a one-line
/// description, a setup that builds what both sides share (input values, expected results, a
/// pre-filled database file to copy) once per run, and two closures that each do the work once and return the time taken by the
/// measured part only. Opening a fresh database, creating tables and checking the result
/// happen inside the closures but outside the measured part.
///
/// Rules for a fair comparison: same SQL text, same values, same pragmas, statements reused on
/// both sides, a fresh database for every round on both sides (each closure receives its own
/// empty directory in ``RoundContext``).
struct Workload: Sendable {
    /// The row's name in the report, such as `classic-transaction`.
    let slug: String
    /// What the workload does, in one line.
    let description: String
    /// What one operation is, for per-operation costs: `row`, `lookup`, ...
    let unit: String
    /// The size N used when the command line sets none (neither `--size` nor `--quick`).
    let defaultSize: Int
    /// The size N used by `--quick` when the command line sets no `--size`: ``Options/quickSize``
    /// unless the workload is slow even at that size.
    let quickSize: Int
    /// How many operations one measurement performs, given the size N.
    let operations: @Sendable (_ size: Int) -> Int
    private let makeTrial: @Sendable (SetupContext) throws -> Trial

    /// Creates a workload.
    ///
    /// - Parameters:
    ///   - slug: Its name in the report.
    ///   - description: One line.
    ///   - unit: What one operation is.
    ///   - defaultSize: N when the command line sets none; ``Options/defaultSize`` by default.
    ///   - quickSize: N under `--quick` without `--size`; ``Options/quickSize`` by default.
    ///   - operations: Operations per measurement for a size N; N itself by default.
    ///   - setup: Builds the shared fixture, once per run, untimed.
    ///   - c: Does the work with the C API once; returns the measured time.
    ///   - literecord: Does the same work with LiteRecord once; returns the measured time.
    init<Fixture>(
        slug: String,
        description: String,
        unit: String = "row",
        defaultSize: Int = Options.defaultSize,
        quickSize: Int = Options.quickSize,
        operations: @escaping @Sendable (_ size: Int) -> Int = { $0 },
        setup: @escaping @Sendable (SetupContext) throws -> Fixture,
        c: @escaping @Sendable (Fixture, RoundContext) throws -> Duration,
        literecord: @escaping @Sendable (Fixture, RoundContext) throws -> Duration
    ) {
        self.slug = slug
        self.description = description
        self.unit = unit
        self.defaultSize = defaultSize
        self.quickSize = quickSize
        self.operations = operations
        self.makeTrial = { context in
            let fixture = try setup(context)
            return Trial(
                run: { side, context in
                    switch side {
                    case .c: try c(fixture, context)
                    case .literecord: try literecord(fixture, context)
                    }
                })
        }
    }

    /// Runs the setup and returns what runs the rounds.
    ///
    /// - Parameter context: The size N and a directory that lasts for all rounds.
    /// - Throws: What the setup throws.
    func prepare(_ context: SetupContext) throws -> Trial {
        try makeTrial(context)
    }
}

/// A workload after its setup: runs one side for one round.
struct Trial {
    /// Does the work once on one side and returns the measured time.
    let run: (Side, RoundContext) throws -> Duration
}

/// Which implementation does the work.
enum Side: String, Sendable, CaseIterable {
    case c = "C"
    case literecord = "LiteRecord"
}

/// What a workload's setup gets.
struct SetupContext {
    /// The size parameter N.
    let size: Int
    /// A directory for fixtures shared by all rounds (a pre-filled database to copy, ...),
    /// removed after the workload's last round.
    let directory: URL
}

/// What a workload closure gets for one round of one side.
struct RoundContext {
    /// The size parameter N.
    let size: Int
    /// 0 for the warm-up round, then 1...rounds.
    let round: Int
    /// A fresh, empty directory for this side and round, removed afterwards.
    let directory: URL

    /// A database path inside ``directory``.
    ///
    /// - Parameter name: The file name.
    func databasePath(_ name: String = "bench.sqlite") -> String {
        directory.appendingPathComponent(name).path
    }
}

/// Workloads that belong together, such as the two halves of the classic-inserts comparison,
/// with remarks computed from their results (a slowdown factor, ...).
struct WorkloadGroup: Sendable {
    /// The group's name; `--filter` matches it too.
    let slug: String
    /// What the group shows, in one line.
    let description: String
    /// The workloads, in report order.
    let workloads: [Workload]
    /// Extra report lines computed from the results of this group's workloads that ran.
    let notes: @Sendable ([WorkloadResult]) -> [String]
}

/// Every workload the harness knows, in report order.
enum Catalog {
    static let groups: [WorkloadGroup] = [
        ClassicInserts.group,
        DesignTargets.group,
        FoundationCBaseline.group,
        FileWorkloads.group,
        NestedEagerLoading.group,
        PostgresWorkloads.group,
    ]

    /// The workloads whose slug, or whose group's slug, contains `filter` (ignoring case).
    ///
    /// - Parameter filter: A substring, or `nil` for all workloads.
    /// - Returns: Matching workloads paired with their group, in report order.
    static func select(_ filter: String?) -> [(group: WorkloadGroup, workload: Workload)] {
        groups.flatMap { group in
            group.workloads.compactMap { workload in
                guard let filter else { return (group, workload) }
                let matches =
                    workload.slug.localizedCaseInsensitiveContains(filter)
                    || group.slug.localizedCaseInsensitiveContains(filter)
                return matches ? (group, workload) : nil
            }
        }
    }
}
