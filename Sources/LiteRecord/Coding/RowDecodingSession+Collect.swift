extension RowDecodingSession {
    /// Steps through every remaining row and builds them, in place, straight into one array's
    /// memory; `nil`, with no row stepped, when rows of `type` are not decoded in place.
    ///
    /// A fetch of all rows otherwise pays, per row, a generic `decodeRow` call, a move out of
    /// the row's scratch memory and a closure call to the caller's `append`, with the array
    /// regrown and copied as it fills: for a row of a few numbers, about a third of what SQLite
    /// itself costs. Here each row is written where it stays, in memory sized from the row
    /// count of the statement's previous fetch. A row the in-place read declines is decoded by
    /// the type's `init(from:)` into the same place, so values and errors do not change.
    ///
    /// - Returns: The rows, in the order SQLite returned them.
    /// - Throws: ``DatabaseError`` from a step, or what `init(from:)` throws for a declined
    ///   row; the rows built so far are destroyed.
    func collectInPlace<T: Decodable>(_ type: T.Type) throws -> [T]? {
        guard let (statement, layout) = context.inPlaceDecoding(T.self) else { return nil }
        let handle = statement.handle
        var rows = RowBuffer<T>(capacity: max(context.expectedRowCount, 16))
        defer { rows.release() }
        while try statement.step() {
            let slot = rows.nextSlot()
            if !layout.fill(from: handle, into: slot) {
                slot.initializeMemory(
                    as: T.self, to: try context.decodeThroughInitializer(T.self, session: self))
            }
            rows.count += 1
        }
        context.expectedRowCount = rows.count
        return rows.moveToArray()
    }
}

/// Uninitialized memory that rows are built in, grown by doubling, then moved into an array.
private struct RowBuffer<T> {
    private var base: UnsafeMutablePointer<T>
    private var capacity: Int
    /// How many rows, from the start, are initialized.
    var count = 0

    init(capacity: Int) {
        self.capacity = capacity
        base = .allocate(capacity: capacity)
    }

    /// The memory for the next row, made room for: uninitialized until the caller counts it.
    @inline(__always)
    mutating func nextSlot() -> UnsafeMutableRawPointer {
        if count == capacity { grow() }
        return UnsafeMutableRawPointer(base + count)
    }

    private mutating func grow() {
        let larger = UnsafeMutablePointer<T>.allocate(capacity: capacity * 2)
        larger.moveInitialize(from: base, count: count)
        base.deallocate()
        base = larger
        capacity *= 2
    }

    /// The rows, moved out: the buffer holds none after.
    mutating func moveToArray() -> [T] {
        let moved = count
        count = 0
        return [T](unsafeUninitializedCapacity: moved) { array, initialized in
            if let target = array.baseAddress { target.moveInitialize(from: base, count: moved) }
            initialized = moved
        }
    }

    /// Destroys the rows still held and frees the memory.
    func release() {
        base.deinitialize(count: count)
        base.deallocate()
    }
}
