import CSQLite
import Foundation

/// The common property types, read straight from SQLite's value for the column: one call into
/// SQLite per property, no ``DatabaseValue`` in between. Anything unusual (another storage
/// class, a value out of range, bad text) falls through to the value-codec protocol, which
/// decides and reports errors, so these paths never accept what the general one rejects.
extension RowDecodingContext {
    /// The current row's value at `index` in the statement, or `nil` when decoding a copied row.
    ///
    /// One call into SQLite per column instead of one for the type and one for the value. The
    /// value is "unprotected" in SQLite's terms, which only matters when several threads share a
    /// connection; a fetch has its connection to itself for as long as it decodes.
    @inline(__always)
    func statementValue(at index: Int) -> OpaquePointer? {
        guard let statementHandle else { return nil }
        return sqlite3_column_value(statementHandle, Int32(index))
    }

    /// Reads a property through `fast` when SQLite's value suits it, through the value-codec
    /// protocol otherwise (which decides and reports errors). `fast` is one of the readers below.
    @inline(__always)
    func read<T: DatabaseValueConvertible>(
        _ type: T.Type, at index: Int, key: some CodingKey, fast: (OpaquePointer) -> T?
    ) throws -> T {
        if let value = statementValue(at: index), let result = fast(value) { return result }
        return try decodePrimitive(T.self, at: index, key: key)
    }

    /// Reads an optional property with one call into SQLite: NULL is `nil`, the rest reads as
    /// ``read(_:at:key:fast:)`` does.
    @inline(__always)
    func readOptional<T: DatabaseValueConvertible>(
        _ type: T.Type, at index: Int, key: some CodingKey, fast: (OpaquePointer) -> T?
    ) throws -> T? {
        if let value = statementValue(at: index) {
            if sqlite3_value_type(value) == SQLITE_NULL { return nil }
            if let result = fast(value) { return result }
        } else if isNull(at: index) {
            return nil
        }
        return try decodePrimitive(T.self, at: index, key: key)
    }

    // MARK: What each type reads from SQLite's value; `nil` leaves it to the general path

    /// An integer in range; REAL with no fraction, range errors and the rest go through the
    /// value-codec protocol.
    @inline(__always)
    static func integer<T: FixedWidthInteger>(_ value: OpaquePointer) -> T? {
        sqlite3_value_type(value) == SQLITE_INTEGER ? T(exactly: sqlite3_value_int64(value)) : nil
    }

    /// 0 or 1; anything else is the value-codec protocol's error.
    @inline(__always)
    static func bool(_ value: OpaquePointer) -> Bool? {
        guard sqlite3_value_type(value) == SQLITE_INTEGER else { return nil }
        switch sqlite3_value_int64(value) {
        case 0: return false
        case 1: return true
        default: return nil
        }
    }

    /// REAL, or INTEGER converted by SQLite.
    @inline(__always)
    static func double(_ value: OpaquePointer) -> Double? {
        let storage = sqlite3_value_type(value)
        return storage == SQLITE_FLOAT || storage == SQLITE_INTEGER ? sqlite3_value_double(value) : nil
    }

    /// Valid UTF-8 text; other text is the value-codec protocol's error.
    @inline(__always)
    static func string(_ value: OpaquePointer) -> String? {
        sqlite3_value_type(value) == SQLITE_TEXT ? Statement.text(of: value) : nil
    }

    /// Reads an optional property of any type: NULL is `nil`, the rest reads as
    /// ``decode(_:at:key:)`` does. A date stored as text is read with one call into SQLite.
    func decodeOptional<T: Decodable>(_ type: T.Type, at index: Int, key: some CodingKey) throws -> T? {
        if let value = statementValue(at: index) {
            let storage = sqlite3_value_type(value)
            if storage == SQLITE_NULL { return nil }
            // `T` is `Date`: the bit cast is the identity.
            if T.self == Date.self, storage == SQLITE_TEXT, let date = textDate(value) {
                return unsafeBitCast(date, to: T.self)
            }
        } else if isNull(at: index) {
            return nil
        }
        return try decode(T.self, at: index, key: key)
    }

    /// A `[String]` stored as plain JSON text, read straight from SQLite's bytes; `nil` leaves
    /// everything else to `JSONDecoder` and its errors.
    @inline(__always)
    func textStringArray(at index: Int) -> [String]? {
        guard let value = statementValue(at: index), sqlite3_value_type(value) == SQLITE_TEXT,
            let bytes = sqlite3_value_text(value)
        else { return nil }
        return StringArrayJSON.parse(
            UnsafeBufferPointer(start: bytes, count: Int(sqlite3_value_bytes(value))))
    }

    /// A date stored as text, parsed straight from SQLite's bytes (text is read the same way in
    /// every ``DateStorage``); `nil` leaves numbers, NULL and bad text to the general path and
    /// its errors.
    @inline(__always)
    func textDate(at index: Int) -> Date? {
        guard let value = statementValue(at: index), sqlite3_value_type(value) == SQLITE_TEXT else {
            return nil
        }
        return textDate(value)
    }

    /// The date held by a TEXT value; `nil` when the text is not a date.
    @inline(__always)
    func textDate(_ value: OpaquePointer) -> Date? {
        guard let bytes = sqlite3_value_text(value) else { return nil }
        let text = UnsafeBufferPointer(start: bytes, count: Int(sqlite3_value_bytes(value)))
        guard case .interval(let interval)? = try? DateText.parse(text) else { return nil }
        return Date(timeIntervalSinceReferenceDate: interval)
    }
}
