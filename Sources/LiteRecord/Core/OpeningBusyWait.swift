import Foundation

/// Waits out `SQLITE_BUSY` for the statements a connection runs while it opens, within the
/// busy timeout.
///
/// SQLite does not call the busy handler on every path of those statements: a
/// `PRAGMA journal_mode = WAL` run while another connection switches the same new file to WAL
/// failed at once with "database is locked", whatever the busy timeout, so two processes (or
/// two `Database` values) opening one new file together could fail. Every statement of the open
/// is safe to run again (a read of the schema, or a pragma that sets what it sets).
///
/// The wait has one deadline for the whole open, the busy timeout from its start, and sleeps in
/// steps like SQLite's own busy handler, short at first.
struct OpeningBusyWait {
    private let deadline: ContinuousClock.Instant
    private var attempts = 0

    /// Starts the wait's clock.
    init(timeoutMilliseconds: Int32) {
        deadline = .now + .milliseconds(Int(timeoutMilliseconds))
    }

    /// Runs `body`, and again after a pause each time it fails with `SQLITE_BUSY`, until the
    /// deadline.
    ///
    /// - Throws: What `body` throws; its `SQLITE_BUSY` error once the deadline has passed.
    mutating func run<T>(_ body: () throws -> T) throws -> T {
        while true {
            do {
                return try body()
            } catch let error as DatabaseError where error.primaryResultCode == .busy {
                let remaining = deadline - .now
                guard remaining > .zero else { throw error }
                let pause = min(Self.pause(afterAttempt: attempts), remaining)
                attempts += 1
                let (seconds, attoseconds) = pause.components
                Thread.sleep(forTimeInterval: Double(seconds) + Double(attoseconds) / 1e18)
            }
        }
    }

    /// The pause after the given number of failed attempts: 1, 2, 5, 10, 15, 20, 25, 25, 25,
    /// 50, 50 ms, then 100 ms, as SQLite's busy handler sleeps.
    private static func pause(afterAttempt attempt: Int) -> Duration {
        let milliseconds = [1, 2, 5, 10, 15, 20, 25, 25, 25, 50, 50]
        return .milliseconds(attempt < milliseconds.count ? milliseconds[attempt] : 100)
    }
}
