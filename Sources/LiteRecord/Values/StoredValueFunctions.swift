import CSQLite
import Foundation

/// The SQL functions and the collation that let a query compare values as what they are, not
/// as the form another tool (or another ``DateStorage``) stored them in.
///
/// They are registered on every connection and used only in the SQL of queries, never in a
/// table definition, so other tools still read and write the file without them.
/// - `literecord_instant(x, storage)`: the `timeIntervalSinceReferenceDate` a `Date` column
///   value decodes to under the storage code (see ``DateStorage/functionCode``), or NULL when it
///   is not a date. Exactly the `Double` the decoder produces, so `=` in SQL is `==` in Swift.
/// - `literecord_date_text(interval, storage)`: the inverse, for `min`/`max`: the canonical
///   text of the instant (a number in the storage's unit for years outside 0000...9999).
/// - `literecord_uuid(x)`: the 16 bytes of a UUID stored as text (any letter case) or as a
///   16-byte blob, or NULL; bytes sort as `UUID`'s `<` does.
/// - `literecord_uuid_text(x)`: the same UUID as LiteRecord writes it (upper case text), or
///   NULL; with `lower(...)` and `literecord_uuid`, every spelling of a key another table holds.
/// - `literecord_decimal(x)`: a decimal column value as the text it decodes from (an INTEGER
///   as its digits, a REAL as the shortest digits that read back as it), for the collation.
/// - `literecord_decimal_key(x)`: the one text every spelling of a decimal maps to (`1.50`,
///   `1.5` and the REAL `1.5` all give `1.5`), so `=` and an index compare decimals by value;
///   the value itself when it is not a decimal.
/// - collation `literecord_decimal`: compares decimal text by value, exactly (`Decimal`'s
///   order); text that is not a number sorts after every number, by bytes.
/// - aggregate `literecord_decimal_sum(x)`: a decimal column's exact sum (see ``DecimalSum``).
/// - aggregate `literecord_sum(x)`: an integer column's exact sum, whatever the row order
///   (see ``IntegerSum``).
enum StoredValueFunctions {
    static let instant = "literecord_instant"
    static let dateText = "literecord_date_text"
    static let uuid = "literecord_uuid"
    static let uuidText = "literecord_uuid_text"
    static let decimal = "literecord_decimal"
    static let decimalKey = "literecord_decimal_key"

    /// Registers the functions and the collation on a connection.
    static func register(on handle: OpaquePointer) throws(DatabaseError) {
        let flags = SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS
        let functions: [(String, Int32, SQLFunctionBody)] = [
            (instant, 2, instantFunction),
            (dateText, 2, dateTextFunction),
            (uuid, 1, uuidFunction),
            (uuidText, 1, uuidTextFunction),
            (decimal, 1, decimalFunction),
            (decimalKey, 1, decimalKeyFunction),
        ]
        for (name, arity, body) in functions {
            let code = sqlite3_create_function_v2(handle, name, arity, flags, nil, body, nil, nil, nil)
            guard code == SQLITE_OK else { throw registrationError(handle, code, name) }
        }
        let code = sqlite3_create_collation_v2(handle, decimal, SQLITE_UTF8, nil, decimalCollation, nil)
        guard code == SQLITE_OK else { throw registrationError(handle, code, decimal) }
        let sumCode = DecimalSum.register(on: handle)
        guard sumCode == SQLITE_OK else { throw registrationError(handle, sumCode, DecimalSum.name) }
        let integerSumCode = IntegerSum.register(on: handle)
        guard integerSumCode == SQLITE_OK else {
            throw registrationError(handle, integerSumCode, IntegerSum.name)
        }
    }

    private static func registrationError(_ handle: OpaquePointer, _ code: Int32, _ name: String)
        -> DatabaseError
    {
        DatabaseError(
            resultCode: ResultCode(rawValue: code),
            message: "could not register the SQL function \(name): "
                + String(cString: sqlite3_errmsg(handle)))
    }
}

// MARK: - Reading arguments

typealias SQLFunctionBody =
    @convention(c) (OpaquePointer?, Int32, UnsafeMutablePointer<OpaquePointer?>?) -> Void

/// The argument as a ``DatabaseValue``; text that is not valid UTF-8 is `nil`.
private func databaseValue(_ value: OpaquePointer?) -> DatabaseValue? {
    switch sqlite3_value_type(value) {
    case SQLITE_INTEGER: return .integer(sqlite3_value_int64(value))
    case SQLITE_FLOAT: return .real(sqlite3_value_double(value))
    case SQLITE_TEXT: return Statement.text(of: value).map { .text($0) }
    case SQLITE_BLOB:
        let count = Int(sqlite3_value_bytes(value))
        guard count > 0, let bytes = sqlite3_value_blob(value) else { return .blob(Data()) }
        return .blob(Data(bytes: bytes, count: count))
    default: return .null
    }
}

private func argument(_ arguments: UnsafeMutablePointer<OpaquePointer?>?, _ index: Int) -> OpaquePointer? {
    arguments?[index]
}

extension DateStorage {
    /// The code a query passes to `literecord_instant` for this strategy.
    var functionCode: Int64 {
        switch self {
        case .text: 0
        case .unixSeconds: 1
        case .unixMilliseconds: 2
        case .julianDay: 3
        }
    }

    init?(functionCode: Int64) {
        switch functionCode {
        case 0: self = .text
        case 1: self = .unixSeconds
        case 2: self = .unixMilliseconds
        case 3: self = .julianDay
        default: return nil
        }
    }
}

// MARK: - Dates

private func instantFunction(
    _ context: OpaquePointer?, _ count: Int32, _ arguments: UnsafeMutablePointer<OpaquePointer?>?
) {
    let value = argument(arguments, 0)
    guard let storage = DateStorage(functionCode: sqlite3_value_int64(argument(arguments, 1))) else {
        return sqlite3_result_error(context, "literecord_instant: unknown date storage", -1)
    }
    let type = sqlite3_value_type(value)
    if type == SQLITE_TEXT, let bytes = sqlite3_value_text(value) {
        // Date text is parsed from SQLite's own bytes: no String for the common case.
        let buffer = UnsafeBufferPointer(start: bytes, count: Int(sqlite3_value_bytes(value)))
        do throws(DateText.ParseFailure) {
            if case .interval(let interval) = try DateText.parse(buffer) {
                return sqlite3_result_double(context, interval)
            }
        } catch {
            return sqlite3_result_null(context)
        }
    }
    guard type != SQLITE_NULL, let stored = databaseValue(value),
        let date = try? storage.date(from: stored)
    else { return sqlite3_result_null(context) }
    sqlite3_result_double(context, date.timeIntervalSinceReferenceDate)
}

private func dateTextFunction(
    _ context: OpaquePointer?, _ count: Int32, _ arguments: UnsafeMutablePointer<OpaquePointer?>?
) {
    let value = argument(arguments, 0)
    guard sqlite3_value_type(value) == SQLITE_FLOAT || sqlite3_value_type(value) == SQLITE_INTEGER,
        let storage = DateStorage(functionCode: sqlite3_value_int64(argument(arguments, 1)))
    else { return sqlite3_result_null(context) }
    let date = Date(timeIntervalSinceReferenceDate: sqlite3_value_double(value))
    // Text first: it reads back exactly under every strategy. Years outside 0000...9999 have
    // no text; they take the strategy's own (numeric) form.
    let stored = (try? DateStorage.text.databaseValue(for: date)) ?? (try? storage.databaseValue(for: date))
    switch stored {
    case .text(let text)?: sqlite3_result_text(context, text, -1, literecord_sqlite_transient())
    case .real(let number)?: sqlite3_result_double(context, number)
    case .integer(let number)?: sqlite3_result_int64(context, number)
    default: sqlite3_result_null(context)
    }
}

// MARK: - UUIDs

private func uuidFunction(
    _ context: OpaquePointer?, _ count: Int32, _ arguments: UnsafeMutablePointer<OpaquePointer?>?
) {
    guard let uuid = storedUUID(argument(arguments, 0)) else { return sqlite3_result_null(context) }
    withUnsafeBytes(of: uuid.uuid) { bytes in
        sqlite3_result_blob(context, bytes.baseAddress, 16, literecord_sqlite_transient())
    }
}

private func uuidTextFunction(
    _ context: OpaquePointer?, _ count: Int32, _ arguments: UnsafeMutablePointer<OpaquePointer?>?
) {
    guard let uuid = storedUUID(argument(arguments, 0)) else { return sqlite3_result_null(context) }
    sqlite3_result_text(context, uuid.uuidString, -1, literecord_sqlite_transient())
}

/// The UUID a text or blob argument holds in any spelling UUIDs are read from; `nil` for
/// anything else, which the UUID functions turn into NULL.
private func storedUUID(_ value: OpaquePointer?) -> UUID? {
    let type = sqlite3_value_type(value)
    guard type == SQLITE_TEXT || type == SQLITE_BLOB, let stored = databaseValue(value) else { return nil }
    return try? UUID.fromDatabaseValue(stored)
}

// MARK: - Decimals

private func decimalFunction(
    _ context: OpaquePointer?, _ count: Int32, _ arguments: UnsafeMutablePointer<OpaquePointer?>?
) {
    let value = argument(arguments, 0)
    switch sqlite3_value_type(value) {
    case SQLITE_TEXT:
        sqlite3_result_value(context, value)
    case SQLITE_INTEGER:
        sqlite3_result_text(context, String(sqlite3_value_int64(value)), -1, literecord_sqlite_transient())
    case SQLITE_FLOAT:
        // The digits the decoder reads a REAL as.
        let number = sqlite3_value_double(value)
        guard number.isFinite else { return sqlite3_result_null(context) }
        sqlite3_result_text(context, number.description, -1, literecord_sqlite_transient())
    default:
        sqlite3_result_null(context)
    }
}

private func decimalKeyFunction(
    _ context: OpaquePointer?, _ count: Int32, _ arguments: UnsafeMutablePointer<OpaquePointer?>?
) {
    let value = argument(arguments, 0)
    // The decoder's reading, in `Decimal`'s own (shortest) text, as relation keys group in Swift.
    guard let stored = databaseValue(value), let decimal = try? Decimal.fromDatabaseValue(stored) else {
        return sqlite3_result_value(context, value)
    }
    sqlite3_result_text(context, decimal.description, -1, literecord_sqlite_transient())
}

private func decimalCollation(
    _ state: UnsafeMutableRawPointer?, _ leftCount: Int32, _ left: UnsafeRawPointer?, _ rightCount: Int32,
    _ right: UnsafeRawPointer?
) -> Int32 {
    let leftBytes = UnsafeRawBufferPointer(start: left, count: Int(leftCount))
    let rightBytes = UnsafeRawBufferPointer(start: right, count: Int(rightCount))
    switch (DecimalText.value(leftBytes), DecimalText.value(rightBytes)) {
    case (let a?, let b?): return a < b ? -1 : (b < a ? 1 : 0)
    case (.some, nil): return -1
    case (nil, .some): return 1
    case (nil, nil):
        // Not numbers: by bytes, then length, as BINARY.
        let common = min(leftBytes.count, rightBytes.count)
        if common > 0, let l = leftBytes.baseAddress, let r = rightBytes.baseAddress {
            let order = memcmp(l, r, common)
            if order != 0 { return order < 0 ? -1 : 1 }
        }
        return leftBytes.count == rightBytes.count ? 0 : (leftBytes.count < rightBytes.count ? -1 : 1)
    }
}

/// Decimal text as the decoder reads it.
enum DecimalText {
    static func value(_ bytes: UnsafeRawBufferPointer) -> Decimal? {
        let typed = bytes.assumingMemoryBound(to: UInt8.self)
        guard DateText.isDecimalNumber(typed) else { return nil }
        let text = String(decoding: typed, as: UTF8.self)
        guard let decimal = Decimal(string: text, locale: decimalLocale), !decimal.isNaN else { return nil }
        return decimal
    }

    private static let decimalLocale = Locale(identifier: "en_US_POSIX")
}
