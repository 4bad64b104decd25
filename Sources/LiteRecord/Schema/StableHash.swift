/// A 64-bit FNV-1a hash of a list of strings, the same in every process, on every platform and
/// in every version: names LiteRecord writes into a database (index names on SQLite, generated
/// identifiers on PostgreSQL) are derived from it, so it must never change.
///
/// Swift's `Hasher` is seeded per process, so it cannot name anything that outlives one. Each
/// part is hashed with its UTF-8 length before it (`3:abc`), so that `["ab", "c"]` and
/// `["a", "bc"]` hash differently.
package enum StableHash {
    /// The hash of `parts`.
    ///
    /// - Parameter parts: The strings, in order.
    /// - Returns: The 64-bit FNV-1a hash of each part's length, a colon and its UTF-8 bytes.
    package static func fnv1a64(_ parts: [String]) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for part in parts {
            for byte in Array("\(part.utf8.count):".utf8) + Array(part.utf8) {
                hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
            }
        }
        return hash
    }

    /// The hash of `parts` as 16 lowercase hexadecimal digits.
    ///
    /// - Parameter parts: The strings, in order.
    /// - Returns: Always 16 characters, zero-padded.
    package static func hex(_ parts: [String]) -> String {
        let hex = String(fnv1a64(parts), radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }
}
