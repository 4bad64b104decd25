import Foundation

/// Runs workloads: one warm-up round, then the recorded rounds, with C and LiteRecord
/// interleaved inside each round and the order alternating from round to round, so drift in
/// the machine (frequency, page cache, other processes) hits both sides alike.
struct Runner {
    /// The command line: N (``Options/size(for:)``) and the number of rounds.
    let options: Options
    let scratch: ScratchDirectory

    private var rounds: Int { options.rounds }

    /// Runs one workload.
    ///
    /// - Parameters:
    ///   - workload: What to run.
    ///   - group: The group it belongs to.
    /// - Returns: Both sides' timings.
    /// - Throws: ``RunError`` wrapping the first failure, with the workload, side and round.
    func run(_ workload: Workload, of group: WorkloadGroup) throws -> WorkloadResult {
        let size = options.size(for: workload)
        let trial: Trial
        let setupDirectory: URL
        do {
            setupDirectory = try scratch.makeSubdirectory("\(workload.slug)-setup")
            trial = try workload.prepare(SetupContext(size: size, directory: setupDirectory))
        } catch {
            throw RunError(slug: workload.slug, side: nil, round: nil, underlying: error)
        }
        var samples: [Side: Samples] = [.c: Samples(), .literecord: Samples()]
        for round in 0...rounds {
            Console.progress(
                round == 0 ? "[\(workload.slug)] warm-up" : "[\(workload.slug)] round \(round)/\(rounds)")
            // Alternate which side goes first: C first in even rounds, LiteRecord in odd ones.
            let order: [Side] = round % 2 == 0 ? [.c, .literecord] : [.literecord, .c]
            for side in order {
                let elapsed = try runOnce(trial, side: side, size: size, round: round, slug: workload.slug)
                if round > 0 { samples[side, default: Samples()].append(elapsed) }
            }
        }
        do {
            try scratch.remove(setupDirectory)
        } catch {
            throw RunError(slug: workload.slug, side: nil, round: nil, underlying: error)
        }
        return WorkloadResult(
            slug: workload.slug, group: group.slug, description: workload.description, size: size,
            operations: workload.operations(size), unit: workload.unit,
            c: samples[.c, default: Samples()], literecord: samples[.literecord, default: Samples()])
    }

    /// One side, one round, in its own fresh directory.
    private func runOnce(_ trial: Trial, side: Side, size: Int, round: Int, slug: String) throws
        -> Duration
    {
        do {
            let directory = try scratch.makeSubdirectory("\(slug)-\(side.rawValue)-\(round)")
            let elapsed = try trial.run(side, RoundContext(size: size, round: round, directory: directory))
            try scratch.remove(directory)
            return elapsed
        } catch {
            throw RunError(slug: slug, side: side, round: round, underlying: error)
        }
    }
}

/// A workload that failed: the run stops, since a partial comparison would mislead.
struct RunError: Error, CustomStringConvertible {
    let slug: String
    let side: Side?
    let round: Int?
    let underlying: any Error

    var description: String {
        var place = "[\(slug)]"
        if let side { place += " \(side.rawValue) side" }
        if let round { place += round == 0 ? ", warm-up round" : ", round \(round)" }
        return "\(place): \(underlying)"
    }
}
