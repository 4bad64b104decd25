import Foundation

/// Encodes an `Encodable` value into one row: ordered column names and their values.
///
/// The value's top-level keyed container gives the columns (their names are the `CodingKeys`
/// string values). Each property is stored through ``DatabaseValueConvertible`` when its type
/// conforms (numbers, strings, `Data`, `Date`, `UUID`, ...), as its raw value when it encodes
/// as a single primitive (raw-value enums), and as JSON text otherwise (arrays, dictionaries,
/// nested structs). `nil` is NULL, also for properties encoded with `encodeIfPresent`.
///
/// ```swift
/// let row = try RowEncoder().encode(player)
/// row.columns   // ["id", "name", "score", "tags"]
/// row.values    // [NULL, 'Alice', 120, '["mvp","pro"]']
/// ```
public struct RowEncoder: Sendable {
    /// How `Date` properties are stored.
    public var dateStorage: DateStorage
    /// Per-column exceptions to ``dateStorage``, keyed by column name.
    public var columnDateStorage: [String: DateStorage]
    /// Coding key → column name, for models whose columns are not named like their keys.
    var keyToColumn: [String: String]?

    /// Creates an encoder.
    ///
    /// - Parameters:
    ///   - dateStorage: How `Date` properties are stored.
    ///   - columnDateStorage: Per-column exceptions, keyed by column name.
    public init(dateStorage: DateStorage = .text, columnDateStorage: [String: DateStorage] = [:]) {
        self.dateStorage = dateStorage
        self.columnDateStorage = columnDateStorage
    }

    /// Encodes a value into columns and values.
    ///
    /// - Parameter value: A value whose `encode(to:)` uses a keyed container.
    /// - Returns: The columns in the order the value encoded them, with their values.
    /// - Throws: `EncodingError.invalidValue` for a value that is not a keyed container at the
    ///   top level, a column encoded twice, or a value that cannot be stored (a `UInt64` above
    ///   `Int64.max`, a non-finite `Double` inside JSON).
    public func encode<T: Encodable>(_ value: T) throws -> EncodedRow {
        try encode(value, expecting: []).row
    }

    /// Encodes a value and tells whether it wrote exactly `expectedColumns`, in that order.
    ///
    /// A model's table knows the columns its `encode(to:)` writes: checking each column
    /// against the expected one in passing replaces both the duplicate search and comparing
    /// the whole column list afterwards.
    func encode<T: Encodable>(_ value: T, expecting expectedColumns: [String]) throws
        -> (row: EncodedRow, matchesTable: Bool)
    {
        let storage = RowEncodingStorage(
            dateStorage: dateStorage, columnDateStorage: columnDateStorage, keyToColumn: keyToColumn,
            expectedColumns: expectedColumns)
        try value.encode(to: RowEncoding(storage: storage))
        try storage.finishNestedContainers()
        if let error = storage.error { throw error }
        let matches = storage.matchesExpected && storage.values.count == expectedColumns.count
        return (EncodedRow(columns: storage.encodedColumns, values: storage.values), matches)
    }
}

/// The columns and values of one encoded row.
public struct EncodedRow: Sendable, Hashable {
    /// Column names, in encoding order.
    public var columns: [String]
    /// Values, parallel to ``columns``.
    public var values: [DatabaseValue]

    /// The value of a column, or `nil` when the row has no such column.
    ///
    /// - Parameter column: A column name.
    public subscript(column: String) -> DatabaseValue? {
        columns.firstIndex(of: column).map { values[$0] }
    }
}

/// Shared state of one row encoding: what has been written so far, and the first error that a
/// non-throwing `Encoder` method could not throw.
final class RowEncodingStorage {
    let dateStorage: DateStorage
    let columnDateStorage: [String: DateStorage]
    let keyToColumn: [String: String]?
    // One encoding on one thread owns this storage: skip the per-access exclusivity checks.
    @exclusivity(unchecked) var columns: [String] = []
    @exclusivity(unchecked) var values: [DatabaseValue] = []
    var error: EncodingError?
    /// Columns written through nested containers, serialized to JSON once encoding is over
    /// (a nested container is still being filled after the call that created it returns).
    var nestedColumns: [(index: Int, codingPath: [any CodingKey], node: JSONTreeEncoding.Node)] = []
    /// The columns the table expects, in order (empty when unknown).
    let expectedColumns: [String]
    /// Whether every column so far was the expected one at its position: then none of them
    /// can repeat, since the expected columns are distinct, and ``columns`` is left empty
    /// (the names are a prefix of ``expectedColumns``).
    @exclusivity(unchecked) var matchesExpected: Bool

    init(
        dateStorage: DateStorage, columnDateStorage: [String: DateStorage], keyToColumn: [String: String]?,
        expectedColumns: [String] = []
    ) {
        self.dateStorage = dateStorage
        self.columnDateStorage = columnDateStorage
        self.keyToColumn = keyToColumn
        self.expectedColumns = expectedColumns
        matchesExpected = !expectedColumns.isEmpty
        if matchesExpected {
            values.reserveCapacity(expectedColumns.count)
        } else {
            columns.reserveCapacity(16)
            values.reserveCapacity(16)
        }
    }

    /// The names of the columns encoded so far.
    var encodedColumns: [String] {
        guard matchesExpected else { return columns }
        return values.count == expectedColumns.count
            ? expectedColumns : Array(expectedColumns.prefix(values.count))
    }

    /// The column a coding key fills.
    @inline(__always)
    func column(for key: any CodingKey) -> String {
        guard let keyToColumn else { return key.stringValue }
        return keyToColumn[key.stringValue] ?? key.stringValue
    }

    func append(_ value: DatabaseValue, column: String, codingPath: [any CodingKey]) throws {
        try append(value, column: column, codingPath: codingPath as [any CodingKey]?, key: nil)
    }

    /// Appends the column of one key; its coding path is built only for an error, not per value.
    @inline(__always)
    func append(_ value: DatabaseValue, column: String, key: any CodingKey) throws {
        try append(value, column: column, codingPath: nil, key: key)
    }

    private func append(
        _ value: DatabaseValue, column: String, codingPath: [any CodingKey]?, key: (any CodingKey)?
    )
        throws
    {
        if matchesExpected {
            let position = values.count
            if position < expectedColumns.count && expectedColumns[position] == column {
                values.append(value)
                return
            }
            columns = Array(expectedColumns.prefix(position))
            matchesExpected = false
        }
        if columns.contains(column) {
            throw EncodingError.invalidValue(
                SafeDescription.of(value),
                .init(
                    codingPath: codingPath ?? key.map { [$0] } ?? [],
                    debugDescription: "column \"\(column)\" is encoded twice; each key may be encoded once"))
        }
        columns.append(column)
        values.append(value)
    }

    /// Reserves a column for a nested container and returns the tree it will fill.
    func appendNested(_ node: JSONTreeEncoding.Node, column: String, codingPath: [any CodingKey])
        -> JSONTreeEncoding.Node
    {
        do {
            try append(.null, column: column, codingPath: codingPath)
            nestedColumns.append((values.count - 1, codingPath, node))
        } catch {
            self.error = self.error ?? (error as? EncodingError)
        }
        return node
    }

    func finishNestedContainers() throws {
        for nested in nestedColumns {
            values[nested.index] = try nested.node.jsonText(codingPath: nested.codingPath)
        }
    }

    func fail(_ message: String, codingPath: [any CodingKey]) {
        guard error == nil else { return }
        error = EncodingError.invalidValue((), .init(codingPath: codingPath, debugDescription: message))
    }

    /// Converts one property value to a column value.
    func columnValue<T: Encodable>(_ value: T, column: String, key: any CodingKey) throws -> DatabaseValue {
        do {
            // Comparing type metadata is cheaper than a dynamic cast, which every generic value
            // would pay: dates and string arrays are the common non-primitive properties.
            if T.self == Date.self {
                let date = unsafeBitCast(value, to: Date.self)
                let storage =
                    columnDateStorage.isEmpty ? dateStorage : columnDateStorage[column] ?? dateStorage
                return try storage.databaseValue(for: date)
            }
            if T.self == [String].self, StringArrayJSON.isJSONStorage {
                return try ColumnValueEncoding.encode(unsafeBitCast(value, to: [String].self))
            }
            if let convertible = value as? any DatabaseValueConvertible {
                return try convertible.databaseValue()
            }
            return try ColumnValueEncoding.encode(value)
        } catch let error as EncodingError {
            throw error.describingValueSafely()
        } catch {
            // The value itself is not kept: describing it may trap (an infinite `Date`).
            throw EncodingError.invalidValue(
                SafeDescription.of(value),
                .init(
                    codingPath: [key], debugDescription: "column \"\(column)\": \(error)",
                    underlyingError: error))
        }
    }
}

/// The `Encoder` handed to a row's `encode(to:)`.
struct RowEncoding: Encoder {
    let storage: RowEncodingStorage
    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        KeyedEncodingContainer(RowKeyedEncodingContainer<Key>(storage: storage))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        storage.fail(
            "a row must encode with a keyed container (one key per column), not an unkeyed one",
            codingPath: [])
        return RefusingUnkeyedContainer<DiscardWrites>()
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        storage.fail(
            "a row must encode with a keyed container (one key per column), not a single value",
            codingPath: [])
        return DiscardingSingleValueContainer()
    }
}

/// Writes each key as a column.
struct RowKeyedEncodingContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let storage: RowEncodingStorage
    var codingPath: [any CodingKey] { [] }

    @inline(__always)
    private func put(_ value: DatabaseValue, _ key: Key) throws {
        try storage.append(value, column: storage.column(for: key), key: key)
    }

    mutating func encodeNil(forKey key: Key) throws { try put(.null, key) }
    mutating func encode(_ value: Bool, forKey key: Key) throws { try put(.integer(value ? 1 : 0), key) }
    mutating func encode(_ value: String, forKey key: Key) throws { try put(.text(value), key) }
    mutating func encode(_ value: Double, forKey key: Key) throws { try encodeConvertible(value, key) }
    mutating func encode(_ value: Float, forKey key: Key) throws { try encodeConvertible(value, key) }
    mutating func encode(_ value: Int, forKey key: Key) throws { try put(.integer(Int64(value)), key) }
    mutating func encode(_ value: Int8, forKey key: Key) throws { try put(.integer(Int64(value)), key) }
    mutating func encode(_ value: Int16, forKey key: Key) throws { try put(.integer(Int64(value)), key) }
    mutating func encode(_ value: Int32, forKey key: Key) throws { try put(.integer(Int64(value)), key) }
    mutating func encode(_ value: Int64, forKey key: Key) throws { try put(.integer(value), key) }
    mutating func encode(_ value: UInt8, forKey key: Key) throws { try put(.integer(Int64(value)), key) }
    mutating func encode(_ value: UInt16, forKey key: Key) throws { try put(.integer(Int64(value)), key) }
    mutating func encode(_ value: UInt32, forKey key: Key) throws { try put(.integer(Int64(value)), key) }
    mutating func encode(_ value: UInt, forKey key: Key) throws { try encodeConvertible(value, key) }
    mutating func encode(_ value: UInt64, forKey key: Key) throws { try encodeConvertible(value, key) }

    /// Stores a value whose conversion can fail (out-of-range integers, NaN).
    private func encodeConvertible<T: DatabaseValueConvertible & Encodable>(_ value: T, _ key: Key) throws {
        do {
            try put(value.databaseValue(), key)
        } catch let error as ValueConversionError {
            throw EncodingError.invalidValue(
                SafeDescription.of(value),
                .init(codingPath: [key], debugDescription: error.description, underlyingError: error))
        }
    }

    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        let column = storage.column(for: key)
        try storage.append(storage.columnValue(value, column: column, key: key), column: column, key: key)
    }

    // `encodeIfPresent` skips nil by default; a row stores NULL instead, so that an UPDATE
    // clears the column rather than leaving its old value. Each overload calls the concrete
    // `encode` (a generic helper would reach the generic one, with its dynamic casts).
    mutating func encodeIfPresent(_ value: Bool?, forKey key: Key) throws {
        if let value { try encode(value, forKey: key) } else { try encodeNil(forKey: key) }
    }
    mutating func encodeIfPresent(_ value: String?, forKey key: Key) throws {
        if let value { try encode(value, forKey: key) } else { try encodeNil(forKey: key) }
    }
    mutating func encodeIfPresent(_ value: Double?, forKey key: Key) throws {
        if let value { try encode(value, forKey: key) } else { try encodeNil(forKey: key) }
    }
    mutating func encodeIfPresent(_ value: Float?, forKey key: Key) throws {
        if let value { try encode(value, forKey: key) } else { try encodeNil(forKey: key) }
    }
    mutating func encodeIfPresent(_ value: Int?, forKey key: Key) throws {
        if let value { try encode(value, forKey: key) } else { try encodeNil(forKey: key) }
    }
    mutating func encodeIfPresent(_ value: Int8?, forKey key: Key) throws {
        if let value { try encode(value, forKey: key) } else { try encodeNil(forKey: key) }
    }
    mutating func encodeIfPresent(_ value: Int16?, forKey key: Key) throws {
        if let value { try encode(value, forKey: key) } else { try encodeNil(forKey: key) }
    }
    mutating func encodeIfPresent(_ value: Int32?, forKey key: Key) throws {
        if let value { try encode(value, forKey: key) } else { try encodeNil(forKey: key) }
    }
    mutating func encodeIfPresent(_ value: Int64?, forKey key: Key) throws {
        if let value { try encode(value, forKey: key) } else { try encodeNil(forKey: key) }
    }
    mutating func encodeIfPresent(_ value: UInt?, forKey key: Key) throws {
        if let value { try encode(value, forKey: key) } else { try encodeNil(forKey: key) }
    }
    mutating func encodeIfPresent(_ value: UInt8?, forKey key: Key) throws {
        if let value { try encode(value, forKey: key) } else { try encodeNil(forKey: key) }
    }
    mutating func encodeIfPresent(_ value: UInt16?, forKey key: Key) throws {
        if let value { try encode(value, forKey: key) } else { try encodeNil(forKey: key) }
    }
    mutating func encodeIfPresent(_ value: UInt32?, forKey key: Key) throws {
        if let value { try encode(value, forKey: key) } else { try encodeNil(forKey: key) }
    }
    mutating func encodeIfPresent(_ value: UInt64?, forKey key: Key) throws {
        if let value { try encode(value, forKey: key) } else { try encodeNil(forKey: key) }
    }
    mutating func encodeIfPresent<T: Encodable>(_ value: T?, forKey key: Key) throws {
        if let value { try encode(value, forKey: key) } else { try encodeNil(forKey: key) }
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type, forKey key: Key
    ) -> KeyedEncodingContainer<NestedKey> {
        let tree = storage.appendNested(
            .init(.object([:])), column: storage.column(for: key), codingPath: [key])
        return JSONTreeEncoding(node: tree, codingPath: [key], storage: storage).container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        let tree = storage.appendNested(
            .init(.array([])), column: storage.column(for: key), codingPath: [key])
        return JSONTreeEncoding(node: tree, codingPath: [key], storage: storage).unkeyedContainer()
    }

    mutating func superEncoder() -> any Encoder {
        RowEncoding(storage: storage)
    }

    mutating func superEncoder(forKey key: Key) -> any Encoder {
        let tree = storage.appendNested(
            .init(.undecided), column: storage.column(for: key), codingPath: [key])
        return JSONTreeEncoding(node: tree, codingPath: [key], storage: storage)
    }
}
