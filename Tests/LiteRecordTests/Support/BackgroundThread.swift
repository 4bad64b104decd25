import Foundation
import LiteRecord
import LiteRecordTestSupport
import Synchronization

/// Work running on a thread of its own, whose result a test waits for with a time limit, so a
/// bug that blocks the work makes the test fail instead of hanging the run.
final class BackgroundThread<Value: Sendable>: Sendable {
    private let finished = DispatchSemaphore(value: 0)
    private let outcome = Locked<Result<Value, any Error>?>(nil)

    /// Starts `body` on a new thread at once.
    init(_ body: @escaping @Sendable () throws -> Value) {
        Thread.detachNewThread { [self] in
            let result = Result { try body() }
            outcome.withLock { $0 = result }
            finished.signal()
        }
    }

    /// Waits until the work has finished, at most `seconds`.
    ///
    /// - Returns: The work's result, or `nil` when it has not finished in time.
    func result(waitingAtMost seconds: Double) -> Result<Value, any Error>? {
        guard finished.wait(timeout: .now() + seconds) == .success else { return nil }
        finished.signal()  // later calls return at once
        return outcome.withLock { $0 }
    }
}
