import Foundation

/// The `Decoder` handed to a type's `init(from:)` for one row.
struct RowDecoding: Decoder {
    let context: RowDecodingContext
    /// The fetch the row belongs to, which reuses keyed containers; `nil` for a single row.
    var session: RowDecodingSession?
    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        if let session { return session.container(keyedBy: Key.self) }
        return KeyedDecodingContainer(RowKeyedDecodingContainer<Key>(context: context))
    }

    /// A type that reads a row as a list reads the JSON array held by the first column.
    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        let index = try context.firstColumn(expected: [Any].self)
        let value = try context.value(at: index, expected: [Any].self, key: FirstColumnKey())
        do {
            return try JSONTreeDecoding(jsonColumn: value, codingPath: []).unkeyedContainer()
        } catch {
            throw context.failure(value, at: index, expected: [Any].self, key: FirstColumnKey(), error)
        }
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        RowSingleValueContainer(context: context)
    }
}

/// Reads each key from the column of the same name.
///
/// Coding paths are built only when an error needs one: an array per property per row
/// would cost an allocation each.
struct RowKeyedDecodingContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let context: RowDecodingContext
    var codingPath: [any CodingKey] { [] }

    var allKeys: [Key] {
        context.columnNames.compactMap { Key(stringValue: $0) }
    }

    func contains(_ key: Key) -> Bool {
        context.columnIndex(forKey: key.stringValue) != nil
    }

    func decodeNil(forKey key: Key) throws -> Bool {
        context.isNull(at: try context.requireColumn(key, expected: Any?.self))
    }

    @inline(__always)
    private func primitive<T: DatabaseValueConvertible>(_ type: T.Type, _ key: Key) throws -> T {
        try context.decodePrimitive(T.self, at: context.requireColumn(key, expected: T.self), key: key)
    }

    /// Reads the column of `key` through `fast` when SQLite's value suits it (one of
    /// ``RowDecodingContext``'s readers), through the value-codec protocol otherwise.
    @inline(__always)
    private func direct<T: DatabaseValueConvertible>(_ key: Key, fast: (OpaquePointer) -> T?) throws -> T {
        try context.read(T.self, at: context.requireColumn(key, expected: T.self), key: key, fast: fast)
    }

    // `fast` is a closure literal, not `RowDecodingContext.integer` itself: a generic function
    // passed by name is not specialized inside `read` (15 % more instructions on a Northwind load).
    @inline(__always)
    private func integer<T: FixedWidthInteger & DatabaseValueConvertible>(_ type: T.Type, _ key: Key) throws
        -> T
    {
        try direct(key) { RowDecodingContext.integer($0) }
    }

    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool {
        try direct(key, fast: RowDecodingContext.bool)
    }
    func decode(_ type: String.Type, forKey key: Key) throws -> String {
        try direct(key, fast: RowDecodingContext.string)
    }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double {
        try direct(key, fast: RowDecodingContext.double)
    }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try primitive(type, key) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try integer(type, key) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try integer(type, key) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try integer(type, key) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try integer(type, key) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try integer(type, key) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try integer(type, key) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try integer(type, key) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try integer(type, key) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try integer(type, key) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try integer(type, key) }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        try context.decode(T.self, at: context.requireColumn(key, expected: T.self), key: key)
    }

    // `decodeIfPresent` by default asks `contains`, `decodeNil` and `decode` in turn: three
    // lookups. One lookup and one NULL check do the same.
    @inline(__always)
    private func presentIndex(_ key: Key) -> Int? {
        guard let index = context.columnIndex(forKey: key.stringValue), !context.isNull(at: index) else {
            return nil
        }
        return index
    }

    @inline(__always)
    private func optionalPrimitive<T: DatabaseValueConvertible>(_ type: T.Type, _ key: Key) throws -> T? {
        guard let index = presentIndex(key) else { return nil }
        return try context.decodePrimitive(T.self, at: index, key: key)
    }

    /// Reads the column of `key`, when there is one, as ``direct(_:fast:)`` does; NULL is `nil`.
    @inline(__always)
    private func optionalDirect<T: DatabaseValueConvertible>(_ key: Key, fast: (OpaquePointer) -> T?) throws
        -> T?
    {
        guard let index = context.columnIndex(forKey: key.stringValue) else { return nil }
        return try context.readOptional(T.self, at: index, key: key, fast: fast)
    }

    @inline(__always)
    private func optionalInteger<T: FixedWidthInteger & DatabaseValueConvertible>(
        _ type: T.Type, _ key: Key
    ) throws -> T? {
        try optionalDirect(key) { RowDecodingContext.integer($0) }
    }

    func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? {
        try optionalPrimitive(type, key)
    }
    func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? {
        try optionalDirect(key, fast: RowDecodingContext.string)
    }
    func decodeIfPresent(_ type: Double.Type, forKey key: Key) throws -> Double? {
        try optionalDirect(key, fast: RowDecodingContext.double)
    }
    func decodeIfPresent(_ type: Float.Type, forKey key: Key) throws -> Float? {
        try optionalPrimitive(type, key)
    }
    func decodeIfPresent(_ type: Int.Type, forKey key: Key) throws -> Int? { try optionalInteger(type, key) }
    func decodeIfPresent(_ type: Int8.Type, forKey key: Key) throws -> Int8? {
        try optionalInteger(type, key)
    }
    func decodeIfPresent(_ type: Int16.Type, forKey key: Key) throws -> Int16? {
        try optionalInteger(type, key)
    }
    func decodeIfPresent(_ type: Int32.Type, forKey key: Key) throws -> Int32? {
        try optionalInteger(type, key)
    }
    func decodeIfPresent(_ type: Int64.Type, forKey key: Key) throws -> Int64? {
        try optionalInteger(type, key)
    }
    func decodeIfPresent(_ type: UInt.Type, forKey key: Key) throws -> UInt? {
        try optionalInteger(type, key)
    }
    func decodeIfPresent(_ type: UInt8.Type, forKey key: Key) throws -> UInt8? {
        try optionalInteger(type, key)
    }
    func decodeIfPresent(_ type: UInt16.Type, forKey key: Key) throws -> UInt16? {
        try optionalInteger(type, key)
    }
    func decodeIfPresent(_ type: UInt32.Type, forKey key: Key) throws -> UInt32? {
        try optionalInteger(type, key)
    }
    func decodeIfPresent(_ type: UInt64.Type, forKey key: Key) throws -> UInt64? {
        try optionalInteger(type, key)
    }
    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        guard let index = context.columnIndex(forKey: key.stringValue) else { return nil }
        return try context.decodeOptional(T.self, at: index, key: key)
    }

    func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type, forKey key: Key
    ) throws -> KeyedDecodingContainer<NestedKey> {
        try jsonDecoder(forKey: key).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try jsonDecoder(forKey: key).unkeyedContainer()
    }

    func superDecoder() throws -> any Decoder {
        RowDecoding(context: context, session: nil)
    }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        try jsonDecoder(forKey: key)
    }

    /// A decoder over the JSON held by a column, for types that read a column through nested
    /// containers.
    private func jsonDecoder(forKey key: Key) throws -> any Decoder {
        let index = try context.requireColumn(key, expected: [String: Any].self)
        let value = try context.value(at: index, expected: [String: Any].self, key: key)
        do {
            return try JSONTreeDecoding(jsonColumn: value, codingPath: [key])
        } catch {
            throw context.failure(value, at: index, expected: [String: Any].self, key: key, error)
        }
    }
}

/// Reads a single value from the row's first column.
struct RowSingleValueContainer: SingleValueDecodingContainer {
    let context: RowDecodingContext
    var codingPath: [any CodingKey] { [] }

    func decodeNil() -> Bool {
        guard context.columnCount > 0 else { return true }
        return context.isNull(at: 0)
    }

    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        try context.decode(T.self, at: context.firstColumn(expected: T.self), key: FirstColumnKey())
    }
}

/// The key of a value read from the row's first column rather than from a named one: errors
/// about it have an empty coding path.
struct FirstColumnKey: CodingKey {
    var stringValue: String { "" }
    var intValue: Int? { nil }

    init() {}
    init?(stringValue: String) { nil }
    init?(intValue: Int) { nil }
}
