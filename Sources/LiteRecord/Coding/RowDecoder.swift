import Foundation

/// Decodes `Decodable` values from rows.
///
/// Each property reads the column named by its coding key. Types that conform to
/// ``DatabaseValueConvertible`` read their column directly; raw-value enums read their raw
/// value; everything else reads JSON text. A type that decodes a single value (a plain `Int`,
/// `String`, `Date`, or a raw-value enum) reads the first column, so one-column queries fetch
/// straight into plain values.
///
/// A missing column is an error for a non-optional property and `nil` for an optional one.
/// Every failure is a ``RowDecodingError`` naming the column, the stored value and the type.
public struct RowDecoder: Sendable {
    /// How `Date` properties stored as numbers are read (text is read in every strategy).
    public var dateStorage: DateStorage
    /// Per-column exceptions to ``dateStorage``, keyed by column name.
    public var columnDateStorage: [String: DateStorage]
    /// Coding key → column name, for models whose columns are not named like their keys.
    var keyToColumn: [String: String]?

    /// Creates a decoder.
    ///
    /// - Parameters:
    ///   - dateStorage: How numeric dates are read.
    ///   - columnDateStorage: Per-column exceptions, keyed by column name.
    public init(dateStorage: DateStorage = .text, columnDateStorage: [String: DateStorage] = [:]) {
        self.dateStorage = dateStorage
        self.columnDateStorage = columnDateStorage
    }

    /// Decodes a value from a copied row.
    ///
    /// - Parameters:
    ///   - type: The type to decode.
    ///   - row: The row.
    /// - Returns: The decoded value.
    /// - Throws: ``RowDecodingError``, or what the type's own `init(from:)` throws.
    public func decode<T: Decodable>(_ type: T.Type, from row: Row) throws -> T {
        try RowDecodingContext(source: CopiedRowSource(row: row), decoder: self, type: T.self).decodeRow()
    }
}

/// Everything one fetch needs to decode its rows; made once per statement and reused per row.
final class RowDecodingContext<Source: ColumnSource, Value: Decodable> {
    let source: Source
    let dateStorage: DateStorage
    let columnDateStorage: [String: DateStorage]
    let typeName: String
    let keyToColumn: [String: String]?
    /// Plain values and collections read the first column instead of a keyed container;
    /// decided once, not per row.
    private let readsFirstColumn: Bool
    // Only ever touched by the one fetch that owns this context, on one thread.
    @exclusivity(unchecked) private var columnLookup = ColumnLookup()

    init(source: Source, decoder: RowDecoder, type: Value.Type) {
        self.source = source
        self.dateStorage = decoder.dateStorage
        self.columnDateStorage = decoder.columnDateStorage
        self.keyToColumn = decoder.keyToColumn
        self.typeName = String(describing: Value.self)
        self.readsFirstColumn =
            Value.self is any DatabaseValueConvertible.Type || Value.self is any Collection.Type
    }

    /// Decodes the source's current row.
    func decodeRow() throws -> Value {
        columnLookup.beginRow()
        // Plain values, and collections (arrays, sets, dictionaries: JSON), read the first column.
        if readsFirstColumn {
            return try decode(Value.self, at: firstColumn(expected: Value.self), codingPath: [])
        }
        return try Value(from: RowDecoding(context: self))
    }

    // MARK: Columns

    @inline(__always)
    func columnIndex<Key: CodingKey>(for key: Key) -> Int? {
        columnLookup.index(of: columnName(for: key), in: source)
    }

    /// The column a coding key reads.
    @inline(__always)
    func columnName<Key: CodingKey>(for key: Key) -> String {
        guard let keyToColumn else { return key.stringValue }
        return keyToColumn[key.stringValue] ?? key.stringValue
    }

    func requireColumn<T, Key: CodingKey>(_ key: Key, expected: T.Type, codingPath: [any CodingKey]) throws
        -> Int
    {
        guard let index = columnIndex(for: key) else {
            throw RowDecodingError.missingColumn(
                columnName(for: key), available: source.sourceColumnNames, decodedType: typeName,
                expectedType: String(describing: T.self), codingPath: codingPath.map(\.stringValue),
                sql: source.sourceSQL)
        }
        return index
    }

    func firstColumn<T>(expected: T.Type) throws -> Int {
        guard source.sourceColumnCount > 0 else {
            throw RowDecodingError.missingColumn(
                "#0", available: [], decodedType: typeName, expectedType: String(describing: T.self),
                codingPath: [], sql: source.sourceSQL)
        }
        return 0
    }

    func columnName(at index: Int) -> String {
        let names = source.sourceColumnNames
        return names.indices.contains(index) ? names[index] : "#\(index)"
    }

    // MARK: Values

    func value(at index: Int, expected: Any.Type, codingPath: [any CodingKey]) throws -> DatabaseValue {
        do {
            return try source.sourceValue(at: index)
        } catch let error as ValueConversionError {
            // Text that is not UTF-8 is still bytes: a `Data` property reads it as they are.
            if expected == Data.self || expected == Data?.self, let bytes = error.value {
                return bytes
            }
            throw failure(error.value ?? .null, at: index, expected: expected, codingPath: codingPath, error)
        }
    }

    /// Decodes a property of any type from the column at `index`.
    func decode<T: Decodable>(_ type: T.Type, at index: Int, codingPath: [any CodingKey]) throws -> T {
        if T.self == Date.self {
            let value = try value(at: index, expected: T.self, codingPath: codingPath)
            let storage = columnDateStorage[columnName(at: index)] ?? dateStorage
            do {
                if let date = try storage.date(from: value) as? T { return date }
            } catch {
                throw failure(value, at: index, expected: T.self, codingPath: codingPath, error)
            }
        }
        if let convertible = T.self as? any DatabaseValueConvertible.Type {
            return try decodeConvertible(convertible, at: index, codingPath: codingPath)
        }
        // Known JSON types decode straight from the column's bytes, with no String in between.
        if JSONTypeMemo.isKnownJSON(T.self, encoding: false), let bytes = source.sourceJSONBytes(at: index) {
            do {
                return try JSONColumn.decoder.decode(T.self, from: bytes)
            } catch let error as DecodingError {
                let value = try value(at: index, expected: T.self, codingPath: codingPath)
                throw failure(
                    value, at: index, expected: T.self, codingPath: codingPath,
                    JSONColumnError(underlying: error))
            }
        }
        let value = try value(at: index, expected: T.self, codingPath: codingPath)
        do {
            return try ColumnValueDecoding.decode(T.self, from: value, dateStorage: dateStorage)
        } catch {
            throw failure(value, at: index, expected: T.self, codingPath: codingPath, error)
        }
    }

    func decodeConvertible<T>(
        _ convertible: any DatabaseValueConvertible.Type, at index: Int, codingPath: [any CodingKey]
    ) throws -> T {
        let value = try value(at: index, expected: T.self, codingPath: codingPath)
        do {
            if let result = try convertible.fromDatabaseValue(value) as? T { return result }
            throw ValueConversionError(value: value, to: T.self)
        } catch {
            throw failure(value, at: index, expected: T.self, codingPath: codingPath, error)
        }
    }

    /// Decodes a primitive the keyed container reads directly.
    @inline(__always)
    func decodePrimitive<T: DatabaseValueConvertible>(
        _ type: T.Type, at index: Int, codingPath: [any CodingKey]
    ) throws -> T {
        let value = try value(at: index, expected: T.self, codingPath: codingPath)
        do {
            return try T.fromDatabaseValue(value)
        } catch {
            throw failure(value, at: index, expected: T.self, codingPath: codingPath, error)
        }
    }

    /// Wraps any error about a column value into a ``RowDecodingError`` with full context.
    func failure(
        _ value: DatabaseValue, at index: Int, expected: Any.Type, codingPath: [any CodingKey],
        _ error: any Error
    ) -> any Error {
        if error is RowDecodingError { return error }
        var reason: String?
        var isJSON = false
        var isInvalid = false
        switch error {
        case let conversion as ValueConversionError:
            reason = conversion.reason
        case let json as JSONColumnError:
            isJSON = true
            reason = ColumnValueDecoding.describe(json.underlying)
        case let decoding as DecodingError:
            isInvalid = true
            reason = ColumnValueDecoding.describe(decoding)
        default:
            reason = "\(error)"
        }
        return RowDecodingError.value(
            value, column: columnName(at: index), decodedType: typeName,
            expectedType: String(describing: expected),
            codingPath: codingPath.map(\.stringValue), sql: source.sourceSQL, reason: reason, isJSON: isJSON,
            isInvalid: isInvalid)
    }
}

/// Finds column indexes by key name, learning the order in which a type asks for its keys on
/// the first row so that later rows compare short strings instead of hashing them.
struct ColumnLookup {
    private var names: [String] = []
    private var indexes: [Int?] = []
    private var position = 0
    private var lastName: String?
    private var lastIndex: Int?

    mutating func beginRow() {
        position = 0
        lastName = nil
    }

    mutating func index(of name: String, in source: some ColumnSource) -> Int? {
        // `decodeIfPresent` asks for the same key up to three times in a row.
        if name == lastName { return lastIndex }
        let found: Int?
        if position < names.count && names[position] == name {
            found = indexes[position]
            position += 1
        } else if let known = names.firstIndex(of: name) {
            found = indexes[known]
            position = known + 1
        } else {
            found = source.sourceColumnIndex(named: name)
            names.append(name)
            indexes.append(found)
            position = names.count
        }
        lastName = name
        lastIndex = found
        return found
    }
}
