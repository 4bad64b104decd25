/// Related rows gathered by the slot of their key as they are decoded, then moved into one
/// array per slot, each in the order its rows came.
///
/// The rows wait in one buffer rather than in an array per slot because the loop that fills
/// it is generic over the model type: there, each append to one of several arrays looked up
/// the arrays' type metadata again, and grew each array several times, which cost more than
/// decoding the row. Moving each row in and out of the buffer costs no copy.
///
/// Used by one load, on one thread: its properties skip the run-time exclusivity checks that
/// otherwise cost more per row than the append itself.
final class RowsBySlot<Element> {
    @exclusivity(unchecked) private var storage: UnsafeMutablePointer<Element>
    @exclusivity(unchecked) private var capacity = 64
    /// How many rows ``storage`` holds, initialized, from its start.
    @exclusivity(unchecked) private var count = 0
    /// The slot of each row in ``storage``.
    @exclusivity(unchecked) private var slots: [Int] = []

    init() {
        storage = .allocate(capacity: capacity)
    }

    deinit {
        storage.deinitialize(count: count)
        storage.deallocate()
    }

    /// Keeps a row for a slot.
    func append(_ element: consuming Element, slot: Int) {
        if count == capacity {
            let larger = UnsafeMutablePointer<Element>.allocate(capacity: capacity * 2)
            larger.moveInitialize(from: storage, count: count)
            storage.deallocate()
            storage = larger
            capacity *= 2
        }
        (storage + count).initialize(to: element)
        count += 1
        slots.append(slot)
    }

    /// Keeps each of `elements` for the slot at the same position in `elementSlots`.
    ///
    /// An index loop rather than `zip`: in code generic over the row type, as a relation
    /// tree's is, every step of a `Zip2Sequence` iterator looks its type metadata up again,
    /// which cost more per row than decoding it.
    func append(contentsOf elements: [Element], slots elementSlots: [Int]) {
        for index in elements.indices { append(elements[index], slot: elementSlots[index]) }
    }

    /// Moves every row out: `slotCount` arrays, the rows of slot `i` in the `i`th, in the
    /// order they were appended. The buffer is empty afterwards.
    ///
    /// - Parameter slotCount: The number of slots; every appended slot is below it.
    func take(slotCount: Int) -> [[Element]] {
        // A counting sort of the rows' positions by slot, then one move per row.
        var starts = [Int](repeating: 0, count: slotCount + 1)
        for slot in slots { starts[slot + 1] += 1 }
        for slot in 0..<slotCount { starts[slot + 1] += starts[slot] }
        var next = starts
        var order = [Int](repeating: 0, count: count)
        for (position, slot) in slots.enumerated() {
            order[next[slot]] = position
            next[slot] += 1
        }
        let storage = storage
        var groups: [[Element]] = []
        groups.reserveCapacity(slotCount)
        for slot in 0..<slotCount {
            let start = starts[slot]
            let rows = starts[slot + 1] - start
            groups.append(
                [Element](filling: rows) { buffer, initialized in
                    guard let base = buffer.baseAddress else { return }
                    // Rows of one key mostly come one after another: each run is moved at once.
                    var index = 0
                    while index < rows {
                        let first = order[start + index]
                        var run = 1
                        while index + run < rows && order[start + index + run] == first + run { run += 1 }
                        (base + index).moveInitialize(from: storage + first, count: run)
                        index += run
                    }
                    initialized = rows
                })
        }
        count = 0
        slots = []
        return groups
    }

    /// Moves every row out in the order appended, with the slot of each: for a caller that
    /// needs the rows whole before grouping them. The buffer is empty afterwards.
    func takeInOrder() -> (rows: [Element], slots: [Int]) {
        let storage = storage
        let rows = [Element](filling: count) { buffer, initialized in
            if let base = buffer.baseAddress { base.moveInitialize(from: storage, count: count) }
            initialized = count
        }
        let taken = (rows, slots)
        count = 0
        slots = []
        return taken
    }
}
