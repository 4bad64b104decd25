extension RowDecodingSession {
    /// Decodes the remaining rows of `statement`: given `allocatingAll`, all at once into the
    /// array it makes, handed to `collectingAll`, when rows of `T` are built in place;
    /// otherwise one at a time, each handed over to `body`.
    // Inlined: see `DatabaseContext.forEachModel(_:sql:allocatingAll:collectingAll:_:)`.
    @inline(__always)
    static func decodeRows<T: Decodable>(
        _ type: T.Type, of statement: Statement, decoder: RowDecoder, allocatingAll: RowArrayAllocation<T>?,
        collectingAll: (consuming [T]) -> Void, _ body: (consuming T) throws -> Void
    ) throws {
        if let allocatingAll,
            let rows = try collectInPlace(
                T.self, from: statement, decoder: decoder, allocating: allocatingAll)
        {
            return collectingAll(rows)
        }
        let session = RowDecodingSession(source: statement, decoder: decoder, type: T.self)
        while try statement.step() {
            try body(session.decodeRow(T.self))
        }
    }

    /// The size past which a fetch stops doubling its array and keeps further rows in
    /// ``OverflowRows`` blocks.
    static var overflowThresholdBytes: Int { 1 << 20 }

    /// Steps through every remaining row of `statement` and builds them, in place, straight
    /// into the memory of the array returned; `nil`, with no row stepped, when rows of `type`
    /// are not decoded in place.
    ///
    /// A fetch of all rows otherwise pays, per row, a generic `decodeRow` call, a move out of
    /// the row's scratch memory and a closure call to the caller's `append`: for a row of a few
    /// numbers, about a third of what SQLite itself costs. Here each row is written where it
    /// stays, in the array's own spare capacity, sized from the row count of the statement's
    /// previous fetch. The rows are never held twice: up to a megabyte the array grows by
    /// doubling, as an appending array does; past that, rows go to ``OverflowRows`` blocks,
    /// which move once into an array of the exact count at the end, so the peak memory of a
    /// large fetch is its rows plus one block. A row the in-place read declines is decoded by
    /// the type's `init(from:)` into the same place, so values and errors do not change.
    ///
    /// No session is made while the statement's decoding plan already fits and every row is
    /// built in place: a fetch of one row by key (raw SQL in a loop) would spend a tenth of
    /// its time making and destroying a session and its context that it never uses.
    ///
    /// - Parameters:
    ///   - type: The type of each row.
    ///   - statement: The statement, bound and not stepped yet.
    ///   - decoder: The column names and date storage rows are decoded with.
    ///   - allocating: Makes the array and has its first slots initialized, in the caller's
    ///     code specialized for `T`.
    /// - Returns: The rows, in the order SQLite returned them.
    /// - Throws: ``DatabaseError`` from a step, or what `init(from:)` throws for a declined
    ///   row; the rows built so far are destroyed.
    // Inlined: see `DatabaseContext.forEachModel(_:sql:allocatingAll:collectingAll:_:)`.
    @inline(__always)
    static func collectInPlace<T: Decodable>(
        _ type: T.Type, from statement: Statement, decoder: RowDecoder, allocating: RowArrayAllocation<T>
    ) throws -> [T]? {
        var session: RowDecodingSession?
        let plan: DecodingPlan
        if let known = statement.decodingPlan,
            known.fits(T.self, statement: statement, keyToColumn: decoder.keyToColumn)
        {
            plan = known
        } else {
            // The context makes the plan and keeps it on the statement for the next fetch.
            let made = RowDecodingSession(source: statement, decoder: decoder, type: T.self)
            session = made
            plan = made.context.plan
        }
        guard !plan.readsFirstColumn, let layout = plan.layout(for: T.self) else { return nil }
        var fetch = InPlaceRows(session: session)
        return try fetch.collect(
            T.self, from: statement, decoder: decoder, layout: layout, expecting: plan, allocating: allocating
        )
    }
}

/// Makes an array with room for `capacity` elements and has `initialize` fill its first ones.
///
/// An `@inlinable` fetch of every row passes ``makeRowArray(_:_:)``, so that the result array
/// is allocated by code specialized for the element type.
@usableFromInline
typealias RowArrayAllocation<T> = (
    _ capacity: Int, _ initialize: (UnsafeMutableBufferPointer<T>, inout Int) throws -> Void
) throws -> [T]

/// An empty array given room for `capacity` elements, of which `initialize` fills the first ones.
///
/// Inlined into the caller's fetch, where `T` is known: allocating the array there costs a
/// third of what generic code pays, which looks up the array's type metadata at run time on
/// every fetch (and `Array(unsafeUninitializedCapacity:)` does so even when specialized).
@inlinable
func makeRowArray<T>(
    _ capacity: Int, _ initialize: (UnsafeMutableBufferPointer<T>, inout Int) throws -> Void
) throws -> [T] {
    var rows: [T] = []
    try rows.append(addingCapacity: capacity) { span in
        try span.withUnsafeMutableBufferPointer(initialize)
    }
    return rows
}

/// The state of one fetch collecting in place: the session is only made for a row the
/// in-place read declines.
///
/// The statement, the decoder and the layout are passed to each method rather than stored:
/// held here, their references were retained and released on every fetch, about two hundred
/// instructions of a lookup by key.
private struct InPlaceRows {
    var session: RowDecodingSession?

    /// The rows, sized from and counted into the plan's `lastRowCount`.
    mutating func collect<T: Decodable>(
        _ type: T.Type, from statement: Statement, decoder: RowDecoder, layout: LayoutBinding,
        expecting plan: DecodingPlan, allocating: RowArrayAllocation<T>
    ) throws -> [T] {
        var done = false
        // The first block is allocated by the caller's specialized code rather than by
        // `append(addingCapacity:)`, which, on an array whose element type is only known at run
        // time, looks up the array's type metadata every time.
        // Sized to the last fetch's count: one row by key in a loop then allocates one row's
        // memory, which the allocator serves from its per-thread cache, not sixteen rows' worth,
        // which it does not.
        let expected = plan.lastRowCount > 0 ? plan.lastRowCount : 16
        var rows = try allocating(expected) { slots, built in
            guard let base = slots.baseAddress else { return }
            done = try buildRows(
                T.self, from: statement, decoder: decoder, layout: layout, into: base, capacity: slots.count,
                built: &built, onRow: false)
        }
        while !done {
            // The array is full. Stepping first means a fetch that exactly fills it does not grow
            // it for nothing.
            guard try statement.step() else { break }
            if rows.count * MemoryLayout<T>.stride >= RowDecodingSession.overflowThresholdBytes {
                try collectOverflow(
                    T.self, from: statement, decoder: decoder, layout: layout, appendingTo: &rows)
                break
            }
            // Spare capacity the allocator rounded up to is filled first; a full array doubles.
            let room = rows.capacity > rows.count ? rows.capacity - rows.count : rows.count
            try rows.append(addingCapacity: room) { span in
                try span.withUnsafeMutableBufferPointer { slots, built in
                    guard let base = slots.baseAddress else { return }
                    done = try buildRows(
                        T.self, from: statement, decoder: decoder, layout: layout, into: base,
                        capacity: slots.count, built: &built, onRow: true)
                }
            }
        }
        plan.lastRowCount = rows.count
        // Capacity beyond twice the count only comes from a previous fetch of many more rows:
        // copied to its size, a small result does not keep that memory for as long as it lives.
        guard rows.capacity - rows.count > max(rows.count, 256) else { return consume rows }
        return [T](filling: rows.count) { exact, initialized in
            rows.withUnsafeBufferPointer { built in
                initialized = exact.initialize(fromContentsOf: built)
            }
        }
    }

    /// Builds the statement's remaining rows, from the one it stands on, into overflow blocks,
    /// then moves them to the end of `rows`.
    private mutating func collectOverflow<T: Decodable>(
        _ type: T.Type, from statement: Statement, decoder: RowDecoder, layout: LayoutBinding,
        appendingTo rows: inout [T]
    ) throws {
        let overflow = OverflowRows<T>()
        var onRow = true
        var done = false
        while !done {
            try overflow.appendBlock { slots, built in
                done = try buildRows(
                    T.self, from: statement, decoder: decoder, layout: layout, into: slots,
                    capacity: overflow.blockCapacity, built: &built, onRow: onRow)
            }
            onRow = false
        }
        overflow.moveAll(appendingTo: &rows)
    }

    /// Builds rows into `slots` from `built` on, until the statement has no more rows (`true`)
    /// or the slots are full (`false`, with the statement still on the last row built).
    ///
    /// - Parameter onRow: Whether the statement already stands on a row not built yet;
    ///   otherwise it steps first.
    @inline(__always)
    private mutating func buildRows<T: Decodable>(
        _ type: T.Type, from statement: Statement, decoder: RowDecoder, layout: LayoutBinding,
        into slots: UnsafeMutablePointer<T>, capacity: Int, built: inout Int, onRow: Bool
    ) throws -> Bool {
        let handle = statement.handle
        // `built` is counted in a local: every access to an inout or captured variable goes
        // through memory.
        var count = built
        defer { built = count }
        var onRow = try onRow || statement.step()
        while onRow {
            let slot = UnsafeMutableRawPointer(slots + count)
            if !layout.fill(from: handle, into: slot) {
                let session = declinedRowSession(T.self, from: statement, decoder: decoder)
                slot.initializeMemory(
                    as: T.self, to: try session.context.decodeThroughInitializer(T.self, session: session))
            }
            count += 1
            guard count < capacity else { return false }
            onRow = try statement.step()
        }
        return true
    }

    /// The session decoding declined rows through `init(from:)`, made on the first one.
    private mutating func declinedRowSession<T>(
        _ type: T.Type, from statement: Statement, decoder: RowDecoder
    )
        -> RowDecodingSession
    {
        if let session { return session }
        let made = RowDecodingSession(source: statement, decoder: decoder, type: T.self)
        session = made
        return made
    }
}
