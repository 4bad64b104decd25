/// Tracker issue 7, workload 9: DESIGN.md's workloads 1–4 (insert, fetch all, find by key,
/// update) on file databases (WAL, `synchronous = NORMAL`) instead of in memory.
///
/// The same workload code runs as in ``DesignTargets``, with each side's databases opened as
/// files in the setup's or the round's scratch directory (``Storage/file``). On a file,
/// LiteRecord's convenience reads (`fetchAll`, `find`) run on a connection of its reader pool,
/// and writes on its writer; the C side uses one connection. No target is set: the notes give
/// each side's cost per operation, to set beside the in-memory rows.
enum FileWorkloads {
    static let workloads: [Workload] = [
        ModelInserts.fileWorkload,
        FetchAll.fileWorkload,
        FindByKey.fileWorkload,
        ModelUpdates.fileWorkload,
    ]

    static let group = WorkloadGroup(
        slug: "file-wal",
        description: "workloads 1–4 on file databases (WAL, synchronous NORMAL), tracker issue 7 workload 9",
        workloads: workloads,
        notes: { results in results.map(DesignTargets.costs) })
}
