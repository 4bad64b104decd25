/// The results of a fetch, now and after every committed change that can alter them: an
/// `AsyncSequence` made by ``Database/observe(_:)->DatabaseObservation<Value>``.
///
/// Iterating it fetches the value at once, then again after each committed transaction that
/// changed a table the fetch reads (rolled-back work is never reported). Bursts are
/// coalesced: a slow consumer gets the freshest value, not every intermediate one. Iteration
/// ends when the consuming task is cancelled, and throws if a fetch fails.
///
/// ```swift
/// for try await players in db.observe(db.query(Player.self).order { $0.score.descending }) {
///     scoreboard.show(players)
/// }
/// ```
///
/// Commits from elsewhere are seen too: on a SQLite file, those of another `Database` or another
/// process (a watcher of the file; see the Concurrency article); on PostgreSQL (`pg.observe`
/// returns this same type), those of every client. Each iteration runs its own observation.
public struct DatabaseObservation<Value: Sendable>: AsyncSequence, Sendable {
    public typealias Element = Value

    /// Starts one observation sending to the sink; returns what cancels it. Each backend
    /// starts its own observer (SQLite's `ValueObserver`, PostgreSQL's listener).
    let start: @Sendable (ObservationSink<Value>) -> @Sendable () -> Void

    /// Starts one observation whose first value is fetched on the calling thread and returned
    /// (with what cancels it) instead of sent; the values after it go to the sink. `nil` for a
    /// backend that fetches its first value asynchronously (PostgreSQL).
    let startHere: (@Sendable (ObservationSink<Value>) throws -> (Value, cancel: @Sendable () -> Void))?

    /// An observation that each iteration runs with an observer of its own.
    ///
    /// - Parameter makeObserver: Makes an observer sending to the sink it receives; the
    ///   observation starts it, and cancels it when the iteration ends.
    package init(observer makeObserver: @escaping @Sendable (ObservationSink<Value>) -> any Observer) {
        self.start = { sink in
            let observer = makeObserver(sink)
            observer.start()
            return { observer.cancel() }
        }
        self.startHere = nil
    }

    /// An observation of a fetch on a SQLite database.
    init(
        database: Database, prepare: @escaping @Sendable () throws -> Void,
        fetch: @escaping @Sendable (Connection) throws -> Value, rowFilter: RowFilter? = nil
    ) {
        let makeObserver: @Sendable (ObservationSink<Value>) -> ValueObserver<Value> = { sink in
            ValueObserver(
                database: database, prepare: prepare, fetch: fetch, rowFilter: rowFilter, sink: sink)
        }
        self.start = { sink in
            let observer = makeObserver(sink)
            observer.start()
            return { observer.cancel() }
        }
        self.startHere = { sink in
            let observer = makeObserver(sink)
            return (try observer.startHere(), { observer.cancel() })
        }
    }

    /// Produces the observed values.
    public struct AsyncIterator: AsyncIteratorProtocol {
        var base: AsyncThrowingStream<Value, any Error>.AsyncIterator
        /// Stops the observation when the last copy of the iterator goes (a `break` out of
        /// the loop): the stream alone would keep it running, since the observer holds it.
        let stopper: Stopper

        /// The next fresh value; `nil` once the consuming task is cancelled.
        ///
        /// - Returns: The value.
        /// - Throws: The error of a fetch that failed, which ends the observation.
        public mutating func next() async throws -> Value? {
            try await base.next()
        }
    }

    /// Starts an observation of its own: it subscribes to commits and fetches the first value.
    ///
    /// - Returns: The iterator; the observation stops when iteration ends or the task is cancelled.
    public func makeAsyncIterator() -> AsyncIterator {
        let (stream, continuation) = AsyncThrowingStream.makeStream(
            of: Value.self, throwing: (any Error).self, bufferingPolicy: .bufferingNewest(1))
        let cancel = start(
            ObservationSink(send: { continuation.yield($0) }, fail: { continuation.finish(throwing: $0) }))
        continuation.onTermination = { _ in cancel() }
        // Finishing runs `onTermination`, which cancels, and releases it: nothing is left
        // holding the observer.
        return AsyncIterator(base: stream.makeAsyncIterator(), stopper: Stopper { continuation.finish() })
    }

    /// Runs its closure when the iterator holding it goes.
    final class Stopper: Sendable {
        private let stop: @Sendable () -> Void

        init(_ stop: @escaping @Sendable () -> Void) {
            self.stop = stop
        }

        deinit {
            stop()
        }
    }

    /// Starts the observation with callbacks instead of a loop: the `onChange:` forms of
    /// `observe`, on every backend.
    ///
    /// - Parameters:
    ///   - onChange: Called with the first value, then with each fresh one.
    ///   - onError: Called once if a fetch fails, which ends the observation.
    /// - Returns: What stops the observation (also when it is released).
    package func observing(
        onChange: @escaping @Sendable (Value) -> Void, onError: @escaping @Sendable (any Error) -> Void
    ) -> DatabaseCancellable {
        DatabaseCancellable(start(ObservationSink(send: onChange, fail: onError)))
    }
}

/// Stops an observation when cancelled or released: keep it as long as you want updates.
public final class DatabaseCancellable: Sendable {
    private let onCancel: @Sendable () -> Void

    init(_ onCancel: @escaping @Sendable () -> Void) {
        self.onCancel = onCancel
    }

    deinit {
        onCancel()
    }

    /// Stops the observation; no callback starts after this returns (one already running may
    /// finish). Calling it again does nothing.
    public func cancel() {
        onCancel()
    }
}

// MARK: - Observing

extension ModelDatabase {
    /// Observes the results of a query, calling `onChange` with them now and after each
    /// committed change that can alter them: ``observe(_:)-(Query<M>)`` with callbacks instead
    /// of a loop, on every backend.
    ///
    /// - Parameters:
    ///   - query: The query, as ``observe(_:)-(Query<M>)`` takes it.
    ///   - onChange: Receives each fresh array of models, on a background thread, one call at
    ///     a time.
    ///   - onError: Receives the error of a fetch that failed, which ends the observation.
    /// - Returns: Keep it: the observation stops when it is cancelled or released.
    public func observe<M: Model>(
        _ query: Query<M>,
        onChange: @escaping @Sendable ([M]) -> Void,
        onError: @escaping @Sendable (any Error) -> Void = { _ in }
    ) -> DatabaseCancellable {
        observe(query).observing(onChange: onChange, onError: onError)
    }
}

extension Database {
    /// Observes the value `fetch` returns, as an `AsyncSequence` of fresh values.
    ///
    /// `fetch` runs as a ``read(_:)-46ql0``; the tables it reads are recorded each time, and a
    /// commit changing one of them triggers the next fetch.
    ///
    /// ```swift
    /// for try await count in db.observe({ try $0.count(Player.self) }) { label.text = "\(count)" }
    /// ```
    ///
    /// - Parameter fetch: Reads the value; it must only read.
    /// - Returns: The observation; nothing runs until it is iterated.
    public func observe<Value: Sendable>(
        _ fetch: @escaping @Sendable (Connection) throws -> Value
    ) -> DatabaseObservation<Value> {
        DatabaseObservation(database: self, prepare: {}, fetch: fetch)
    }

    /// Observes the results of a query, as an `AsyncSequence` of fresh arrays of models.
    ///
    /// The model's table is created first when it does not exist yet, so a query can be
    /// observed before anything is saved.
    ///
    /// - Parameter query: A query built on this database (`db.query`, or `tx.query` inside one of
    ///   its closures).
    /// - Returns: The observation; nothing runs until it is iterated. A query built on another
    ///   database makes the iteration throw ``DatabaseError`` with ``ResultCode/misuse``: it
    ///   would not watch the database it runs on.
    public func observe<M: Model>(_ query: Query<M>) -> DatabaseObservation<[M]> {
        let built = Result { try query.checkBuilt(on: self, for: "observe") }
        return DatabaseObservation(
            database: self,
            prepare: {
                try built.get()
                try self.prepareTable(for: M.self)
            },
            fetch: { connection in try query.on(connection).fetchAll() }, rowFilter: query.rowFilter)
    }

    /// Observes the value `fetch` returns, calling `onChange` with it now and after each
    /// committed change that can alter it.
    ///
    /// - Parameters:
    ///   - fetch: Reads the value; it must only read.
    ///   - onChange: Receives each fresh value, on a background thread, one call at a time.
    ///   - onError: Receives the error of a fetch that failed, which ends the observation.
    /// - Returns: Keep it: the observation stops when it is cancelled or released.
    public func observe<Value: Sendable>(
        _ fetch: @escaping @Sendable (Connection) throws -> Value,
        onChange: @escaping @Sendable (Value) -> Void,
        onError: @escaping @Sendable (any Error) -> Void = { _ in }
    ) -> DatabaseCancellable {
        observe(fetch).observing(onChange: onChange, onError: onError)
    }

    /// The rows changed by each committed transaction, one array per transaction, in commit
    /// order: SQLite's update hook, without what rolled back.
    ///
    /// Only rowid tables report rows (SQLite does not report `WITHOUT ROWID` tables), and
    /// `DROP TABLE` reports nothing. The stream buffers everything until it is consumed.
    ///
    /// - Returns: A stream that ends when the consuming task is cancelled.
    public func committedChanges() -> AsyncStream<[DatabaseChange]> {
        let (stream, continuation) = AsyncStream.makeStream(of: [DatabaseChange].self)
        let subscription = changeCenter.subscribe(wantsRows: true) { continuation.yield($0.rows) }
        continuation.onTermination = { [changeCenter] _ in changeCenter.unsubscribe(subscription) }
        return stream
    }

    /// Calls `handler` with the rows changed by each committed transaction.
    ///
    /// - Parameter handler: Called on the thread that committed, right after the commit; it
    ///   must not use the database.
    /// - Returns: Keep it: the handler stops when it is cancelled or released.
    public func onCommittedChanges(_ handler: @escaping @Sendable ([DatabaseChange]) -> Void)
        -> DatabaseCancellable
    {
        let subscription = changeCenter.subscribe(wantsRows: true) { handler($0.rows) }
        return DatabaseCancellable { [changeCenter] in changeCenter.unsubscribe(subscription) }
    }
}
