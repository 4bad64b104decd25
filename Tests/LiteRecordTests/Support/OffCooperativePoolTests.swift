import Foundation
import LiteRecordTestSupport
import Testing

/// The trait that keeps blocking tests off Swift's cooperative pool really moves them: were it
/// to stop working (a Swift Testing change), the starvation it prevents would come back
/// silently, as rare timeouts in unrelated tests.
@Suite("Tests that block run off the cooperative pool", .offCooperativePool)
struct OffCooperativePoolTests {
    @Test func aSynchronousTestRunsOnTheDedicatedThreads() {
        #expect(DedicatedThreadExecutor.currentThreadName()?.hasPrefix("LiteRecordTests.blocking") == true)
    }

    @Test func anAsyncTestResumesOnTheDedicatedThreads() async throws {
        try await Task.sleep(for: .milliseconds(1))
        #expect(DedicatedThreadExecutor.currentThreadName()?.hasPrefix("LiteRecordTests.blocking") == true)
    }

    @Test func aLatchWaitedOnAsynchronouslyHoldsNoThread() async {
        // Far more waiters than any thread pool has threads: each would hold one if it blocked,
        // and the task opening the latch, started last, could then not run in time.
        let latch = Latch()
        await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<64 {
                group.addTask { await latch.opened(withinSeconds: 30) }
            }
            group.addTask {
                await Task.yield()
                latch.open()
                return true
            }
            let results = await group.reduce(into: [Bool]()) { $0.append($1) }
            let openedCount = results.filter { $0 }.count
            #expect(results.count == 65)
            #expect(openedCount == 65)
        }
    }

    /// Why the next test exists: a plain `Task { }` does not inherit the executor preference of
    /// the test that starts it. It runs on the cooperative pool, which blocking tests may hold,
    /// while the test waits for it against a deadline on threads of its own (a CI run failed so).
    @Test func aPlainTaskLeavesTheDedicatedThreadsAndAPromptTaskDoesNot() async {
        let plain = await Task { DedicatedThreadExecutor.currentThreadName() }.value
        let prompt = await Task(executorPreference: DedicatedThreadExecutor.promptTasks) {
            DedicatedThreadExecutor.currentThreadName()
        }.value
        #expect(plain == nil)
        #expect(prompt?.hasPrefix("LiteRecordTests.prompt") == true)
    }

    /// Every unstructured task the tests start names its executor (or the main actor). The
    /// documentation tests are left out: they run the documented code as a user writes it.
    @Test func everyUnstructuredTaskInTheTestsNamesItsExecutor() throws {
        let ownName = URL(fileURLWithPath: #filePath).lastPathComponent
        let sites = try TestSourceScan.sites(
            under: TestSourceScan.testsFolder(),
            where: { !$0.contains("/Documentation/") && TestSourceScan.isNot(ownName, $0) },
            lines: UnstructuredTaskScanner.lines(in:))
        #expect(
            sites.isEmpty,
            """
            Unstructured tasks on the cooperative pool; start them with \
            Task(executorPreference: DedicatedThreadExecutor.promptTasks):
            \(sites.joined(separator: "\n"))
            """)
    }

    @Test func theTaskScannerFindsOnlyTasksWithoutAnExecutor() throws {
        let source = """
            let a = Task { await work() }
            let b = Task<Int, Never> { 1 }
            Task.detached(priority: .high) { await work() }
            Task(executorPreference: DedicatedThreadExecutor.promptTasks) { await work() }
            Task { @MainActor in ran.signal() }
            // Task { in a comment }
            var task: Task<Void, Never>?
            try await Task.sleep(for: .seconds(1))
            """
        #expect(try UnstructuredTaskScanner.lines(in: source) == [1, 2, 3])
    }

    @Test func aLatchNeverOpenedReportsItsDeadline() async {
        let latch = Latch()
        let start = Date()
        #expect(await latch.opened(withinSeconds: 0.2) == false)
        #expect(Date().timeIntervalSince(start) >= 0.2)
    }
}

/// Finds `Task { }`, `Task<…> { }`, `Task(priority:…)` and `Task.detached` without an executor
/// preference, outside comments and strings, in the test sources.
enum UnstructuredTaskScanner {
    static let pattern =
        #"(?<![\w.])Task(\.detached)?\s*(<[^<>{}()]*>)?\s*(\{(?!\s*@MainActor\b)|\((?!\s*executorPreference:))"#

    /// The 1-based line numbers of the sites in one source text.
    static func lines(in source: String) throws -> [Int] {
        try TestSourceScan.lines(matching: pattern, in: source)
    }
}
