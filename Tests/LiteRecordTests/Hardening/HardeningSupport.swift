import Foundation
import LiteRecord
import Testing

/// The parent of the hardening suites (hostile input, identifiers, fuzzing), so that
/// `swift test --filter Hardening` runs them all.
@Suite struct Hardening {}

/// Everything `sqlite_master` holds (type, name, table, SQL), sorted: two equal snapshots mean
/// no table, index, view or trigger was created, dropped or altered in between.
func schemaSnapshot(_ db: some DatabaseContext) throws -> [[DatabaseValue]] {
    try db.fetchAll(Row.self, sql: "SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY type, name")
        .map(\.values)
}

/// Whether two strings have exactly the same UTF-8 bytes (Swift's `==` also equates
/// canonically equivalent spellings, which a byte-exact store must keep apart).
func sameBytes(_ lhs: String, _ rhs: String) -> Bool {
    var lhs = lhs
    var rhs = rhs
    // memcmp, not a byte loop: megabyte strings are compared often, in debug builds too.
    return lhs.withUTF8 { left in
        rhs.withUTF8 { right in
            left.count == right.count
                && (left.isEmpty || memcmp(left.baseAddress!, right.baseAddress!, left.count) == 0)
        }
    }
}

/// Whether `haystack`'s UTF-8 bytes contain `needle`'s, as SQLite's `instr` on blobs decides.
func containsBytes(_ haystack: String, _ needle: String) -> Bool {
    var haystack = haystack
    var needle = needle
    if needle.utf8.isEmpty { return true }
    return haystack.withUTF8 { hay in
        needle.withUTF8 { pin in
            guard let hayBase = hay.baseAddress, let pinBase = pin.baseAddress, pin.count <= hay.count else {
                return false
            }
            // memchr finds each candidate first byte, memcmp checks the rest.
            var start = 0
            let last = hay.count - pin.count
            while start <= last {
                guard let found = memchr(hayBase + start, Int32(pin[0]), last - start + 1) else {
                    return false
                }
                let offset = UnsafeRawPointer(found) - UnsafeRawPointer(hayBase)
                if memcmp(hayBase + offset, pinBase, pin.count) == 0 { return true }
                start = offset + 1
            }
            return false
        }
    }
}

/// A short, printable form of a corpus string for failure messages.
func shown(_ string: String) -> String {
    let bytes = string.utf8.count
    let head = String(string.unicodeScalars.prefix(40).map(Character.init)).debugDescription
    return bytes > 40 ? "\(head)… (\(bytes) bytes)" : head
}
