/// The Item workloads against the older, weaker C side, kept as extra rows for comparison.
///
/// Their C side converts dates with LiteRecord's own public `DateStorage.text` and `[String]`
/// with Foundation's `JSONEncoder`/`JSONDecoder`: code a C programmer would not write, which
/// made LiteRecord's ratios look better than they are. The design targets are measured against
/// the hand-written C side (``CDateText``, ``CStringArrayWriter``, ``CStringArrayParser``).
enum FoundationCBaseline {
    static let group = WorkloadGroup(
        slug: "foundation-c",
        description:
            "the Item workloads against a C side that uses DateStorage.text and Foundation's JSON coders",
        workloads: [
            ModelInserts.foundationWorkload, FetchAll.foundationWorkload, ModelUpdates.foundationWorkload,
        ],
        notes: { results in results.map(DesignTargets.costs) })
}
