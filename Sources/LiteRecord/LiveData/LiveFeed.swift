// How a live query's values reach the main actor. The observer sends from its own thread, one
// value at a time; the feed keeps only the newest one not yet taken, and asks the main actor
// to take it with one hop however many values arrive meanwhile, so a burst of commits costs
// the main actor one update and an older value never lands after a newer one. Each run of the
// observation (the first, after `load`, after `isActive` is set again) has a feed of its own,
// numbered: what an older run sends after a newer one began is dropped.

/// Carries one run of a live query's observation to the main actor.
final class LiveFeed<Value: Sendable>: Sendable {
    /// The number of the run, which the live query compares with its current one.
    let run: Int
    private let isSame: @Sendable (Value, Value) -> Bool
    private let state: Locked<State>

    private struct State: Sendable {
        weak var owner: LiveQuery<Value>?
        /// The value the main actor shows or is about to: what a new value is compared with.
        var lastAccepted: Value?
        /// A fetch failed since the last value: the next value clears the error even if equal.
        var failedSinceLastValue = false
        var pending = LiveDelivery<Value>()
        var isHopScheduled = false
    }

    /// - Parameters:
    ///   - run: The run's number.
    ///   - owner: The live query, held weakly: a released live query stops its observation.
    ///   - shown: The value the live query shows now, which an equal fresh value does not replace.
    ///   - isSame: Whether two values are the same.
    init(run: Int, owner: LiveQuery<Value>, shown: Value?, isSame: @escaping @Sendable (Value, Value) -> Bool)
    {
        self.run = run
        self.isSame = isSame
        self.state = Locked(State(owner: owner, lastAccepted: shown))
    }

    /// The sink the observer sends to; failed fetches are reported and the observation goes on.
    var sink: ObservationSink<Value> {
        ObservationSink(
            send: { [self] in receive($0) }, fail: { [self] in receiveError($0, ended: true) },
            report: { [self] in receiveError($0, ended: false) })
    }

    /// Takes the value fetched on the main actor when the run began, as the one shown.
    func accept(_ value: Value) {
        state.withLock { $0.lastAccepted = value }
    }

    /// What arrived since the main actor last took it; clears it.
    func take() -> LiveDelivery<Value> {
        state.withLock { state in
            defer {
                state.pending = LiveDelivery()
                state.isHopScheduled = false
            }
            return state.pending
        }
    }

    private func receive(_ value: Value) {
        deliver { state in
            if state.failedSinceLastValue {
                state.failedSinceLastValue = false
                state.pending.error = nil
                state.pending.clearsError = true
            }
            if let last = state.lastAccepted, isSame(last, value) { return }
            state.lastAccepted = value
            state.pending.value = value
        }
    }

    private func receiveError(_ error: any Error, ended: Bool) {
        deliver { state in
            state.failedSinceLastValue = true
            state.pending.error = error
            state.pending.clearsError = false
            state.pending.ended = state.pending.ended || ended
        }
    }

    /// Records what arrived and, when something is pending and no hop is on its way, sends the
    /// main actor to take it.
    private func deliver(_ record: (inout State) -> Void) {
        let owner: LiveQuery<Value>? = state.withLock { state in
            record(&state)
            guard !state.isHopScheduled, !state.pending.isEmpty, let owner = state.owner else { return nil }
            state.isHopScheduled = true
            return owner
        }
        guard let owner else { return }
        Task { @MainActor [weak owner, self] in owner?.takeDelivery(from: self) }
    }
}

/// What a run's observation delivered since the main actor last looked.
struct LiveDelivery<Value: Sendable>: Sendable {
    /// The newest value that differs from the one shown.
    var value: Value?
    /// The newest error, when a fetch failed after the newest value.
    var error: (any Error)?
    /// A fetch succeeded after one failed: the error shown goes.
    var clearsError = false
    /// The observation ended (an error it cannot outlive).
    var ended = false

    var isEmpty: Bool { value == nil && error == nil && !clearsError && !ended }
}
