import Foundation

/// Reads one column value into a type that has no ``DatabaseValueConvertible`` conformance:
/// a single primitive for types that decode one (raw-value enums), JSON for the others.
enum ColumnValueDecoding {
    static func decode<T: Decodable>(
        _ type: T.Type, from value: DatabaseValue, dateStorage: DateStorage
    ) throws -> T {
        if JSONTypeMemo.isKnownJSON(T.self, encoding: false) {
            return try decodeJSON(T.self, from: value)
        }
        do {
            return try T(from: ColumnValueDecoder(value: value, dateStorage: dateStorage))
        } catch is NeedsJSON {
            JSONTypeMemo.rememberJSON(T.self, encoding: false)
            return try decodeJSON(T.self, from: value)
        }
    }

    static func decodeJSON<T: Decodable>(_ type: T.Type, from value: DatabaseValue) throws -> T {
        let data: Data
        switch value {
        case .text(let text): data = Data(text.utf8)
        case .blob(let blob): data = blob
        default: throw ValueConversionError(value: value, to: T.self, reason: "expected JSON text")
        }
        do {
            return try JSONColumn.decoder.decode(T.self, from: data)
        } catch let error as DecodingError {
            throw JSONColumnError(underlying: error)
        }
    }

    /// A one-line explanation of a decoding error, with the path inside the value.
    static func describe(_ error: DecodingError) -> String {
        let context: DecodingError.Context
        var prefix = ""
        switch error {
        case .dataCorrupted(let errorContext):
            context = errorContext
        case .keyNotFound(let key, let errorContext):
            context = errorContext
            prefix = "missing key \"\(key.stringValue)\": "
        case .typeMismatch(let type, let errorContext):
            context = errorContext
            prefix = "expected \(type): "
        case .valueNotFound(let type, let errorContext):
            context = errorContext
            prefix = "missing \(type): "
        @unknown default:
            return "\(error)"
        }
        let path = context.codingPath.map(\.stringValue).joined(separator: ".")
        var text = prefix + context.debugDescription
        if !path.isEmpty { text += " at \(path)" }
        if let underlying = context.underlyingError { text += " (\(underlying))" }
        return text
    }
}

/// JSON text that does not decode into the expected type (malformed, or of another shape).
struct JSONColumnError: Error {
    let underlying: DecodingError
}

/// A decoder over one column value that hands out single values and throws ``NeedsJSON``
/// as soon as a container is asked for.
struct ColumnValueDecoder: Decoder, SingleValueDecodingContainer {
    let value: DatabaseValue
    let dateStorage: DateStorage
    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        throw NeedsJSON()
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer { throw NeedsJSON() }
    func singleValueContainer() throws -> any SingleValueDecodingContainer { self }

    func decodeNil() -> Bool { value.isNull }
    func decode(_ type: Bool.Type) throws -> Bool { try Bool.fromDatabaseValue(value) }
    func decode(_ type: String.Type) throws -> String { try String.fromDatabaseValue(value) }
    func decode(_ type: Double.Type) throws -> Double { try Double.fromDatabaseValue(value) }
    func decode(_ type: Float.Type) throws -> Float { try Float.fromDatabaseValue(value) }
    func decode(_ type: Int.Type) throws -> Int { try Int.fromDatabaseValue(value) }
    func decode(_ type: Int8.Type) throws -> Int8 { try Int8.fromDatabaseValue(value) }
    func decode(_ type: Int16.Type) throws -> Int16 { try Int16.fromDatabaseValue(value) }
    func decode(_ type: Int32.Type) throws -> Int32 { try Int32.fromDatabaseValue(value) }
    func decode(_ type: Int64.Type) throws -> Int64 { try Int64.fromDatabaseValue(value) }
    func decode(_ type: UInt.Type) throws -> UInt { try UInt.fromDatabaseValue(value) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try UInt8.fromDatabaseValue(value) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try UInt16.fromDatabaseValue(value) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try UInt32.fromDatabaseValue(value) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try UInt64.fromDatabaseValue(value) }

    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        if T.self == Date.self, let date = try dateStorage.date(from: value) as? T {
            return date
        }
        if let convertible = T.self as? any DatabaseValueConvertible.Type,
            let result = try convertible.fromDatabaseValue(value) as? T
        {
            return result
        }
        return try ColumnValueDecoding.decode(T.self, from: value, dateStorage: dateStorage)
    }
}
