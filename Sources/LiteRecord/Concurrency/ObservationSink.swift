/// Where an observer sends what it observes: each fresh value, or the error that ends the
/// observation.
package struct ObservationSink<Value: Sendable>: Sendable {
    /// Receives each fresh value.
    package let send: @Sendable (Value) -> Void
    /// Receives the error that ends the observation; nothing is sent after it.
    package let fail: @Sendable (any Error) -> Void
    /// When set, receives the error of a fetch that failed, and the observation goes on: the
    /// next change fetches again (a live value keeps its last good value meanwhile). When `nil`,
    /// a failed fetch goes to ``fail`` and ends the observation, as an `AsyncSequence` must.
    package let report: (@Sendable (any Error) -> Void)?

    package init(
        send: @escaping @Sendable (Value) -> Void, fail: @escaping @Sendable (any Error) -> Void,
        report: (@Sendable (any Error) -> Void)? = nil
    ) {
        self.send = send
        self.fail = fail
        self.report = report
    }

    /// Hands the error of a failed fetch on: to ``report`` when the observation outlives it.
    ///
    /// - Parameter error: The fetch's error.
    /// - Returns: Whether the observation goes on.
    package func fetchFailed(_ error: any Error) -> Bool {
        guard let report else { return false }
        report(error)
        return true
    }

    /// A sink for an observer that fetches more than it delivers (the rows a value was built
    /// from, to compare): each value it sends arrives here transformed.
    ///
    /// - Parameter transform: Makes this sink's value from the observer's.
    /// - Returns: The observer's sink.
    package func map<Fetched>(_ transform: @escaping @Sendable (Fetched) -> Value) -> ObservationSink<Fetched>
    {
        ObservationSink<Fetched>(send: { [send] in send(transform($0)) }, fail: fail, report: report)
    }
}

extension ObservationSink {
    /// A sink that sends a value only when it differs from the last one it sent: a commit that
    /// left the results as they were delivers nothing. After a reported failure the next value
    /// is sent whatever it is, so that its receiver learns the fetches work again.
    ///
    /// - Parameter isSame: Whether two values are the same.
    /// - Returns: The sink the observer sends to.
    package func skippingRepeats(by isSame: @escaping @Sendable (Value, Value) -> Bool) -> ObservationSink<
        Value
    > {
        let lastSent = Locked<Value?>(nil)
        let forgettingReport: (@Sendable (any Error) -> Void)?
        if let report {
            forgettingReport = { error in
                lastSent.withLock { $0 = nil }
                report(error)
            }
        } else {
            forgettingReport = nil
        }
        return ObservationSink(
            send: { [send] value in
                let isNew = lastSent.withLock { last in
                    if let last, isSame(last, value) { return false }
                    last = value
                    return true
                }
                if isNew { send(value) }
            }, fail: fail, report: forgettingReport)
    }
}

/// A backend's observer of one fetch: started once by an iteration, cancelled once when it ends.
package protocol Observer: Sendable {
    /// Subscribes to commits and fetches the first value, off the caller's thread.
    func start()
    /// Stops the observation: nothing is sent after it returns.
    func cancel()
}
