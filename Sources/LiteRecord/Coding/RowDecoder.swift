import CSQLite
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
    package var keyToColumn: [String: String]?

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
        try RowDecodingContext(source: CopiedRowSource(row: row), decoder: self, type: T.self).decodeRow(
            T.self, session: nil)
    }
}

/// Everything one fetch needs to decode its rows; made once per statement and reused per row.
///
/// Deliberately not generic: the containers that call it are generic over the user's coding
/// keys, and every extra generic parameter here would be resolved at run time on each call.
final class RowDecodingContext {
    /// Where the row is read from.
    enum Source {
        case statement(Statement)
        case row(CopiedRowSource)
    }

    let source: Source
    /// The statement's handle when reading from a statement: the column reads of
    /// `RowDecodingContext+ColumnReads.swift` go through it, which costs no reference counting
    /// and no enum copy per column.
    let statementHandle: OpaquePointer?
    let dateStorage: DateStorage
    let columnDateStorage: [String: DateStorage]
    /// The decoded type's name, for error messages only: made when first needed, since
    /// `String(describing:)` costs more than decoding a small row.
    private(set) lazy var typeName = String(describing: decodedType)
    private let decodedType: Any.Type
    let keyToColumn: [String: String]?
    /// What this type's decoding learned from earlier rows, and earlier executions of the
    /// statement.
    let plan: DecodingPlan

    init(source: Statement, decoder: RowDecoder, type: Any.Type) {
        let columns = source.columns
        if let known = source.decodingPlan,
            known.fits(type, columns: columns, keyToColumn: decoder.keyToColumn)
        {
            plan = known
        } else {
            plan = DecodingPlan(type: type, columns: columns, keyToColumn: decoder.keyToColumn)
            source.decodingPlan = plan
        }
        self.source = .statement(source)
        self.statementHandle = source.handle
        self.dateStorage = decoder.dateStorage
        self.columnDateStorage = decoder.columnDateStorage
        self.keyToColumn = decoder.keyToColumn
        self.decodedType = type
    }

    init(source: CopiedRowSource, decoder: RowDecoder, type: Any.Type) {
        self.source = .row(source)
        self.statementHandle = nil
        self.dateStorage = decoder.dateStorage
        self.columnDateStorage = decoder.columnDateStorage
        self.keyToColumn = decoder.keyToColumn
        self.decodedType = type
        self.plan = DecodingPlan(type: type, columns: nil, keyToColumn: decoder.keyToColumn)
    }

    /// Decodes the source's current row.
    ///
    /// - Parameter session: The fetch this row belongs to, which keeps the keyed container
    ///   from row to row; `nil` for a single row.
    func decodeRow<Value: Decodable>(_ type: Value.Type, session: RowDecodingSession?) throws -> Value {
        // Plain values, and collections (arrays, sets, dictionaries: JSON), read the first column.
        if plan.readsFirstColumn {
            plan.lookup.beginRow()
            return try decode(Value.self, at: firstColumn(expected: Value.self), key: FirstColumnKey())
        }
        // A struct proven to decode as its layout says is built in place; a row the in-place
        // read declines goes through `init(from:)`, for its value or its error.
        if let statementHandle, let layout = plan.layout(for: Value.self), layout.fill(from: statementHandle)
        {
            return layout.take(Value.self)
        }
        return try decodeThroughInitializer(Value.self, session: session)
    }

    /// The statement and its in-place decoding, when rows of `type` from this source are
    /// built in place (decided once per plan, before or on the first row: it depends on the
    /// columns, not on the values).
    func inPlaceDecoding<Value: Decodable>(_ type: Value.Type) -> (Statement, LayoutBinding)? {
        guard case .statement(let statement) = source, !plan.readsFirstColumn,
            let layout = plan.layout(for: Value.self)
        else { return nil }
        return (statement, layout)
    }

    /// How many rows the last fetch through this plan returned: the capacity to start with.
    var expectedRowCount: Int {
        get { plan.lastRowCount }
        set { plan.lastRowCount = newValue }
    }

    /// Decodes the current row with the type's own `init(from:)`, never in place.
    func decodeThroughInitializer<Value: Decodable>(_ type: Value.Type, session: RowDecodingSession? = nil)
        throws -> Value
    {
        plan.lookup.beginRow()
        return try Value(from: RowDecoding(context: self, session: session))
    }

    // MARK: Source access

    var sql: String? {
        switch source {
        case .statement(let statement): statement.sql
        case .row: nil
        }
    }

    var columnNames: [String] {
        switch source {
        case .statement(let statement): statement.columns.names
        case .row(let row): row.sourceColumnNames
        }
    }

    var columnCount: Int {
        switch source {
        case .statement(let statement): statement.columnCount
        case .row(let row): row.sourceColumnCount
        }
    }

    @inline(__always)
    func isNull(at index: Int) -> Bool {
        if let value = statementValue(at: index) { return sqlite3_value_type(value) == SQLITE_NULL }
        switch source {
        case .statement(let statement): return statement.storageClass(at: index) == SQLITE_NULL
        case .row(let row): return row.sourceIsNull(at: index)
        }
    }

    private func sourceValue(at index: Int) throws -> DatabaseValue {
        switch source {
        case .statement(let statement): try statement.value(at: index)
        case .row(let row): try row.sourceValue(at: index)
        }
    }

    private func jsonBytes(at index: Int) -> Data? {
        switch source {
        case .statement(let statement): statement.jsonBytes(at: index)
        case .row(let row): row.sourceJSONBytes(at: index)
        }
    }

    // MARK: Columns

    @inline(__always)
    func columnIndex(forKey name: String) -> Int? {
        plan.lookup.index(of: name, in: self)
    }

    /// The index of the column with this name, looked up in the source.
    func columnIndex(named name: String) -> Int? {
        switch source {
        case .statement(let statement): statement.sourceColumnIndex(named: name)
        case .row(let row): row.sourceColumnIndex(named: name)
        }
    }

    @inline(__always)
    func requireColumn<Key: CodingKey>(_ key: Key, expected: Any.Type) throws -> Int {
        guard let index = columnIndex(forKey: key.stringValue) else {
            throw RowDecodingError.missingColumn(
                keyToColumn?[key.stringValue] ?? key.stringValue, available: columnNames,
                decodedType: typeName,
                expectedType: String(describing: expected), codingPath: [key.stringValue], sql: sql)
        }
        return index
    }

    func firstColumn<T>(expected: T.Type) throws -> Int {
        guard columnCount > 0 else {
            throw RowDecodingError.missingColumn(
                "#0", available: [], decodedType: typeName, expectedType: String(describing: T.self),
                codingPath: [], sql: sql)
        }
        return 0
    }

    func columnName(at index: Int) -> String {
        let names = columnNames
        return names.indices.contains(index) ? names[index] : "#\(index)"
    }

    // MARK: Values

    func value(at index: Int, expected: Any.Type, key: some CodingKey) throws -> DatabaseValue {
        do {
            return try sourceValue(at: index)
        } catch let error as ValueConversionError {
            // Text that is not UTF-8 is still bytes: a `Data` property reads it as they are.
            if expected == Data.self || expected == Data?.self, let bytes = error.value {
                return bytes
            }
            throw failure(error.value ?? .null, at: index, expected: expected, key: key, error)
        }
    }

    /// Decodes a property of any type from the column at `index`.
    func decode<T: Decodable>(_ type: T.Type, at index: Int, key: some CodingKey) throws -> T {
        if T.self == Date.self {
            // `T` is `Date`: the bit cast is the identity, without a dynamic cast per row.
            if let date = textDate(at: index) { return unsafeBitCast(date, to: T.self) }
            let value = try value(at: index, expected: T.self, key: key)
            let storage =
                columnDateStorage.isEmpty
                ? dateStorage : columnDateStorage[columnName(at: index)] ?? dateStorage
            do {
                return unsafeBitCast(try storage.date(from: value), to: T.self)
            } catch {
                throw failure(value, at: index, expected: T.self, key: key, error)
            }
        }
        let kind = plan.storageKind(of: T.self, at: index)
        if case .convertible(let convertible) = kind {
            return try decodeConvertible(convertible, at: index, key: key)
        }
        // After the conformance check: an app may give `[String]` storage of its own.
        if T.self == [String].self, let strings = textStringArray(at: index) {
            // `T` is `[String]`: the bit cast is the identity.
            return unsafeBitCast(strings, to: T.self)
        }
        // Known JSON types decode straight from the column's bytes, with no String in between.
        if case .json = kind, let bytes = jsonBytes(at: index) {
            do {
                return try JSONColumn.decoder.decode(T.self, from: bytes)
            } catch let error as DecodingError {
                let value = try value(at: index, expected: T.self, key: key)
                throw failure(
                    value, at: index, expected: T.self, key: key, JSONColumnError(underlying: error))
            }
        }
        let value = try value(at: index, expected: T.self, key: key)
        do {
            return try ColumnValueDecoding.decode(T.self, from: value, dateStorage: dateStorage)
        } catch {
            throw failure(value, at: index, expected: T.self, key: key, error)
        }
    }

    func decodeConvertible<T>(
        _ convertible: any DatabaseValueConvertible.Type, at index: Int, key: some CodingKey
    ) throws -> T {
        let value = try value(at: index, expected: T.self, key: key)
        do {
            if let result = try convertible.fromDatabaseValue(value) as? T { return result }
            throw ValueConversionError(value: value, to: T.self)
        } catch {
            throw failure(value, at: index, expected: T.self, key: key, error)
        }
    }

    /// Decodes a primitive through the value-codec protocol.
    func decodePrimitive<T: DatabaseValueConvertible>(_ type: T.Type, at index: Int, key: some CodingKey)
        throws -> T
    {
        let value = try value(at: index, expected: T.self, key: key)
        do {
            return try T.fromDatabaseValue(value)
        } catch {
            throw failure(value, at: index, expected: T.self, key: key, error)
        }
    }

    /// Wraps any error about a column value into a ``RowDecodingError`` with full context.
    func failure(
        _ value: DatabaseValue, at index: Int, expected: Any.Type, key: some CodingKey, _ error: any Error
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
            codingPath: key is FirstColumnKey ? [] : [key.stringValue], sql: sql, reason: reason,
            isJSON: isJSON,
            isInvalid: isInvalid)
    }
}
