// LiteRecordBenchmarks: LiteRecord side by side with hand-written sqlite3_* C code.
//
// Parses the options, runs the selected workloads (one warm-up round, then K rounds with both
// sides interleaved), prints the machine, the table and the notes, and writes --json / --svg.
// Exit status: 0 on success, 1 when a workload or a file fails, 2 for a bad command line.
//
// The top-level code is asynchronous so that the main actor runs its queue: the live query
// workloads wait on it, suspended, for their values' hops. Everything else runs on it as before.

import Foundation

/// Runs the program and returns its exit status.
@MainActor
func main() async -> Int32 {
    let options: Options
    do {
        switch try Options.parse(CommandLine.arguments.dropFirst()) {
        case .help:
            print(Options.usage)
            return 0
        case .run(let parsed):
            options = parsed
        }
    } catch {
        Console.writeError("error: \(error)\n\n\(Options.usage)\n")
        return 2
    }

    // The PostgreSQL workloads need a server: without one they are skipped, saying how to start one.
    let (selected, skippedPostgres) = PostgresWorkloads.partition(Catalog.select(options.filter))
    let concurrency = ConcurrentReads.isSelected(by: options.filter)
    let observation = ObservationDelay.isSelected(by: options.filter)
    let peakMemory = PeakMemory.isSelected(by: options.filter)
    let liveDelay = LiveQueryDelay.isSelected(by: options.filter)
    let liveLoad = LiveQueryLoad.isSelected(by: options.filter)
    let extras = concurrency || observation || peakMemory || liveDelay || liveLoad
    if options.listOnly {
        for (group, workload) in selected {
            let size = options.size(for: workload)
            print("\(workload.slug)  (\(group.slug), N = \(size)): \(workload.description)")
        }
        if concurrency {
            print(
                "\(ConcurrentReads.slug)  (\(ConcurrentReads.group), N = \(ConcurrentReads.size(options)), "
                    + "K = \(ConcurrentReads.readerCounts)): \(ConcurrentReads.description)")
        }
        if observation {
            print("\(ObservationDelay.slug)  (\(ObservationDelay.group)): \(ObservationDelay.description)")
        }
        if peakMemory {
            print(
                "\(PeakMemory.slug)  (\(PeakMemory.group), N = \(PeakMemory.size(options))): \(PeakMemory.description)"
            )
        }
        if liveDelay {
            print("\(LiveQueryDelay.slug)  (\(LiveQueryDelay.group)): \(LiveQueryDelay.description)")
        }
        if liveLoad {
            print(
                "\(LiveQueryLoad.slug)  (\(LiveQueryLoad.group), N = \(LiveQueryLoad.size(options))): "
                    + LiveQueryLoad.description)
        }
        if !skippedPostgres.isEmpty { print(PostgresWorkloads.skipMessage(skippedPostgres)) }
        return 0
    }
    if !skippedPostgres.isEmpty {
        Console.writeError(PostgresWorkloads.skipMessage(skippedPostgres) + "\n")
        if selected.isEmpty && !extras { return 0 }
    }
    guard !selected.isEmpty || extras else {
        let known =
            (Catalog.select(nil).map(\.workload.slug) + [
                ConcurrentReads.slug, ObservationDelay.slug, PeakMemory.slug, LiveQueryDelay.slug,
                LiveQueryLoad.slug,
            ])
            .joined(separator: ", ")
        Console.writeError("error: no workload matches '\(options.filter ?? "")'; workloads: \(known)\n")
        return 2
    }

    let scratch: ScratchDirectory
    do {
        scratch = try ScratchDirectory()
    } catch {
        Console.error("cannot create a temporary directory: \(error)")
        return 1
    }
    defer { scratch.removeAll() }

    do {
        let settings = try PragmaParity.verify(in: scratch)
        print(
            Report.header(
                machine: .current(), options: options, settings: settings, scratch: scratch.url.path))
        print()
        let runner = Runner(options: options, scratch: scratch)
        var results: [WorkloadResult] = []
        for (group, workload) in selected {
            results.append(try runner.run(workload, of: group))
        }
        let concurrencyResult =
            concurrency ? try ConcurrentReads.run(options: options, scratch: scratch) : nil
        let observationResult =
            observation ? try ObservationDelay.run(options: options, scratch: scratch) : nil
        // Without /proc (macOS), there is no peak to read: a note says so instead.
        let peakMemorySkipped = peakMemory ? PeakMemory.unavailableReason : nil
        let peakMemoryResult =
            peakMemory && peakMemorySkipped == nil
            ? try PeakMemory.run(options: options, scratch: scratch) : nil
        let liveDelayResult =
            liveDelay ? try await LiveQueryDelay.run(options: options, scratch: scratch) : nil
        let liveLoadResult = liveLoad ? try await LiveQueryLoad.run(options: options, scratch: scratch) : nil
        Console.endProgress()
        if !results.isEmpty {
            print(Report.table(results))
            print()
            print(Report.notes(results, groups: Catalog.groups))
        }
        if let concurrencyResult {
            if !results.isEmpty { print() }
            print(concurrencyResult.report())
        }
        if let observationResult {
            if !results.isEmpty || concurrencyResult != nil { print() }
            print(observationResult.report())
        }
        if let peakMemorySkipped {
            print()
            print(peakMemorySkipped)
        }
        if let peakMemoryResult {
            print()
            print(peakMemoryResult.report())
        }
        for report in [liveDelayResult?.report(), liveLoadResult?.report()].compactMap({ $0 }) {
            print()
            print(report)
        }
        if let path = options.jsonPath {
            let extra =
                (concurrencyResult?.jsonEntries(description: ConcurrentReads.description) ?? [])
                + (peakMemoryResult?.jsonEntries() ?? [])
            try write(Report.json(results, rounds: options.rounds, extra: extra), to: path)
        }
        if let path = options.svgPath {
            let sizes = Set(results.map(\.size))
            let size = sizes.count == 1 ? "N = \(sizes.first ?? 0)" : "N per workload"
            let title = "LiteRecord vs C, \(size), median of \(options.rounds) rounds"
            try write(Data(SVGChart(results: results, title: title).render().utf8), to: path)
        }
        return 0
    } catch {
        Console.error("\(error)")
        return 1
    }
}

/// Writes a report file, naming the path when it fails.
func write(_ data: Data, to path: String) throws {
    do {
        try data.write(to: URL(fileURLWithPath: path))
    } catch {
        throw FileWriteError(path: path, underlying: error)
    }
}

struct FileWriteError: Error, CustomStringConvertible {
    let path: String
    let underlying: any Error
    var description: String { "cannot write \(path): \(underlying.localizedDescription)" }
}

exit(await main())
