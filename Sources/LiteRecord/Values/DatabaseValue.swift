import Foundation

/// One SQLite value in one of its five storage classes.
///
/// Text is a Swift `String`, so it always holds valid UTF-8 (NUL characters included). Bytes
/// that are not valid UTF-8 live in a ``blob(_:)``.
public enum DatabaseValue: Hashable, Sendable {
    /// SQL NULL.
    case null
    /// A 64-bit signed integer.
    case integer(Int64)
    /// A 64-bit IEEE floating point number.
    case real(Double)
    /// UTF-8 text.
    case text(String)
    /// Raw bytes.
    case blob(Data)

    /// Whether this is SQL NULL.
    public var isNull: Bool {
        if case .null = self { return true }
        return false
    }

    /// The storage class as SQLite names it: `NULL`, `INTEGER`, `REAL`, `TEXT` or `BLOB`.
    public var storageClassName: String {
        switch self {
        case .null: "NULL"
        case .integer: "INTEGER"
        case .real: "REAL"
        case .text: "TEXT"
        case .blob: "BLOB"
        }
    }
}

extension DatabaseValue: CustomStringConvertible {
    /// An SQL-literal-like rendering, shortened for long text and blobs: `42`, `'Alice'`, `x'00ff'`.
    public var description: String {
        switch self {
        case .null: return "NULL"
        case .integer(let value): return String(value)
        case .real(let value): return String(value)
        case .text(let value):
            // Cut by Unicode scalars: one character may hold any number of them.
            let shown = SafeDescription.cut(value, toScalars: SafeDescription.textLimit)
            return "'" + shown.replacingOccurrences(of: "'", with: "''") + "'"
        case .blob(let data):
            let hex = data.prefix(24).map { String(format: "%02x", $0) }.joined()
            return "x'\(hex)'" + (data.count > 24 ? "... (\(data.count) bytes)" : "")
        }
    }
}

extension DatabaseValue: ExpressibleByNilLiteral, ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral,
    ExpressibleByStringLiteral
{
    public init(nilLiteral: ()) { self = .null }
    public init(integerLiteral value: Int64) { self = .integer(value) }
    public init(floatLiteral value: Double) { self = .real(value) }
    public init(stringLiteral value: String) { self = .text(value) }
}
