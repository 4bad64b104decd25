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

    @Test func aLatchNeverOpenedReportsItsDeadline() async {
        let latch = Latch()
        let start = Date()
        #expect(await latch.opened(withinSeconds: 0.2) == false)
        #expect(Date().timeIntervalSince(start) >= 0.2)
    }
}
