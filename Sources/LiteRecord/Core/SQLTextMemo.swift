import Foundation

/// The literals of an interpolated ``SQL`` value and the `?`s between them, recorded by
/// address: the same on every call from one place in the code, and cheap to compare.
///
/// Held inline (no allocation): up to ``capacity`` pieces, enough for a statement with seven
/// bound values; longer SQL builds its text as it goes.
///
/// Appending is `@inlinable` (see ``SQL/Interpolation``): inlined where the literal is written,
/// each append becomes a store at an offset known there.
@usableFromInline
struct SQLPieces: Hashable, Sendable {
    // Not a stored `static let`: inlined code would reach it through its lazy initializer.
    @inlinable static var capacity: Int { 16 }
    @usableFromInline typealias Words = (
        UInt, UInt, UInt, UInt, UInt, UInt, UInt, UInt, UInt, UInt, UInt, UInt, UInt, UInt, UInt, UInt
    )
    /// A literal is its address shifted left by 16 bits, or-ed with its length in bytes; a `?`
    /// is 0 (no literal has the address 0).
    @usableFromInline var words: Words = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
    @usableFromInline var count = 0
    /// FNV-1a over the words, kept as they are appended, so hashing costs one word.
    @usableFromInline var digest: UInt64 = 0xcbf2_9ce4_8422_2325

    @inlinable init() {}

    /// Appends a literal; `false` when it does not fit (too many pieces, too long, or an
    /// address beyond 48 bits).
    @inlinable
    mutating func append(_ literal: StaticString) -> Bool {
        let address = UInt(bitPattern: literal.utf8Start)
        let length = UInt(literal.utf8CodeUnitCount)
        guard address >> 48 == 0, length >> 16 == 0 else { return false }
        return append(word: address << 16 | length)
    }

    /// Appends the `?` of a bound value; `false` when it does not fit.
    @inlinable
    mutating func appendPlaceholder() -> Bool {
        append(word: 0)
    }

    @inlinable
    mutating func append(word: UInt) -> Bool {
        guard count < Self.capacity else { return false }
        withUnsafeMutableBytes(of: &words) { $0.storeBytes(of: word, toByteOffset: count * 8, as: UInt.self) }
        count += 1
        digest = (digest ^ UInt64(word)) &* 0x100_0000_01b3
        return true
    }

    /// The text the pieces spell.
    func joined() -> String {
        var bytes: [UInt8] = []
        withUnsafeBytes(of: words) { raw in
            for index in 0..<count {
                let word = raw.load(fromByteOffset: index * 8, as: UInt.self)
                if word == 0 {
                    bytes.append(UInt8(ascii: "?"))
                } else {
                    // The address of a literal of the program: valid for the program's life.
                    let start = UnsafePointer<UInt8>(bitPattern: word >> 16)
                    bytes.append(contentsOf: UnsafeBufferPointer(start: start, count: Int(word & 0xFFFF)))
                }
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    @usableFromInline
    static func == (lhs: SQLPieces, rhs: SQLPieces) -> Bool {
        // Words past `count` are 0 on both sides (only appending writes them): comparing all
        // sixteen in place is cheaper than a loop over copies of the two tuples.
        let (l, r) = (lhs.words, rhs.words)
        return lhs.count == rhs.count && lhs.digest == rhs.digest
            && l.0 == r.0 && l.1 == r.1 && l.2 == r.2 && l.3 == r.3 && l.4 == r.4 && l.5 == r.5
            && l.6 == r.6 && l.7 == r.7 && l.8 == r.8 && l.9 == r.9 && l.10 == r.10 && l.11 == r.11
            && l.12 == r.12 && l.13 == r.13 && l.14 == r.14 && l.15 == r.15
    }

    @usableFromInline
    func hash(into hasher: inout Hasher) {
        hasher.combine(digest)
    }
}

/// The text of each interpolated ``SQL`` whose interpolations are all bound values, built once
/// per place in the code that writes it.
///
/// Building the text of `"INSERT ... VALUES (\(name), \(score))"` cost about as much as SQLite
/// inserting the row, and an insert per row in a loop paid it on every call. The memo holds one
/// entry per such place (literals are part of the program, so their number is bounded by the
/// code, not by the data); past ``capacity`` entries the text is built each time instead.
enum SQLTextMemo {
    static let capacity = 4096
    private static let memo = Memo()

    static func text(of pieces: SQLPieces) -> String {
        memo.text(of: pieces)
    }

    /// The texts behind a lock. An `NSLock` (a pthread mutex), not `Synchronization.Mutex`: the
    /// thread sanitizer does not see the futex-based `Mutex` order its accesses.
    private final class Memo: @unchecked Sendable {
        // @unchecked Sendable: `texts` is only touched under `lock`.
        private let lock = NSLock()
        private var texts: [SQLPieces: String] = [:]

        func text(of pieces: SQLPieces) -> String {
            lock.lock()
            let known = texts[pieces]
            lock.unlock()
            if let known { return known }
            let text = pieces.joined()
            lock.lock()
            if texts.count < SQLTextMemo.capacity { texts[pieces] = text }
            lock.unlock()
            return text
        }
    }
}
