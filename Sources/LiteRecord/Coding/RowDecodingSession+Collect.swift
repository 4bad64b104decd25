extension RowDecodingSession {
    /// The size past which a fetch stops doubling its array and keeps further rows in
    /// ``OverflowRows`` blocks.
    static var overflowThresholdBytes: Int { 1 << 20 }

    /// Steps through every remaining row and builds them, in place, straight into the memory of
    /// the array returned; `nil`, with no row stepped, when rows of `type` are not decoded in
    /// place.
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
    /// - Returns: The rows, in the order SQLite returned them.
    /// - Throws: ``DatabaseError`` from a step, or what `init(from:)` throws for a declined
    ///   row; the rows built so far are destroyed.
    func collectInPlace<T: Decodable>(_ type: T.Type) throws -> [T]? {
        guard let (statement, layout) = context.inPlaceDecoding(T.self) else { return nil }
        var rows: [T] = []
        // Whether the statement stands on a row not stored yet: one stepped onto when the
        // array was full, so that a fetch that exactly fills it does not grow it for nothing.
        var pendingRow = false
        var done = false
        var room = max(context.expectedRowCount, 16)
        while !done {
            try rows.append(addingCapacity: room) { span in
                try span.withUnsafeMutableBufferPointer { slots, built in
                    guard let base = slots.baseAddress else { return }
                    done = try buildRows(
                        T.self, into: base, capacity: slots.count, built: &built, statement: statement,
                        layout: layout, onRow: pendingRow)
                }
            }
            guard !done else { break }
            pendingRow = try statement.step()
            done = !pendingRow
            guard !done else { break }
            if rows.count * MemoryLayout<T>.stride >= Self.overflowThresholdBytes {
                try collectOverflow(T.self, appendingTo: &rows, statement: statement, layout: layout)
                break
            }
            // Spare capacity the allocator rounded up to is filled first; a full array doubles.
            room = rows.capacity > rows.count ? rows.capacity - rows.count : rows.count
        }
        context.expectedRowCount = rows.count
        // Capacity beyond twice the count only comes from a previous fetch of many more rows:
        // copied to its size, a small result does not keep that memory for as long as it lives.
        guard rows.capacity - rows.count > max(rows.count, 256) else { return rows }
        return [T](unsafeUninitializedCapacity: rows.count) { exact, initialized in
            rows.withUnsafeBufferPointer { built in
                initialized = exact.initialize(fromContentsOf: built)
            }
        }
    }

    /// Builds the statement's remaining rows, from the one it stands on, into overflow blocks,
    /// then moves them to the end of `rows`.
    private func collectOverflow<T: Decodable>(
        _ type: T.Type, appendingTo rows: inout [T], statement: Statement, layout: LayoutBinding
    ) throws {
        let overflow = OverflowRows<T>()
        var onRow = true
        var done = false
        while !done {
            try overflow.appendBlock { slots, built in
                done = try buildRows(
                    T.self, into: slots, capacity: overflow.blockCapacity, built: &built,
                    statement: statement, layout: layout, onRow: onRow)
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
    private func buildRows<T: Decodable>(
        _ type: T.Type, into slots: UnsafeMutablePointer<T>, capacity: Int, built: inout Int,
        statement: Statement, layout: LayoutBinding, onRow: Bool
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
                slot.initializeMemory(
                    as: T.self, to: try context.decodeThroughInitializer(T.self, session: self))
            }
            count += 1
            guard count < capacity else { return false }
            onRow = try statement.step()
        }
        return true
    }
}
