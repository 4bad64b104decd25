/// Times the measured part of a workload.
enum Stopwatch {
    /// Runs `body` once and returns how long it took on the monotonic clock.
    ///
    /// - Parameter body: The work to time; setup and checks belong outside it.
    /// - Returns: The elapsed time.
    /// - Throws: What `body` throws.
    static func measure(_ body: () throws -> Void) rethrows -> Duration {
        let clock = ContinuousClock()
        let start = clock.now
        try body()
        return start.duration(to: clock.now)
    }
}

/// The timings of one side (C or LiteRecord) of one workload, one per recorded round.
struct Samples: Sendable {
    /// Elapsed times in milliseconds, in round order.
    private(set) var milliseconds: [Double] = []

    /// Records one round.
    mutating func append(_ duration: Duration) {
        milliseconds.append(duration.milliseconds)
    }

    var isEmpty: Bool { milliseconds.isEmpty }

    /// The median (the mean of the two middle values for an even count); 0 when empty.
    var median: Double { milliseconds.median }

    /// The fastest round; 0 when empty.
    var min: Double { milliseconds.min() ?? 0 }
    /// The slowest round; 0 when empty.
    var max: Double { milliseconds.max() ?? 0 }
}

/// Both sides of one workload, measured over the same interleaved rounds.
struct WorkloadResult: Sendable {
    let slug: String
    let group: String
    let description: String
    /// The size parameter N the workload ran with.
    let size: Int
    /// How many operations (rows, lookups, ...) one measurement performs.
    let operations: Int
    /// What one operation is, for per-operation costs: `row`, `lookup`, ...
    let unit: String
    let c: Samples
    let literecord: Samples

    /// LiteRecord median / C median: 1.0 is C speed, 2.0 twice as slow. Infinite when C took 0.
    var ratio: Double {
        c.median > 0 ? literecord.median / c.median : .infinity
    }

    /// Microseconds per operation of the C median.
    var cMicrosecondsPerOperation: Double { perOperation(c.median) }
    /// Microseconds per operation of the LiteRecord median.
    var literecordMicrosecondsPerOperation: Double { perOperation(literecord.median) }

    private func perOperation(_ milliseconds: Double) -> Double {
        operations > 0 ? milliseconds * 1000 / Double(operations) : 0
    }
}

extension Duration {
    /// The duration in (fractional) milliseconds.
    var milliseconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) * 1000 + Double(attoseconds) / 1e15
    }
}

extension [Double] {
    /// The median (the mean of the two middle values for an even count); 0 when empty.
    var median: Double {
        let sorted = sorted()
        guard !sorted.isEmpty else { return 0 }
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }
}
