import Foundation
import Synchronization

/// Runs several threads side by side for a fixed wall-clock window and counts the operations
/// each one completed: the harness of the throughput workloads (``ConcurrentReads``).
///
/// Each member first prepares on its own thread (opens its connection, prepares statements,
/// does one warm-up operation), outside the window. When every member is ready the window
/// opens: each repeats its operation until the window closes, then finishes the operation in
/// progress. The elapsed time runs from the opening to the moment the last member stopped, so
/// every counted operation lies inside it.
enum ThreadTeam {
    /// A member: runs on its own thread, prepares, and returns the operation to repeat. The
    /// operation stays on that thread, so it may use connections that are not `Sendable`.
    typealias Member = @Sendable () throws -> () throws -> Void

    /// What a run did.
    struct Outcome {
        /// From the opening of the window until the last member stopped.
        let elapsed: Duration
        /// Completed operations, one count per member, in the members' order.
        let counts: [Int]

        /// A member's operations per second.
        func rate(of member: Int) -> Double {
            rate(counts[member])
        }

        /// Operations per second for a count of operations done during the run.
        func rate(_ count: Int) -> Double {
            let seconds = elapsed.milliseconds / 1000
            return seconds > 0 ? Double(count) / seconds : 0
        }
    }

    /// Runs the members, each on its own thread, for `window`.
    ///
    /// - Parameters:
    ///   - members: What each thread does.
    ///   - window: How long the operations repeat.
    /// - Returns: The counts and the elapsed time.
    /// - Throws: The first error a member threw, while preparing or in an operation (the other
    ///   members are then stopped early).
    static func run(_ members: [Member], for window: Duration) throws -> Outcome {
        let shared = Shared(memberCount: members.count)
        for (index, member) in members.enumerated() {
            shared.ready.enter()
            shared.done.enter()
            Thread.detachNewThread { shared.runMember(index, member) }
        }
        shared.ready.wait()
        let clock = ContinuousClock()
        let start = clock.now
        for _ in members { shared.go.signal() }
        if shared.firstError() == nil {
            Thread.sleep(forTimeInterval: window.milliseconds / 1000)
        }
        shared.stop.store(true, ordering: .relaxed)
        shared.done.wait()
        let elapsed = start.duration(to: clock.now)
        if let error = shared.firstError() { throw error }
        return Outcome(elapsed: elapsed, counts: shared.counts.withLock { $0 })
    }

    /// What the threads of one run share.
    private final class Shared: Sendable {
        let stop = Atomic<Bool>(false)
        /// Entered per member; left once it is prepared (or failed to).
        let ready = DispatchGroup()
        /// Signalled once per member when the window opens.
        let go = DispatchSemaphore(value: 0)
        /// Entered per member; left when its thread ends.
        let done = DispatchGroup()
        let counts: Mutex<[Int]>
        private let errors = Mutex<[any Error]>([])

        init(memberCount: Int) {
            counts = Mutex(Array(repeating: 0, count: memberCount))
        }

        func firstError() -> (any Error)? {
            errors.withLock { $0.first }
        }

        /// The body of member `index`'s thread.
        func runMember(_ index: Int, _ member: Member) {
            defer { done.leave() }
            let operation: () throws -> Void
            do {
                operation = try member()
            } catch {
                fail(error)
                ready.leave()
                return
            }
            ready.leave()
            go.wait()
            var count = 0
            do {
                while !stop.load(ordering: .relaxed) {
                    try operation()
                    count += 1
                }
            } catch {
                fail(error)
            }
            counts.withLock { $0[index] = count }
        }

        private func fail(_ error: any Error) {
            errors.withLock { $0.append(error) }
            stop.store(true, ordering: .relaxed)
        }
    }
}
