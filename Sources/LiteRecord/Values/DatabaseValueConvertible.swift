import Foundation

/// A type that stores itself in one SQLite column: the value-codec protocol.
///
/// Every value LiteRecord binds or reads goes through this protocol. Conform a type of yours
/// to choose its storage; types that do not conform are stored as JSON text when they are
/// `Codable`.
///
/// ```swift
/// struct Money: DatabaseValueConvertible {
///     var cents: Int64
///     static var databaseColumnType: DatabaseColumnType { .integer }
///     func databaseValue() throws -> DatabaseValue { .integer(cents) }
///     static func fromDatabaseValue(_ value: DatabaseValue) throws -> Money {
///         guard case .integer(let cents) = value else {
///             throw ValueConversionError(value: value, to: Money.self)
///         }
///         return Money(cents: cents)
///     }
/// }
/// ```
public protocol DatabaseValueConvertible {
    /// The declared column type used in `CREATE TABLE`.
    static var databaseColumnType: DatabaseColumnType { get }

    /// The value to store.
    ///
    /// - Throws: ``ValueConversionError`` when the value cannot be stored without loss
    ///   (a `UInt64` above `Int64.max`, for example).
    func databaseValue() throws -> DatabaseValue

    /// Reads a value back.
    ///
    /// - Parameter value: What the column holds.
    /// - Throws: ``ValueConversionError`` when `value` is not a valid `Self`. Never crashes.
    static func fromDatabaseValue(_ value: DatabaseValue) throws -> Self
}

/// The declared type of a column, as written in `CREATE TABLE`.
public struct DatabaseColumnType: RawRepresentable, Hashable, Sendable {
    /// The SQL type name.
    public let rawValue: String
    /// Wraps an SQL type name.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// `INTEGER`: integer affinity.
    public static let integer = DatabaseColumnType(rawValue: "INTEGER")
    /// `REAL`: floating-point affinity.
    public static let real = DatabaseColumnType(rawValue: "REAL")
    /// `TEXT`: text affinity.
    public static let text = DatabaseColumnType(rawValue: "TEXT")
    /// `BLOB`: no affinity; values are stored as given.
    public static let blob = DatabaseColumnType(rawValue: "BLOB")
    /// `NUMERIC`: numeric affinity.
    public static let numeric = DatabaseColumnType(rawValue: "NUMERIC")
    /// JSON text; SQLite gives a column declared `JSON` numeric affinity, which leaves text as is.
    public static let json = DatabaseColumnType(rawValue: "JSON")
    /// No declared type (BLOB affinity): values are stored exactly as bound.
    public static let any = DatabaseColumnType(rawValue: "")
}

/// A stored value that cannot become the Swift type asked for, or a Swift value that cannot be
/// stored without loss.
///
/// The row decoder wraps it with the table, column and coding path; on its own it names the
/// value (its storage class and a short preview) and the Swift type.
public struct ValueConversionError: Error, Sendable, CustomStringConvertible {
    /// The database value involved (what was read, or what a Swift value would have become).
    public let value: DatabaseValue?
    /// The Swift type on the other side of the conversion.
    public let swiftType: String
    /// Why the conversion failed, when more can be said than "not a valid X".
    public let reason: String?

    /// Reports that `value` cannot be read as `type`.
    ///
    /// - Parameters:
    ///   - value: The stored value.
    ///   - type: The Swift type that was expected.
    ///   - reason: An optional precise explanation.
    public init<T>(value: DatabaseValue, to type: T.Type, reason: String? = nil) {
        self.value = value
        self.swiftType = String(describing: type)
        self.reason = reason
    }

    /// Reports that a Swift value of `type` cannot be stored.
    ///
    /// - Parameters:
    ///   - type: The Swift type of the value.
    ///   - reason: Why it cannot be stored.
    public init<T>(storing type: T.Type, reason: String) {
        self.value = nil
        self.swiftType = String(describing: type)
        self.reason = reason
    }

    public var description: String {
        guard let value else {
            return "cannot store \(swiftType): \(reason ?? "unsupported value")"
        }
        var text = "cannot read \(value.storageClassName) value \(value) as \(swiftType)"
        if let reason { text += ": \(reason)" }
        return text
    }
}
