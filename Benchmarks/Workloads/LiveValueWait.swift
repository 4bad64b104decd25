import Foundation
import LiteRecord
import Observation
import Synchronization

/// Waits on the main actor, without blocking it, until a live query's value satisfies a
/// condition: what a screen does between two frames.
///
/// Each wait registers `withObservationTracking` on `value` and suspends; the live query's
/// hop to the main actor sets `value`, which resumes the wait as the next job of the main
/// actor, and the condition is checked again. No polling: the main actor is idle meanwhile,
/// free to run the hop.
@MainActor
enum LiveValueWait {
    /// Suspends until `condition(live.value)` holds, or `seconds` pass.
    ///
    /// - Returns: Whether the condition held in time.
    static func until<Value: Sendable>(
        _ live: LiveQuery<Value>, seconds: Double = 60, _ condition: (Value) -> Bool
    ) async -> Bool {
        let deadline = ContinuousClock.now + .seconds(seconds)
        while !condition(live.value) {
            guard ContinuousClock.now < deadline else { return false }
            await nextChange(of: live, before: deadline)
        }
        return true
    }

    /// Returns after the next change of `live.value`, or at `deadline`.
    private static func nextChange<Value: Sendable>(
        of live: LiveQuery<Value>, before deadline: ContinuousClock.Instant
    ) async {
        let resumption = Resumption()
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            resumption.set(continuation)
            // `onChange` runs as the value is about to be set, within the hop: the wait resumes
            // as the main actor's next job, after the hop has set it.
            withObservationTracking {
                _ = live.value
            } onChange: {
                resumption.resume()
            }
            let timer = Task { @MainActor in
                try? await Task.sleep(until: deadline, clock: .continuous)
                resumption.resume()
            }
            resumption.onResume { timer.cancel() }
        }
    }
}

/// A continuation resumed once, by whichever comes first: the change or the deadline.
private final class Resumption: Sendable {
    private struct State {
        var continuation: CheckedContinuation<Void, Never>?
        var cancelTimer: (@Sendable () -> Void)?
        var resumed = false
    }

    private let state = Mutex(State())

    func set(_ continuation: CheckedContinuation<Void, Never>) {
        state.withLock { $0.continuation = continuation }
    }

    /// Runs `cancel` when resumed (now, if it already was).
    func onResume(_ cancel: @escaping @Sendable () -> Void) {
        let resumed = state.withLock { state in
            if !state.resumed { state.cancelTimer = cancel }
            return state.resumed
        }
        if resumed { cancel() }
    }

    func resume() {
        let (continuation, cancel) = state.withLock { state in
            guard !state.resumed else {
                return (CheckedContinuation<Void, Never>?.none, (@Sendable () -> Void)?.none)
            }
            state.resumed = true
            defer {
                state.continuation = nil
                state.cancelTimer = nil
            }
            return (state.continuation, state.cancelTimer)
        }
        cancel?()
        continuation?.resume()
    }
}
