import Foundation

/// Turns results into the printed table and the JSON file.
enum Report {
    /// The lines above the table: machine, SQLite, date, N and rounds.
    static func header(machine: MachineInfo, options: Options, settings: [String], scratch: String) -> String
    {
        var cpu = "\(machine.architecture), \(machine.cores) cores"
        if let model = machine.cpuModel { cpu += " (\(model))" }
        let lines = [
            "LiteRecord benchmarks: LiteRecord vs hand-written sqlite3_* C code, same process",
            "machine  \(cpu), \(machine.system)",
            "SQLite   \(machine.sqliteVersion); both sides: \(settings.joined(separator: ", "))",
            "date     \(machine.date)",
            "N        "
                + (options.size.map { "\($0)" }
                    ?? (options.quick
                        ? "each workload's --quick size (column N)" : "each workload's default (column N)")),
            "rounds   \(options.rounds) measured after 1 warm-up, C and LiteRecord interleaved",
            "scratch  \(scratch)",
        ]
        return lines.joined(separator: "\n")
    }

    /// The aligned results table: N, medians, min–max spreads, ratio and per-operation costs.
    static func table(_ results: [WorkloadResult]) -> String {
        let headers = [
            "workload", "N", "C median (ms)", "LiteRecord median (ms)", "C spread (ms)",
            "LiteRecord spread (ms)", "ratio", "C µs/op", "LiteRecord µs/op", "op",
        ]
        let rows = results.map { result in
            [
                result.slug,
                "\(result.size)",
                milliseconds(result.c.median),
                milliseconds(result.literecord.median),
                milliseconds(result.c.min) + "–" + milliseconds(result.c.max),
                milliseconds(result.literecord.min) + "–" + milliseconds(result.literecord.max),
                format(result.ratio, decimals: 2),
                format(result.cMicrosecondsPerOperation, decimals: 2),
                format(result.literecordMicrosecondsPerOperation, decimals: 2),
                result.unit,
            ]
        }
        // Text columns are left-aligned, numbers right-aligned.
        return alignedTable(headers: headers, rows: rows, leftAligned: [0, headers.count - 1])
    }

    /// Columns padded to their widest cell, a rule under the headers.
    ///
    /// - Parameters:
    ///   - headers: The column titles.
    ///   - rows: The cells, as many per row as headers.
    ///   - leftAligned: The columns padded on the right (text); the others are right-aligned.
    static func alignedTable(headers: [String], rows: [[String]], leftAligned: Set<Int>) -> String {
        let widths = headers.indices.map { column in
            ([headers] + rows).map { $0[column].count }.max() ?? 0
        }
        func line(_ cells: [String]) -> String {
            let text = cells.indices.map { column in
                let padding = String(repeating: " ", count: widths[column] - cells[column].count)
                return leftAligned.contains(column) ? cells[column] + padding : padding + cells[column]
            }
            var joined = text.joined(separator: "  ")
            while joined.hasSuffix(" ") { joined.removeLast() }
            return joined
        }
        let rule = String(repeating: "-", count: widths.reduce(0, +) + 2 * (widths.count - 1))
        return ([line(headers), rule] + rows.map(line)).joined(separator: "\n")
    }

    /// The ratio legend and each group's notes, for the groups that ran.
    static func notes(_ results: [WorkloadResult], groups: [WorkloadGroup]) -> String {
        var lines = ["ratio = LiteRecord median / C median (1.00 = C speed; lower is better)"]
        for group in groups {
            let groupResults = results.filter { $0.group == group.slug }
            guard !groupResults.isEmpty else { continue }
            lines.append("")
            lines.append("\(group.slug): \(group.description)")
            lines += group.notes(groupResults).map { "  " + $0 }
        }
        return lines.joined(separator: "\n")
    }

    /// The results as a JSON array, one object per workload, then the `extra` objects (such as
    /// the throughput workloads' ``ConcurrencyResult/jsonEntries``).
    ///
    /// - Throws: When encoding fails. A non-finite ratio (C took no time) is left out.
    static func json(_ results: [WorkloadResult], rounds: Int, extra: [any Encodable] = []) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        let entries: [any Encodable] = results.map { JSONEntry($0, rounds: rounds) } + extra
        var data = try encoder.encode(entries.map(AnyEntry.init))
        data.append(UInt8(ascii: "\n"))
        return data
    }

    /// Milliseconds with three decimals.
    static func milliseconds(_ value: Double) -> String {
        format(value, decimals: 3)
    }

    /// A number with a fixed count of decimals; `inf` or `nan` as such.
    static func format(_ value: Double, decimals: Int) -> String {
        value.isFinite ? String(format: "%.\(decimals)f", value) : "\(value)"
    }
}

/// An object of the JSON array, whatever its fields.
private struct AnyEntry: Encodable {
    let base: any Encodable

    func encode(to encoder: any Encoder) throws {
        try base.encode(to: encoder)
    }
}

/// One workload in the JSON file.
private struct JSONEntry: Encodable {
    let workload: String
    let group: String
    let description: String
    let n: Int
    let rounds: Int
    let operations: Int
    let unit: String
    let cMilliseconds: Double
    let literecordMilliseconds: Double
    let ratio: Double?
    let spreadCMilliseconds: [Double]
    let spreadLiteRecordMilliseconds: [Double]
    let samplesCMilliseconds: [Double]
    let samplesLiteRecordMilliseconds: [Double]
    let cMicrosecondsPerOperation: Double
    let literecordMicrosecondsPerOperation: Double

    init(_ result: WorkloadResult, rounds: Int) {
        workload = result.slug
        group = result.group
        description = result.description
        n = result.size
        self.rounds = rounds
        operations = result.operations
        unit = result.unit
        cMilliseconds = rounded(result.c.median)
        literecordMilliseconds = rounded(result.literecord.median)
        ratio = result.ratio.isFinite ? rounded(result.ratio) : nil
        spreadCMilliseconds = [rounded(result.c.min), rounded(result.c.max)]
        spreadLiteRecordMilliseconds = [rounded(result.literecord.min), rounded(result.literecord.max)]
        samplesCMilliseconds = result.c.milliseconds.map(rounded)
        samplesLiteRecordMilliseconds = result.literecord.milliseconds.map(rounded)
        cMicrosecondsPerOperation = rounded(result.cMicrosecondsPerOperation)
        literecordMicrosecondsPerOperation = rounded(result.literecordMicrosecondsPerOperation)
    }

    enum CodingKeys: String, CodingKey {
        case workload, group, description, n, rounds, operations, unit, ratio
        case cMilliseconds = "c_ms"
        case literecordMilliseconds = "literecord_ms"
        case spreadCMilliseconds = "spread_c_ms"
        case spreadLiteRecordMilliseconds = "spread_literecord_ms"
        case samplesCMilliseconds = "samples_c_ms"
        case samplesLiteRecordMilliseconds = "samples_literecord_ms"
        case cMicrosecondsPerOperation = "c_us_per_op"
        case literecordMicrosecondsPerOperation = "literecord_us_per_op"
    }
}

/// Six decimals: nanoseconds for milliseconds, enough for any ratio.
func rounded(_ value: Double) -> Double {
    (value * 1_000_000).rounded() / 1_000_000
}
