import Foundation
import Observation

/// The results of a query, or the value of any read, kept fresh on the main actor: what a view
/// or an `@Observable` model reads like a property.
///
/// ```swift
/// @MainActor func screen(db: Database) {
///     let players = LiveQuery(db.query(Player.self).order { $0.name })   // players.value: [Player]
///     let count = LiveQuery(db, initial: 0) { tx in try tx.count(Player.self) }
/// }
/// ```
///
/// `value` changes on the main actor after each commit that changes it: from this `Database`,
/// another `Database` on the file, another process or the `sqlite3` shell, and on PostgreSQL from
/// any client. It changes only when the value differs (a commit to another table, to rows the
/// query cannot match, or one rewriting equal values changes nothing), bursts of commits give
/// one change to the freshest value, and an older value never replaces a newer one.
///
/// `LiveQuery` is `@Observable`: SwiftUI re-renders a view that read `value`, an `@Observable`
/// model can hold one, and `withObservationTracking` sees its changes.
///
/// - On SQLite, `value` holds the current result when the initializer returns (the first fetch
///   runs on the calling thread), so a view's first frame is never empty. On PostgreSQL it holds
///   `initial` (`[]` for a query) until the first fetch arrives.
/// - A failed fetch sets ``error`` and keeps the last good `value`; the next good fetch clears it.
///   An observation that cannot go on (a lost PostgreSQL connection) starts again after a wait.
/// - The observation ends when the live query is released, and pauses while ``isActive`` is
///   `false` (a view off screen).
@MainActor
@Observable
public final class LiveQuery<Value: Sendable> {
    /// The latest value: the query's results, or what the read returned.
    public private(set) var value: Value

    /// The error of the last fetch when it failed, `nil` once a fetch succeeds again.
    ///
    /// A fetch fails for a value the model cannot decode, a table renamed under it, a lost
    /// connection; `value` keeps the last good result meanwhile. A query built on a
    /// transaction's connection (`tx.query`) cannot be followed: this is
    /// ``DatabaseError`` with ``ResultCode/misuse``.
    public private(set) var error: (any Error)?

    /// Whether the value follows commits; `false` stops the observation (no fetch, no work on
    /// commits), and `true` again resumes it with a fresh value.
    ///
    /// Set it `false` while what shows the value is off screen.
    public var isActive: Bool {
        get { active }
        set {
            guard newValue != active else { return }
            active = newValue
            if newValue { follow() } else { stopFollowing() }
        }
    }

    private var active = true
    @ObservationIgnored private var source: LiveSource<Value>
    @ObservationIgnored private var following: DatabaseCancellable?
    @ObservationIgnored private var run = 0
    @ObservationIgnored private var restartDelay: Duration = .zero

    /// Starts following `source`, showing `initial` until its first value.
    init(source: LiveSource<Value>, initial: Value) {
        self.value = initial
        self.source = source
        follow()
    }

    /// Follows another source from now on (`load(_:)`): its first value replaces the
    /// current one, and nothing the old source fetched arrives after.
    func replaceSource(_ source: LiveSource<Value>) {
        self.source = source
        restartDelay = .zero
        if active { follow() }
    }

    /// Starts a run of the observation: the first value on the calling thread where the backend
    /// can (SQLite), the next ones through a feed to the main actor.
    private func follow() {
        run += 1
        following = nil
        let observation: DatabaseObservation<Value>
        switch source.observation {
        case .failure(let failure):
            setError(failure)
            return
        case .success(let success):
            observation = success
        }
        let feed = LiveFeed(run: run, owner: self, shown: value, isSame: source.isSame)
        if let startHere = observation.startHere {
            do {
                let (first, cancel) = try startHere(feed.sink)
                following = DatabaseCancellable(cancel)
                feed.accept(first)
                show(first)
                if error != nil { error = nil }
                return
            } catch {
                setError(error)
            }
        }
        following = DatabaseCancellable(observation.start(feed.sink))
    }

    private func stopFollowing() {
        run += 1
        following = nil
    }

    /// Takes what a feed delivered, when it belongs to the current run.
    func takeDelivery(from feed: LiveFeed<Value>) {
        let delivery = feed.take()
        guard feed.run == run, active else { return }
        if let fresh = delivery.value {
            value = fresh
            restartDelay = .zero
        }
        if delivery.clearsError, error != nil { error = nil }
        if let failure = delivery.error { setError(failure) }
        if delivery.ended { restartLater() }
    }

    /// Replaces the value shown when `fresh` differs from it.
    private func show(_ fresh: Value) {
        if !source.isSame(value, fresh) { value = fresh }
    }

    private func setError(_ failure: any Error) {
        error = failure
    }

    /// After an observation ended on an error: starts it again after a wait (one second,
    /// doubling up to thirty), unless the error says the query can never be followed.
    private func restartLater() {
        following = nil
        if let failure = error as? DatabaseError, failure.resultCode == .misuse { return }
        restartDelay = min(max(restartDelay * 2, .seconds(1)), .seconds(30))
        let (delay, runToRestart) = (restartDelay, run)
        Task { @MainActor [weak self] in
            try? await Task.sleep(for: delay)
            guard let self, self.run == runToRestart, self.active else { return }
            self.follow()
        }
    }
}

/// What a live query follows: an observation (or why there can be none), and how to tell two of
/// its values apart.
struct LiveSource<Value: Sendable>: Sendable {
    let observation: Result<DatabaseObservation<Value>, DatabaseError>
    let isSame: @Sendable (Value, Value) -> Bool
}
