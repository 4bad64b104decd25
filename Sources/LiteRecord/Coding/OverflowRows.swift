#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The rows of a large fetch past the first megabyte, kept in blocks of pages mapped from the
/// system until the fetch knows how many rows it has.
///
/// An array that grows by doubling holds its rows twice while they move: at the last doubling
/// of a million-row fetch, the old half-size buffer and its copy. The blocks instead move, once,
/// into an array of the exact count, and each block is unmapped as soon as its rows have moved,
/// so the fetch's peak is its rows once plus one block. The blocks are mapped rather than
/// allocated with `malloc` because glibc serves allocations of this size from its heap once a
/// larger one has been freed, and keeps what is freed there: the rows would be held twice
/// after all.
final class OverflowRows<Row> {
    /// The size of one block: large enough that mapping costs nothing per row, small enough
    /// that the one block held twice while moving is noise next to the rows.
    static var blockBytes: Int { 1 << 20 }

    private struct Block {
        let start: UnsafeMutablePointer<Row>
        let count: Int
    }

    private var blocks: [Block] = []
    private let mappedBytes: Int
    /// How many rows a block holds.
    let blockCapacity: Int
    /// The rows in all blocks.
    private(set) var count = 0

    init() {
        let stride = MemoryLayout<Row>.stride
        let pageSize = Int(getpagesize())
        let wanted = max(Self.blockBytes, stride)
        mappedBytes = (wanted + pageSize - 1) / pageSize * pageSize
        blockCapacity = max(1, mappedBytes / max(stride, 1))
    }

    deinit {
        for block in blocks {
            block.start.deinitialize(count: block.count)
            unmap(block.start)
        }
    }

    /// Maps a new block and lets `fill` initialize its first rows.
    ///
    /// - Parameter fill: Initializes rows from the start of the block, at most
    ///   ``blockCapacity``, and counts them in `built` as it goes; the rows it counted are kept
    ///   (and destroyed with the others) even when it throws.
    /// - Throws: ``DatabaseError`` `.noMemory` when the system has no memory to map; what
    ///   `fill` throws.
    func appendBlock(_ fill: (_ slots: UnsafeMutablePointer<Row>, _ built: inout Int) throws -> Void) throws {
        let mapped = mmap(nil, mappedBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANON, -1, 0)
        guard let mapped, mapped != UnsafeMutableRawPointer(bitPattern: -1) else {
            throw DatabaseError(
                resultCode: .noMemory,
                message: "cannot map \(mappedBytes) bytes for the rows of a fetch past its first \(count)")
        }
        let start = mapped.bindMemory(to: Row.self, capacity: blockCapacity)
        var built = 0
        defer {
            blocks.append(Block(start: start, count: built))
            count += built
        }
        try fill(start, &built)
    }

    /// Moves every row, in order, to the end of `rows`, whose capacity is first made exactly
    /// enough, unmapping each block once its rows have moved.
    func moveAll(appendingTo rows: inout [Row]) {
        rows.reserveCapacity(rows.count + count)
        // Nothing below throws: no block is left half moved for `deinit` to destroy.
        for block in blocks {
            rows.append(addingCapacity: block.count) { span in
                span.withUnsafeMutableBufferPointer { slots, built in
                    guard let base = slots.baseAddress else { return }
                    (base + built).moveInitialize(from: block.start, count: block.count)
                    built += block.count
                }
            }
            unmap(block.start)
        }
        blocks.removeAll()
        count = 0
    }

    private func unmap(_ start: UnsafeMutablePointer<Row>) {
        munmap(UnsafeMutableRawPointer(start), mappedBytes)
    }
}
