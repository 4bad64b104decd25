import Foundation

/// Reads and inserts per second of one run of ``ConcurrentReads``.
struct ConcurrencyRates: Sendable {
    /// Lookups completed per second, all reader threads together.
    let readsPerSecond: Double
    /// Inserts the writer thread committed per second.
    let writesPerSecond: Double
}

/// Both sides' rates for one reader count, one value per recorded round.
struct ConcurrencySamples: Sendable {
    /// How many reader threads ran beside the writer.
    let readers: Int
    private(set) var cReads: [Double] = []
    private(set) var literecordReads: [Double] = []
    private(set) var cWrites: [Double] = []
    private(set) var literecordWrites: [Double] = []

    init(readers: Int) {
        self.readers = readers
    }

    /// Records one round of one side.
    mutating func append(_ rates: ConcurrencyRates, side: Side) {
        switch side {
        case .c:
            cReads.append(rates.readsPerSecond)
            cWrites.append(rates.writesPerSecond)
        case .literecord:
            literecordReads.append(rates.readsPerSecond)
            literecordWrites.append(rates.writesPerSecond)
        }
    }

    /// LiteRecord's median reads per second over C's: 1.0 is C speed, higher is better.
    var readsRatio: Double {
        cReads.median > 0 ? literecordReads.median / cReads.median : .infinity
    }
}

/// The outcome of ``ConcurrentReads``: its own section of the report, and objects of its own
/// in the JSON array (it measures throughput, so it has no place in the time table).
struct ConcurrencyResult: Sendable {
    /// Rows seeded.
    let size: Int
    /// How long each run lasted.
    let window: Duration
    let rounds: Int
    /// LiteRecord's reader pool size.
    let maximumReaderCount: Int
    /// One entry per reader count, in ``ConcurrentReads/readerCounts`` order.
    let rows: [ConcurrencySamples]

    /// The most readers over the fewest: how reads per second grew with the reader threads.
    private func speedup(_ reads: (ConcurrencySamples) -> [Double]) -> Double? {
        guard let fewest = rows.first, let most = rows.last, fewest.readers != most.readers else {
            return nil
        }
        let base = reads(fewest).median
        return base > 0 ? reads(most).median / base : nil
    }

    /// The printed section: a title, a table of medians, the speedup and a legend.
    func report() -> String {
        let seconds = Report.format(window.milliseconds / 1000, decimals: 2)
        var lines = [
            "Concurrent reads (file, WAL, synchronous NORMAL): 1 writer thread inserting Items, each in its "
                + "own write, while K reader threads find Items by random key",
            "N = \(size) seeded rows, \(seconds) s window per run, LiteRecord maximumReaderCount "
                + "\(maximumReaderCount), medians of \(rounds) rounds after 1 warm-up",
            "",
        ]
        let headers = [
            "readers", "C reads/s", "LiteRecord reads/s", "reads ratio", "C inserts/s",
            "LiteRecord inserts/s",
            "C reads/s spread", "LiteRecord reads/s spread",
        ]
        let cells = rows.map { row in
            [
                "\(row.readers)", perSecond(row.cReads.median), perSecond(row.literecordReads.median),
                Report.format(row.readsRatio, decimals: 2), perSecond(row.cWrites.median),
                perSecond(row.literecordWrites.median), spread(row.cReads), spread(row.literecordReads),
            ]
        }
        lines.append(Report.alignedTable(headers: headers, rows: cells, leftAligned: []))
        lines.append("")
        if let first = rows.first, let last = rows.last,
            let cSpeedup = speedup(\.cReads), let literecordSpeedup = speedup(\.literecordReads)
        {
            lines.append(
                "speedup \(last.readers) vs \(first.readers) readers (reads/s): C "
                    + "\(Report.format(cSpeedup, decimals: 2))×, LiteRecord "
                    + "\(Report.format(literecordSpeedup, decimals: 2))× (\(ProcessInfo.processInfo.activeProcessorCount) "
                    + "cores shared by the writer and the readers)")
        }
        lines.append(
            "reads ratio = LiteRecord reads/s / C reads/s (1.00 = C speed; higher is better); "
                + "inserts/s = the writer's commits during the same window")
        return lines.joined(separator: "\n")
    }

    /// One JSON object per reader count, `concurrent-reads-1`, `concurrent-reads-4`.
    func jsonEntries(description: String) -> [any Encodable] {
        rows.map { row in
            ConcurrencyJSONEntry(
                workload: "\(ConcurrentReads.slug)-\(row.readers)", group: ConcurrentReads.group,
                description: description, n: size, rounds: rounds, readers: row.readers,
                maximumReaderCount: maximumReaderCount, windowSeconds: rounded(window.milliseconds / 1000),
                cReadsPerSecond: rounded(row.cReads.median),
                literecordReadsPerSecond: rounded(row.literecordReads.median),
                readsRatio: row.readsRatio.isFinite ? rounded(row.readsRatio) : nil,
                cWritesPerSecond: rounded(row.cWrites.median),
                literecordWritesPerSecond: rounded(row.literecordWrites.median),
                samplesCReadsPerSecond: row.cReads.map(rounded),
                samplesLiteRecordReadsPerSecond: row.literecordReads.map(rounded),
                samplesCWritesPerSecond: row.cWrites.map(rounded),
                samplesLiteRecordWritesPerSecond: row.literecordWrites.map(rounded))
        }
    }

    private func perSecond(_ value: Double) -> String {
        Report.format(value, decimals: 0)
    }

    private func spread(_ values: [Double]) -> String {
        perSecond(values.min() ?? 0) + "–" + perSecond(values.max() ?? 0)
    }
}

/// One reader count of ``ConcurrentReads`` in the JSON file.
private struct ConcurrencyJSONEntry: Encodable {
    let workload: String
    let group: String
    let description: String
    let n: Int
    let rounds: Int
    let readers: Int
    let maximumReaderCount: Int
    let windowSeconds: Double
    let cReadsPerSecond: Double
    let literecordReadsPerSecond: Double
    let readsRatio: Double?
    let cWritesPerSecond: Double
    let literecordWritesPerSecond: Double
    let samplesCReadsPerSecond: [Double]
    let samplesLiteRecordReadsPerSecond: [Double]
    let samplesCWritesPerSecond: [Double]
    let samplesLiteRecordWritesPerSecond: [Double]

    enum CodingKeys: String, CodingKey {
        case workload, group, description, n, rounds, readers
        case maximumReaderCount = "maximum_reader_count"
        case windowSeconds = "window_s"
        case cReadsPerSecond = "c_reads_per_s"
        case literecordReadsPerSecond = "literecord_reads_per_s"
        case readsRatio = "reads_ratio"
        case cWritesPerSecond = "c_writes_per_s"
        case literecordWritesPerSecond = "literecord_writes_per_s"
        case samplesCReadsPerSecond = "samples_c_reads_per_s"
        case samplesLiteRecordReadsPerSecond = "samples_literecord_reads_per_s"
        case samplesCWritesPerSecond = "samples_c_writes_per_s"
        case samplesLiteRecordWritesPerSecond = "samples_literecord_writes_per_s"
    }
}
