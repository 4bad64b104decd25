import CSQLite
// Foundation's `contains(_:)` is the one a user's closure calls when Foundation is imported
// (`"abc".contains("")` is `false`), so the SQL function must call that one too.
import Foundation

/// The SQL functions that answer `hasPrefix`, `hasSuffix` and `contains` exactly as Swift's
/// `String` does, registered on every SQLite connection.
///
/// SQLite compares bytes; Swift compares characters (grapheme clusters): `"👍🏽"` starts with
/// the bytes of `"👍"` but not with the character, and `"e\u{301}"` (é, decomposed) does not
/// start with `"e"`. The query language ANDs a function after the byte condition, which an index
/// or a quick `instr` decides: Swift's check runs only on the rows whose bytes already match,
/// and the result is the rows where both hold. A text that matches in Swift only through a
/// canonically equivalent spelling (`"café"` composed and decomposed) does not match, as for
/// string equality.
///
/// - `literecord_has_prefix(text, prefix)`, `literecord_has_suffix(text, suffix)`,
///   `literecord_contains(text, other)`: 1 when the bytes match and Swift agrees, 0 otherwise;
///   NULL when either argument is NULL.
///
/// The bytes decide alone where they can, without building a `String`: a mismatch is 0, and a
/// match whose edges are ASCII (other than CR before LF) is 1, for there a character always
/// ends; `contains` on ASCII text is the byte search. Foundation's `contains` only ever sees
/// text that holds the other's bytes (it traps on some other inputs: `"👍".contains("👍\0")`).
package enum SwiftTextMatch: Int, CaseIterable, Sendable {
    case hasPrefix = 1
    case hasSuffix
    case contains

    /// The SQL function's name.
    package var functionName: String {
        switch self {
        case .hasPrefix: "literecord_has_prefix"
        case .hasSuffix: "literecord_has_suffix"
        case .contains: "literecord_contains"
        }
    }

    /// Whether the bytes of `other` match in `text` and Swift's `String` agrees.
    package func matches(_ text: UnsafeBufferPointer<UInt8>, _ other: UnsafeBufferPointer<UInt8>) -> Bool {
        if let answer = bytesAnswer(text, other) { return answer }
        let (text, other) = (String(decoding: text, as: UTF8.self), String(decoding: other, as: UTF8.self))
        switch self {
        case .hasPrefix: return text.hasPrefix(other)
        case .hasSuffix: return text.hasSuffix(other)
        case .contains: return text.contains(other)
        }
    }

    /// The answer from the bytes alone, or `nil` when Swift must decide (the bytes match, and a
    /// non-ASCII scalar at an edge of the match may join a character across it).
    private func bytesAnswer(_ text: UnsafeBufferPointer<UInt8>, _ other: UnsafeBufferPointer<UInt8>) -> Bool?
    {
        switch self {
        case .hasPrefix:
            guard other.count <= text.count, text.prefix(other.count).elementsEqual(other) else {
                return false
            }
            guard !other.isEmpty, other.count < text.count else { return true }
            return Self.breaks(other[other.count - 1], text[other.count]) ? true : nil
        case .hasSuffix:
            guard other.count <= text.count, text.suffix(other.count).elementsEqual(other) else {
                return false
            }
            guard !other.isEmpty, other.count < text.count else { return true }
            return Self.breaks(text[text.count - other.count - 1], other[0]) ? true : nil
        case .contains:
            // Foundation's `"abc".contains("")` is false.
            guard !other.isEmpty, Self.occurs(other, in: text) else { return false }
            return text.allSatisfy { $0 < 0x80 } && other.allSatisfy { $0 < 0x80 } ? true : nil
        }
    }

    /// Whether a character always ends between two ASCII bytes: all but CR before LF.
    private static func breaks(_ before: UInt8, _ after: UInt8) -> Bool {
        before < 0x80 && after < 0x80 && !(before == 0x0D && after == 0x0A)
    }

    /// Whether `other`'s bytes occur in `text` (`other` is not empty).
    private static func occurs(_ other: UnsafeBufferPointer<UInt8>, in text: UnsafeBufferPointer<UInt8>)
        -> Bool
    {
        guard other.count <= text.count, let first = other.first else { return false }
        for start in 0...(text.count - other.count) where text[start] == first {
            if UnsafeBufferPointer(rebasing: text[start..<(start + other.count)]).elementsEqual(other) {
                return true
            }
        }
        return false
    }

    /// Registers the functions on a connection.
    ///
    /// - Throws: ``DatabaseError`` when SQLite refuses (out of memory).
    static func register(on handle: OpaquePointer) throws {
        // Deterministic and innocuous, as the other query functions (see `QueryFunctions`).
        let flags = SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS
        for function in allCases {
            let code = sqlite3_create_function_v2(
                handle, function.functionName, 2, flags,
                UnsafeMutableRawPointer(bitPattern: function.rawValue),
                { context, count, arguments in SwiftTextMatch.call(context, count, arguments) },
                nil, nil, nil)
            guard code == SQLITE_OK else { throw DatabaseError.fromConnection(handle, code: code) }
        }
    }

    private static func call(
        _ context: OpaquePointer?, _ count: Int32, _ arguments: UnsafeMutablePointer<OpaquePointer?>?
    ) {
        guard let context, let arguments, count == 2,
            let function = SwiftTextMatch(rawValue: Int(bitPattern: sqlite3_user_data(context)))
        else { return }
        guard sqlite3_value_type(arguments[0]) != SQLITE_NULL, sqlite3_value_type(arguments[1]) != SQLITE_NULL
        else { return sqlite3_result_null(context) }
        // Each text before its length, as SQLite asks (the length never converts it again).
        let (text, other) = (sqlite3_value_text(arguments[0]), sqlite3_value_text(arguments[1]))
        let matches = function.matches(
            bytes(text, count: sqlite3_value_bytes(arguments[0])),
            bytes(other, count: sqlite3_value_bytes(arguments[1])))
        sqlite3_result_int(context, matches ? 1 : 0)
    }

    /// A value's text by its byte length: the text may hold NUL characters.
    private static func bytes(_ text: UnsafePointer<UInt8>?, count: Int32) -> UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(start: text, count: text == nil ? 0 : Int(count))
    }
}
