extension RowDecodingSession {
    /// Steps through every remaining row and builds them, in place, straight into the memory of
    /// the array returned; `nil`, with no row stepped, when rows of `type` are not decoded in
    /// place.
    ///
    /// A fetch of all rows otherwise pays, per row, a generic `decodeRow` call, a move out of
    /// the row's scratch memory and a closure call to the caller's `append`: for a row of a few
    /// numbers, about a third of what SQLite itself costs. Here each row is written where it
    /// stays, in the array's own spare capacity, sized from the row count of the statement's
    /// previous fetch. The rows are never held twice: a full array grows by doubling, moving
    /// its rows once as an appending array does, and no exact-size copy is made at the end, so
    /// the peak memory is that of appending to an array (the returned array's capacity may
    /// exceed its count). A row the in-place read declines is decoded by the type's
    /// `init(from:)` into the same place, so values and errors do not change.
    ///
    /// - Returns: The rows, in the order SQLite returned them.
    /// - Throws: ``DatabaseError`` from a step, or what `init(from:)` throws for a declined
    ///   row; the rows built so far are destroyed.
    func collectInPlace<T: Decodable>(_ type: T.Type) throws -> [T]? {
        guard let (statement, layout) = context.inPlaceDecoding(T.self) else { return nil }
        let handle = statement.handle
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
                    let end = slots.count
                    // The captured flags are read and set once per call, not per row: every
                    // access to a captured variable goes through memory.
                    var onRow = try pendingRow || statement.step()
                    while onRow {
                        let slot = UnsafeMutableRawPointer(base + built)
                        if !layout.fill(from: handle, into: slot) {
                            slot.initializeMemory(
                                as: T.self, to: try context.decodeThroughInitializer(T.self, session: self))
                        }
                        built += 1
                        guard built < end else { return }
                        onRow = try statement.step()
                    }
                    done = true
                }
            }
            guard !done else { break }
            pendingRow = try statement.step()
            done = !pendingRow
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
}
