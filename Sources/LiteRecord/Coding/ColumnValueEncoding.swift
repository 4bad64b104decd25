import Foundation

/// Stores one property value whose type has no ``DatabaseValueConvertible`` conformance.
///
/// A value that encodes itself as one primitive (a raw-value enum, a wrapper around a string)
/// is stored as that primitive; any value that asks for a keyed or unkeyed container (arrays,
/// dictionaries, structs, enums with associated values) is stored as JSON text.
enum ColumnValueEncoding {
    static func encode<T: Encodable>(_ value: T) throws -> DatabaseValue {
        if JSONTypeMemo.isKnownJSON(T.self, encoding: true) {
            return try JSONColumn.encode(value)
        }
        // A set encodes in iteration order; sorted, equal sets store equal text.
        if let set = value as? any SortedForStorage {
            return try JSONColumn.encode(set.sortedElements())
        }
        let probe = SingleValueProbe()
        do {
            try value.encode(to: probe)
        } catch is NeedsJSON {
            JSONTypeMemo.rememberJSON(T.self, encoding: true)
            return try JSONColumn.encode(value)
        }
        guard let stored = probe.value else {
            // The value wrote nothing at all: store it the way JSON would see it.
            return try JSONColumn.encode(value)
        }
        return stored
    }

    /// An array of strings, the most common JSON column, written without `JSONEncoder`.
    ///
    /// `JSONEncoder` costs more than the rest of a row's encoding and binding together. When no
    /// string needs escaping (no quote, backslash or control character), its output is simply
    /// each string's UTF-8 bytes between quotes, comma-separated, in brackets: written here
    /// directly. Any string that needs escaping sends the whole array through `JSONEncoder`,
    /// so the text is always exactly what the encoder would have produced.
    static func encode(_ strings: [String]) throws -> DatabaseValue {
        var length = 2 + max(strings.count - 1, 0)
        for var string in strings {
            let plain = string.withUTF8 { bytes in
                bytes.allSatisfy { $0 >= 0x20 && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "\\") }
            }
            guard plain else { return try JSONColumn.encode(strings) }
            length += string.utf8.count + 2
        }
        let text = String(unsafeUninitializedCapacity: length) { buffer in
            var position = 0
            func write(_ byte: UInt8) {
                buffer[position] = byte
                position += 1
            }
            write(UInt8(ascii: "["))
            for (index, var string) in strings.enumerated() {
                if index > 0 { write(UInt8(ascii: ",")) }
                write(UInt8(ascii: "\""))
                string.withUTF8 { bytes in
                    for byte in bytes { write(byte) }
                }
                write(UInt8(ascii: "\""))
            }
            write(UInt8(ascii: "]"))
            return position
        }
        return .text(text)
    }
}

/// A collection whose stored JSON is its elements in sorted order.
protocol SortedForStorage {
    func sortedElements() -> any Encodable
}

extension Set: SortedForStorage where Element: Comparable & Encodable {
    func sortedElements() -> any Encodable { sorted() }
}

/// Thrown by the probe when a value turns out to need a container: the signal to use JSON.
struct NeedsJSON: Error {}

/// Remembers the types that needed JSON, so later values of the same type skip the probe.
///
/// Encoding and decoding keep separate sets: the encoder only remembers types that take the
/// plain JSON path (never sets, which it sorts first).
enum JSONTypeMemo {
    private static let knownForEncoding = LockedSet()
    private static let knownForDecoding = LockedSet()

    static func isKnownJSON(_ type: Any.Type, encoding: Bool) -> Bool {
        (encoding ? knownForEncoding : knownForDecoding).contains(ObjectIdentifier(type))
    }

    static func rememberJSON(_ type: Any.Type, encoding: Bool) {
        (encoding ? knownForEncoding : knownForDecoding).insert(ObjectIdentifier(type))
    }
}

/// A small thread-safe set of type identifiers.
final class LockedSet: @unchecked Sendable {
    // @unchecked Sendable: `members` is only touched under `lock`.
    private let lock = NSLock()
    private var members: Set<ObjectIdentifier> = []

    func contains(_ member: ObjectIdentifier) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        return members.contains(member)
    }

    func insert(_ member: ObjectIdentifier) {
        lock.lock()
        defer { lock.unlock() }
        members.insert(member)
    }
}

/// An `Encoder` that accepts exactly one primitive value and throws ``NeedsJSON`` otherwise.
final class SingleValueProbe: Encoder, SingleValueEncodingContainer {
    var value: DatabaseValue?
    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        KeyedEncodingContainer(RefusingKeyedContainer<Key, ThrowNeedsJSON>())
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer { RefusingUnkeyedContainer<ThrowNeedsJSON>() }
    func singleValueContainer() -> any SingleValueEncodingContainer { self }

    func encodeNil() throws { value = .null }
    func encode(_ value: Bool) throws { self.value = .integer(value ? 1 : 0) }
    func encode(_ value: String) throws { self.value = .text(value) }
    func encode(_ value: Double) throws { self.value = .real(value) }
    func encode(_ value: Float) throws { self.value = .real(Double(value)) }
    func encode(_ value: Int) throws { self.value = try value.databaseValue() }
    func encode(_ value: Int8) throws { self.value = try value.databaseValue() }
    func encode(_ value: Int16) throws { self.value = try value.databaseValue() }
    func encode(_ value: Int32) throws { self.value = try value.databaseValue() }
    func encode(_ value: Int64) throws { self.value = try value.databaseValue() }
    func encode(_ value: UInt) throws { self.value = try value.databaseValue() }
    func encode(_ value: UInt8) throws { self.value = try value.databaseValue() }
    func encode(_ value: UInt16) throws { self.value = try value.databaseValue() }
    func encode(_ value: UInt32) throws { self.value = try value.databaseValue() }
    func encode(_ value: UInt64) throws { self.value = try value.databaseValue() }

    func encode<T: Encodable>(_ value: T) throws {
        if let date = value as? Date {
            self.value = try DateStorage.text.databaseValue(for: date)
        } else if let convertible = value as? any DatabaseValueConvertible {
            self.value = try convertible.databaseValue()
        } else {
            // A wrapper around another non-primitive value: probe it in turn.
            self.value = try ColumnValueEncoding.encode(value)
        }
    }
}
