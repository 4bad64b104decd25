/// One result row: its column names and values, copied out of the statement.
///
/// Access is by 0-based index or by column name, and always checked: a column that does not
/// exist is an error, never a crash or a silent NULL.
///
/// ```swift
/// for row in try db.fetchAll(Row.self, sql: "SELECT name, score FROM players") {
///     let name: String = try row.value(named: "name")
///     let score = try row.value(Int.self, at: 1)
/// }
/// ```
public struct Row: Sendable, Hashable, CustomStringConvertible {
    let columns: RowColumns
    /// The values, in column order.
    public let values: [DatabaseValue]

    init(columns: RowColumns, values: [DatabaseValue]) {
        self.columns = columns
        self.values = values
    }

    /// Creates a row from (column, value) pairs.
    ///
    /// - Parameter pairs: Column names and their values, in order.
    public init(_ pairs: KeyValuePairs<String, DatabaseValue>) {
        self.init(columns: RowColumns(names: pairs.map(\.key)), values: pairs.map(\.value))
    }

    /// The number of columns.
    public var count: Int { values.count }
    /// The column names, in order.
    public var columnNames: [String] { columns.names }

    /// The value at a column index.
    ///
    /// - Parameter index: A 0-based column index.
    /// - Throws: ``RowAccessError`` when the index is out of range.
    public func value(at index: Int) throws -> DatabaseValue {
        guard values.indices.contains(index) else {
            throw RowAccessError(column: "#\(index)", availableColumns: columns.names)
        }
        return values[index]
    }

    /// The value of a named column, matched exactly, else ignoring ASCII case as SQL does.
    ///
    /// - Parameter name: The column name.
    /// - Throws: ``RowAccessError`` naming the missing column and the ones that exist.
    public func value(named name: String) throws -> DatabaseValue {
        guard let index = columns.index(of: name) else {
            throw RowAccessError(column: name, availableColumns: columns.names)
        }
        return values[index]
    }

    /// The value at a column index, converted to a Swift type.
    ///
    /// - Parameters:
    ///   - type: The Swift type to read.
    ///   - index: A 0-based column index.
    /// - Throws: ``RowAccessError`` for a missing column, ``ValueConversionError`` when the stored
    ///   value is not a valid `T` (NULL into a non-optional, 300 into `Int8`, ...).
    public func value<T: DatabaseValueConvertible>(_ type: T.Type = T.self, at index: Int) throws -> T {
        try T.fromDatabaseValue(value(at: index))
    }

    /// The value of a named column, converted to a Swift type.
    ///
    /// - Parameters:
    ///   - type: The Swift type to read.
    ///   - name: The column name.
    /// - Throws: ``RowAccessError`` for a missing column, ``ValueConversionError`` for a value
    ///   that is not a valid `T`.
    public func value<T: DatabaseValueConvertible>(_ type: T.Type = T.self, named name: String) throws -> T {
        try T.fromDatabaseValue(value(named: name))
    }

    /// `[name: 'Alice', score: 120]`
    public var description: String {
        "[" + zip(columns.names, values).map { "\($0): \($1)" }.joined(separator: ", ") + "]"
    }
}

/// A column asked of a ``Row`` that the row does not have.
public struct RowAccessError: Error, Sendable, CustomStringConvertible {
    /// The column asked for: its name, or `#index`.
    public let column: String
    /// The columns the row has.
    public let availableColumns: [String]

    public var description: String {
        "no column \(column) in row; columns are: \(availableColumns.joined(separator: ", "))"
    }
}

/// Column names of a result set with a lookup table, built once per statement and shared by
/// every row it produces.
package final class RowColumns: Sendable, Hashable {
    package let names: [String]
    private let exact: [String: Int]
    private let folded: [String: Int]

    package init(names: [String]) {
        self.names = names
        var exact: [String: Int] = [:]
        var folded: [String: Int] = [:]
        // The first column of a name wins, as in SQLite's own lookups.
        for (index, name) in names.enumerated().reversed() {
            exact[name] = index
            folded[RowColumns.fold(name)] = index
        }
        self.exact = exact
        self.folded = folded
    }

    package func index(of name: String) -> Int? {
        exact[name] ?? folded[RowColumns.fold(name)]
    }

    /// SQL identifiers compare ignoring ASCII case only.
    static func fold(_ name: String) -> String {
        String(decoding: name.utf8.map { (65...90).contains($0) ? $0 + 32 : $0 }, as: UTF8.self)
    }

    package static func == (lhs: RowColumns, rhs: RowColumns) -> Bool { lhs.names == rhs.names }
    package func hash(into hasher: inout Hasher) { hasher.combine(names) }
}
