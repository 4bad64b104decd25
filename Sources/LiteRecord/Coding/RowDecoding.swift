import Foundation

/// The `Decoder` handed to a type's `init(from:)` for one row.
struct RowDecoding<Source: ColumnSource, Value: Decodable>: Decoder {
    let context: RowDecodingContext<Source, Value>
    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        KeyedDecodingContainer(RowKeyedDecodingContainer<Key, Source, Value>(context: context))
    }

    /// A type that reads a row as a list reads the JSON array held by the first column.
    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        let index = try context.firstColumn(expected: [Any].self)
        let value = try context.value(at: index, expected: [Any].self, codingPath: [])
        do {
            return try JSONTreeDecoding(jsonColumn: value, codingPath: []).unkeyedContainer()
        } catch {
            throw context.failure(value, at: index, expected: [Any].self, codingPath: [], error)
        }
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        RowSingleValueContainer(context: context)
    }
}

/// Reads each key from the column of the same name.
struct RowKeyedDecodingContainer<Key: CodingKey, Source: ColumnSource, Value: Decodable>:
    KeyedDecodingContainerProtocol
{
    let context: RowDecodingContext<Source, Value>
    var codingPath: [any CodingKey] { [] }

    var allKeys: [Key] {
        context.source.sourceColumnNames.compactMap { Key(stringValue: $0) }
    }

    func contains(_ key: Key) -> Bool {
        context.columnIndex(for: key) != nil
    }

    func decodeNil(forKey key: Key) throws -> Bool {
        let index = try context.requireColumn(key, expected: Any?.self, codingPath: [key])
        return context.source.sourceIsNull(at: index)
    }

    @inline(__always)
    private func primitive<T: DatabaseValueConvertible>(_ type: T.Type, _ key: Key) throws -> T {
        let index = try context.requireColumn(key, expected: T.self, codingPath: [key])
        return try context.decodePrimitive(T.self, at: index, codingPath: [key])
    }

    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try primitive(type, key) }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try primitive(type, key) }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try primitive(type, key) }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try primitive(type, key) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try primitive(type, key) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try primitive(type, key) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try primitive(type, key) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try primitive(type, key) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try primitive(type, key) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try primitive(type, key) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try primitive(type, key) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try primitive(type, key) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try primitive(type, key) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try primitive(type, key) }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        let index = try context.requireColumn(key, expected: T.self, codingPath: [key])
        return try context.decode(T.self, at: index, codingPath: [key])
    }

    // `decodeIfPresent` by default asks `contains`, `decodeNil` and `decode` in turn: three
    // lookups. One lookup and one NULL check do the same.
    @inline(__always)
    private func optional<T: Decodable>(_ type: T.Type, _ key: Key) throws -> T? {
        guard let index = context.columnIndex(for: key), !context.source.sourceIsNull(at: index) else {
            return nil
        }
        return try context.decode(T.self, at: index, codingPath: [key])
    }

    @inline(__always)
    private func optionalPrimitive<T: DatabaseValueConvertible>(_ type: T.Type, _ key: Key) throws -> T? {
        guard let index = context.columnIndex(for: key), !context.source.sourceIsNull(at: index) else {
            return nil
        }
        return try context.decodePrimitive(T.self, at: index, codingPath: [key])
    }

    func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? {
        try optionalPrimitive(type, key)
    }
    func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? {
        try optionalPrimitive(type, key)
    }
    func decodeIfPresent(_ type: Double.Type, forKey key: Key) throws -> Double? {
        try optionalPrimitive(type, key)
    }
    func decodeIfPresent(_ type: Float.Type, forKey key: Key) throws -> Float? {
        try optionalPrimitive(type, key)
    }
    func decodeIfPresent(_ type: Int.Type, forKey key: Key) throws -> Int? {
        try optionalPrimitive(type, key)
    }
    func decodeIfPresent(_ type: Int8.Type, forKey key: Key) throws -> Int8? {
        try optionalPrimitive(type, key)
    }
    func decodeIfPresent(_ type: Int16.Type, forKey key: Key) throws -> Int16? {
        try optionalPrimitive(type, key)
    }
    func decodeIfPresent(_ type: Int32.Type, forKey key: Key) throws -> Int32? {
        try optionalPrimitive(type, key)
    }
    func decodeIfPresent(_ type: Int64.Type, forKey key: Key) throws -> Int64? {
        try optionalPrimitive(type, key)
    }
    func decodeIfPresent(_ type: UInt.Type, forKey key: Key) throws -> UInt? {
        try optionalPrimitive(type, key)
    }
    func decodeIfPresent(_ type: UInt8.Type, forKey key: Key) throws -> UInt8? {
        try optionalPrimitive(type, key)
    }
    func decodeIfPresent(_ type: UInt16.Type, forKey key: Key) throws -> UInt16? {
        try optionalPrimitive(type, key)
    }
    func decodeIfPresent(_ type: UInt32.Type, forKey key: Key) throws -> UInt32? {
        try optionalPrimitive(type, key)
    }
    func decodeIfPresent(_ type: UInt64.Type, forKey key: Key) throws -> UInt64? {
        try optionalPrimitive(type, key)
    }
    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        try optional(type, key)
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
        RowDecoding(context: context)
    }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        try jsonDecoder(forKey: key)
    }

    /// A decoder over the JSON held by a column, for types that read a column through nested
    /// containers.
    private func jsonDecoder(forKey key: Key) throws -> any Decoder {
        let index = try context.requireColumn(key, expected: [String: Any].self, codingPath: [key])
        let value = try context.value(at: index, expected: [String: Any].self, codingPath: [key])
        do {
            return try JSONTreeDecoding(jsonColumn: value, codingPath: [key])
        } catch {
            throw context.failure(value, at: index, expected: [String: Any].self, codingPath: [key], error)
        }
    }
}

/// Reads a single value from the row's first column.
struct RowSingleValueContainer<Source: ColumnSource, Value: Decodable>: SingleValueDecodingContainer {
    let context: RowDecodingContext<Source, Value>
    var codingPath: [any CodingKey] { [] }

    func decodeNil() -> Bool {
        guard context.source.sourceColumnCount > 0 else { return true }
        return context.source.sourceIsNull(at: 0)
    }

    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        try context.decode(T.self, at: context.firstColumn(expected: T.self), codingPath: [])
    }
}
