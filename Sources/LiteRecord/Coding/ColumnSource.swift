import CSQLite
import Foundation

/// Where a row decoder reads columns from: the statement's current row (the fast path of
/// every fetch) or a ``Row`` already copied out.
protocol ColumnSource {
    /// The SQL that produced the row, for error messages.
    var sourceSQL: String? { get }
    /// All column names, for error messages.
    var sourceColumnNames: [String] { get }
    /// Number of columns.
    var sourceColumnCount: Int { get }
    /// The index of a column by name, or `nil`.
    func sourceColumnIndex(named name: String) -> Int?
    /// Whether the column holds NULL.
    func sourceIsNull(at index: Int) -> Bool
    /// The column's value; throws ``ValueConversionError`` for text that is not UTF-8.
    func sourceValue(at index: Int) throws -> DatabaseValue
    /// The bytes of a TEXT or BLOB column, or `nil` for other storage classes.
    func sourceJSONBytes(at index: Int) -> Data?
}

extension Statement: ColumnSource {
    var sourceSQL: String? { sql }
    var sourceColumnNames: [String] { columns.names }
    var sourceColumnCount: Int { columnCount }
    func sourceColumnIndex(named name: String) -> Int? { columns.index(of: name) }
    func sourceIsNull(at index: Int) -> Bool { storageClass(at: index) == SQLITE_NULL }
    func sourceValue(at index: Int) throws -> DatabaseValue { try value(at: index) }
    func sourceJSONBytes(at index: Int) -> Data? { jsonBytes(at: index) }
}

/// A copied row as a column source.
struct CopiedRowSource: ColumnSource {
    let row: Row
    var sourceSQL: String? { nil }
    var sourceColumnNames: [String] { row.columnNames }
    var sourceColumnCount: Int { row.count }
    func sourceColumnIndex(named name: String) -> Int? { row.columns.index(of: name) }
    func sourceIsNull(at index: Int) -> Bool { row.values[index].isNull }
    func sourceValue(at index: Int) throws -> DatabaseValue { row.values[index] }
    func sourceJSONBytes(at index: Int) -> Data? {
        switch row.values[index] {
        case .text(let text): Data(text.utf8)
        case .blob(let data): data
        default: nil
        }
    }
}
