import Foundation
import Testing

/// Runs task jobs on a fixed set of threads of its own, never on Swift's cooperative pool or
/// Dispatch's shared worker threads.
///
/// Swift Testing runs every test, synchronous ones included, on the cooperative pool, which has
/// one thread per core; LiteRecord runs async reads and observation fetches on Dispatch's shared
/// workers, about as few. A test that blocks one of those threads (a semaphore, a child process,
/// a busy timeout) takes it from every other test, and on a 2-core machine two such tests could
/// stall an unrelated test past its deadline. Threads of our own remove that coupling: a test
/// that blocks only ever delays the tests queued behind it on these threads.
package final class DedicatedThreadExecutor: TaskExecutor, @unchecked Sendable {
    // @unchecked Sendable: `jobs` is only touched under `lock`; the rest is immutable.
    /// For tests that block their thread: the suites marked ``Trait/offCooperativePool``.
    ///
    /// Eight threads: a few tests block theirs for minutes (child processes that compile or get
    /// killed), and with six a test queued behind them missed its deadlines; with 32, the tests
    /// running at once loaded 2 cores so much that a child process took over 30 s to start.
    package static let blockingTests = DedicatedThreadExecutor(
        name: "LiteRecordTests.blocking", threadCount: 8)
    /// For tasks a test starts and needs running promptly, whatever the blocking tests are doing.
    package static let promptTasks = DedicatedThreadExecutor(name: "LiteRecordTests.prompt", threadCount: 8)

    private static let threadNameKey = "LiteRecordTests.DedicatedThreadExecutor"

    /// The name of the executor thread running the caller, `nil` on any other thread.
    package static func currentThreadName() -> String? {
        Thread.current.threadDictionary[threadNameKey] as? String
    }

    private let lock = NSLock()
    private var jobs: [UnownedJob] = []
    private let jobCount = DispatchSemaphore(value: 0)

    private init(name: String, threadCount: Int) {
        for index in 0..<threadCount {
            let threadName = "\(name)-\(index)"
            let thread = Thread { [self] in
                Thread.current.threadDictionary[Self.threadNameKey] = threadName
                runJobs()
            }
            thread.name = threadName
            thread.start()
        }
    }

    package func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        lock.withLock { jobs.append(job) }
        jobCount.signal()
    }

    /// A thread's loop: the executors live as long as the test process, and so do their threads.
    private func runJobs() {
        let executor = asUnownedTaskExecutor()
        while true {
            jobCount.wait()
            let job = lock.withLock { jobs.removeFirst() }
            job.runSynchronously(on: executor)
        }
    }
}

/// Runs a suite's tests (or one test) on ``DedicatedThreadExecutor/blockingTests``.
///
/// Mark every suite whose tests block a thread while they wait (semaphores, latches waited on
/// synchronously, child processes, busy timeouts), and every suite whose tests wait against a
/// deadline for work that must make progress meanwhile.
package struct OffCooperativePoolTrait: SuiteTrait, TestTrait, TestScoping {
    package init() {}

    package var isRecursive: Bool { true }

    package func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        // A child task started on the executor, rather than `withTaskExecutorPreference`: the
        // latter keeps running the test on the current thread until its first real suspension,
        // which for a synchronous test never comes. A child task keeps the test's task-local
        // values (Swift Testing's record of the running test) and its cancellation.
        try await withoutActuallyEscaping(function) { function in
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask(executorPreference: DedicatedThreadExecutor.blockingTests) {
                    try await function()
                }
                try await group.waitForAll()
            }
        }
    }
}

extension Trait where Self == OffCooperativePoolTrait {
    /// Runs the tests on threads of their own, off Swift's cooperative pool.
    package static var offCooperativePool: Self { Self() }
}
