import Foundation
import LiteRecord

/// Tracker issue 32: the peak memory of fetching N rows of ``FetchTenInts/TenInts`` from a file,
/// for C, LiteRecord's `fetchAll` and LiteRecord's `forEach`.
///
/// A process's peak resident memory (`VmHWM` in `/proc/self/status`) only ever grows, so each
/// contender runs in a child process of its own: ``probeName``, a small program built with the
/// benchmark and linked, as an application is, with LiteRecord and SQLite but not libpq. The
/// child opens the file built once by the parent (the same values as ``FetchTenInts``, WAL,
/// `synchronous = NORMAL`), fetches every row, checks the count and a checksum, and prints its
/// `VmHWM` line; the parent parses it. A child that fetches nothing gives the floor of the
/// process itself (Swift runtime, Foundation, SQLite). Each contender runs a few times,
/// interleaved; the figure is the median, though it hardly varies.
///
/// C: the `sqlite3_step` loop of `FetchTenInts.fetchC`, appending to a `[TenInts]` reserved
/// for the N rows it stored. LiteRecord: `Database(path:)`, then
/// `fetchAll(TenInts.self, sql:)`, or `forEach(TenInts.self, sql:)` summing the rows without
/// keeping them. Each is the first fetch of its connection: no row count from a previous
/// fetch sizes the array.
///
/// Linux only: other systems have no `/proc`; there the workload is skipped with a note.
enum PeakMemory {
    static let slug = "peak-memory"
    /// `--filter` matches the slug or this group name: its targets are DESIGN.md's.
    static let group = DesignTargets.group.slug
    static let description =
        "peak resident memory (VmHWM) of a child process fetching N rows of 10 INTEGER columns "
        + "from a file: C, LiteRecord fetchAll, LiteRecord forEach"
    /// Rows, when the command line sets no `--size` (the workload), and under `--quick`.
    static let defaultSize = 1_000_000
    static let quickSize = 20_000
    /// Children per contender: the peak is nearly the same every time.
    static let maximumRounds = 3
    /// The child program, next to the benchmark's own: `LiteRecordMemoryProbe CONTENDER ROWS PATH`.
    static let probeName = "LiteRecordMemoryProbe"
    /// Where the peak is read.
    static let statusPath = "/proc/self/status"

    /// What a child does.
    enum Contender: String, CaseIterable, Sendable {
        /// Opens nothing: the process's own floor.
        case floor
        case c
        case fetchAll
        case forEach

        /// Its name in the report.
        var label: String {
            switch self {
            case .floor: "process floor (no fetch)"
            case .c: "C"
            case .fetchAll: "LiteRecord fetchAll"
            case .forEach: "LiteRecord forEach"
            }
        }
    }

    /// A child's command line, parsed.
    struct ChildRequest: Equatable, Sendable {
        let contender: Contender
        let rows: Int
        let path: String
    }

    /// Whether `--filter` selects it.
    static func isSelected(by filter: String?) -> Bool {
        guard let filter else { return true }
        return slug.localizedCaseInsensitiveContains(filter) || group.localizedCaseInsensitiveContains(filter)
    }

    /// N for these options: `--size`, else ``quickSize`` under `--quick`, else ``defaultSize``.
    static func size(_ options: Options) -> Int {
        options.size ?? (options.quick ? quickSize : defaultSize)
    }

    /// Why the workload cannot run here, or `nil` when it can.
    static var unavailableReason: String? {
        FileManager.default.fileExists(atPath: statusPath)
            ? nil : "\(slug): skipped: it reads VmHWM from \(statusPath), which this system does not have"
    }

    // MARK: - Parent

    /// Builds the file, runs the children and gathers their peaks.
    static func run(options: Options, scratch: ScratchDirectory) throws -> Result {
        let rows = size(options)
        let directory = try scratch.makeSubdirectory(slug)
        defer { try? scratch.remove(directory) }
        let path = directory.appendingPathComponent("ten-ints.sqlite").path
        Console.progress("[\(slug)] writing \(rows) rows")
        try buildDatabase(at: path, rows: rows)
        let benchmark = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        let executable = URL(fileURLWithPath: benchmark).deletingLastPathComponent()
            .appendingPathComponent(probeName).path
        guard FileManager.default.isExecutableFile(atPath: executable) else {
            throw FixtureError(
                description: "\(slug): \(executable) is missing: build it with "
                    + "`swift build -c release --product \(probeName)` (`swift run LiteRecordBenchmarks` does)"
            )
        }
        let rounds = min(options.rounds, maximumRounds)
        var samples: [Contender: [Int]] = [:]
        for round in 1...rounds {
            for contender in Contender.allCases {
                Console.progress("[\(slug)] round \(round)/\(rounds), \(contender.label)")
                let request = ChildRequest(contender: contender, rows: rows, path: path)
                samples[contender, default: []].append(try runChild(request, executable: executable))
            }
        }
        return Result(rows: rows, rounds: rounds, kilobytes: samples)
    }

    /// The ten-integer table of ``FetchTenInts``, written by the C side in one transaction.
    private static func buildDatabase(at path: String, rows: Int) throws {
        let database = try CDatabase(path: path)
        try database.execute(FetchTenInts.createTable)
        try database.execute("BEGIN")
        let insert = try database.prepare(FetchTenInts.insert)
        for index in 0..<rows {
            for (offset, column) in FetchTenInts.value(at: index).columns.enumerated() {
                try insert.bind(Int64(column), at: Int32(offset + 1))
            }
            try insert.run()
            try insert.reset()
        }
        try database.execute("COMMIT")
    }

    /// Starts the probe as one child and returns the `VmHWM` it printed, in kB.
    private static func runChild(_ request: ChildRequest, executable: String) throws -> Int {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = [request.contender.rawValue, "\(request.rows)", request.path]
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        // Read before waiting, so that a child writing much cannot block on a full pipe.
        let printed = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let complaint = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0, let kilobytes = peakKilobytes(in: printed) else {
            throw FixtureError(
                description: "\(slug) child (\(request.contender.label)) exited with status "
                    + "\(process.terminationStatus): \(complaint.isEmpty ? printed : complaint)")
        }
        return kilobytes
    }

    /// The kB of a `VmHWM:   123456 kB` line of `/proc/self/status` text, or `nil`.
    static func peakKilobytes(in status: String) -> Int? {
        for line in status.split(separator: "\n") where line.hasPrefix("VmHWM:") {
            // `/proc` separates the fields with a tab and pads the number with spaces.
            let fields = line.dropFirst("VmHWM:".count).split(whereSeparator: \.isWhitespace)
            guard fields.count == 2, fields[1] == "kB" else { return nil }
            return Int(fields[0])
        }
        return nil
    }

    // MARK: - Result

    /// Each contender's peaks, one per round.
    struct Result: Sendable {
        let rows: Int
        let rounds: Int
        /// `VmHWM` in kB (1,024 bytes) per contender, one sample per round.
        let kilobytes: [Contender: [Int]]

        /// A contender's median peak in MB (10^6 bytes).
        func megabytes(_ contender: Contender) -> Double {
            let samples = (kilobytes[contender] ?? []).map(Double.init).sorted()
            guard !samples.isEmpty else { return 0 }
            let middle = samples.count / 2
            let median =
                samples.count % 2 == 1 ? samples[middle] : (samples[middle - 1] + samples[middle]) / 2
            return median * 1024 / 1_000_000
        }

        /// A contender's median peak above the process floor's: what the fetch itself added.
        func aboveFloor(_ contender: Contender) -> Double {
            megabytes(contender) - megabytes(.floor)
        }

        /// A contender's median peak over C's.
        func ratio(_ contender: Contender) -> Double {
            let c = megabytes(.c)
            return c > 0 ? megabytes(contender) / c : .infinity
        }

        /// The printed section: a table of the peaks, then the targets.
        func report() -> String {
            let headers = ["contender", "peak VmHWM (MB)", "above floor (MB)", "ratio to C", "samples (MB)"]
            let cells = Contender.allCases.map { contender in
                [
                    contender.label, Report.format(megabytes(contender), decimals: 1),
                    Report.format(aboveFloor(contender), decimals: 1),
                    Report.format(ratio(contender), decimals: 2),
                    (kilobytes[contender] ?? []).map {
                        Report.format(Double($0) * 1024 / 1_000_000, decimals: 1)
                    }
                    .joined(separator: " "),
                ]
            }
            var lines = [
                "\(PeakMemory.slug): \(PeakMemory.description)",
                "N = \(rows) rows, one child process per contender and round, median of \(rounds) rounds; "
                    + "MB = 10^6 bytes",
                "",
                Report.alignedTable(headers: headers, rows: cells, leftAligned: [0]),
                "",
                "\(PeakMemory.group):",
            ]
            lines += DesignTargets.memoryNotes(self).map { "  " + $0 }
            return lines.joined(separator: "\n")
        }

        /// One object per contender in the JSON array.
        func jsonEntries() -> [any Encodable] {
            Contender.allCases.map { contender in
                PeakMemoryJSONEntry(
                    workload: PeakMemory.slug, group: PeakMemory.group, description: PeakMemory.description,
                    n: rows, rounds: rounds, contender: contender.label,
                    peakMegabytes: rounded(megabytes(contender)),
                    aboveFloorMegabytes: rounded(aboveFloor(contender)),
                    ratioToC: ratio(contender).isFinite ? rounded(ratio(contender)) : nil,
                    samplesKilobytes: kilobytes[contender] ?? [])
            }
        }
    }
}

/// One contender of ``PeakMemory`` in the JSON file.
private struct PeakMemoryJSONEntry: Encodable {
    let workload: String
    let group: String
    let description: String
    let n: Int
    let rounds: Int
    let contender: String
    let peakMegabytes: Double
    let aboveFloorMegabytes: Double
    let ratioToC: Double?
    let samplesKilobytes: [Int]

    enum CodingKeys: String, CodingKey {
        case workload, group, description, n, rounds, contender
        case peakMegabytes = "peak_mb"
        case aboveFloorMegabytes = "above_floor_mb"
        case ratioToC = "ratio_to_c"
        case samplesKilobytes = "samples_vmhwm_kb"
    }
}
