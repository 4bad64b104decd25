import Foundation

// MARK: - DatabaseValue itself

extension DatabaseValue: DatabaseValueConvertible {
    public static var databaseColumnType: DatabaseColumnType { .any }
    public func databaseValue() throws -> DatabaseValue { self }
    public static func fromDatabaseValue(_ value: DatabaseValue) throws -> DatabaseValue { value }
}

// MARK: - Optional

extension Optional: DatabaseValueConvertible where Wrapped: DatabaseValueConvertible {
    public static var databaseColumnType: DatabaseColumnType { Wrapped.databaseColumnType }

    public func databaseValue() throws -> DatabaseValue {
        guard let self else { return .null }
        return try self.databaseValue()
    }

    public static func fromDatabaseValue(_ value: DatabaseValue) throws -> Wrapped? {
        if case .null = value { return nil }
        return try Wrapped.fromDatabaseValue(value)
    }
}

// MARK: - Integers

extension DatabaseValueConvertible where Self: FixedWidthInteger {
    /// Integers are declared `INTEGER`.
    public static var databaseColumnType: DatabaseColumnType { .integer }

    /// The integer as a 64-bit signed integer (SQLite's INTEGER, and the 64-bit integer column of another backend).
    ///
    /// - Throws: ``ValueConversionError`` when the value is outside `Int64`'s range (a `UInt64`
    ///   above `Int64.max`).
    public func databaseValue() throws -> DatabaseValue {
        guard let stored = Int64(exactly: self) else {
            throw ValueConversionError(
                storing: Self.self,
                reason:
                    "\(self) is outside the 64-bit signed integer range (Int64) that database integers hold")
        }
        return .integer(stored)
    }

    /// Reads an integer, or a REAL without a fractional part, that fits the type.
    ///
    /// - Throws: ``ValueConversionError`` for a value out of the type's range, a REAL with a
    ///   fraction, or another storage class.
    public static func fromDatabaseValue(_ value: DatabaseValue) throws -> Self {
        switch value {
        case .integer(let stored):
            guard let result = Self(exactly: stored) else {
                throw ValueConversionError(value: value, to: Self.self, reason: "out of range")
            }
            return result
        case .real(let stored):
            // Real databases store whole numbers as REAL now and then; a fraction is never dropped.
            guard let result = Self(exactly: stored) else {
                throw ValueConversionError(value: value, to: Self.self, reason: "not a whole number in range")
            }
            return result
        default:
            throw ValueConversionError(value: value, to: Self.self)
        }
    }
}

extension Int: DatabaseValueConvertible {}
extension Int8: DatabaseValueConvertible {}
extension Int16: DatabaseValueConvertible {}
extension Int32: DatabaseValueConvertible {}
extension Int64: DatabaseValueConvertible {}
extension UInt: DatabaseValueConvertible {}
extension UInt8: DatabaseValueConvertible {}
extension UInt16: DatabaseValueConvertible {}
extension UInt32: DatabaseValueConvertible {}
extension UInt64: DatabaseValueConvertible {}

// MARK: - Bool, floating point, text, bytes

extension Bool: DatabaseValueConvertible {
    public static var databaseColumnType: DatabaseColumnType { .integer }
    public func databaseValue() throws -> DatabaseValue { .integer(self ? 1 : 0) }

    public static func fromDatabaseValue(_ value: DatabaseValue) throws -> Bool {
        switch value {
        case .integer(0): return false
        case .integer(1): return true
        default: throw ValueConversionError(value: value, to: Bool.self, reason: "expected 0 or 1")
        }
    }
}

extension Double: DatabaseValueConvertible {
    public static var databaseColumnType: DatabaseColumnType { .real }

    /// The value as REAL. Infinities are stored as is.
    ///
    /// - Throws: ``ValueConversionError`` for NaN, on every backend: SQLite would silently store
    ///   it as NULL, and a model must store the same values on any backend.
    public func databaseValue() throws -> DatabaseValue { .real(try refusingNaN()) }

    public static func fromDatabaseValue(_ value: DatabaseValue) throws -> Double {
        switch value {
        case .real(let stored): return stored
        case .integer(let stored): return Double(stored)
        default: throw ValueConversionError(value: value, to: Double.self)
        }
    }
}

extension Float: DatabaseValueConvertible {
    public static var databaseColumnType: DatabaseColumnType { .real }
    /// The value as REAL, as a `Double`.
    ///
    /// - Throws: ``ValueConversionError`` for NaN, as `Double` does, naming `Float`.
    public func databaseValue() throws -> DatabaseValue { .real(Double(try refusingNaN())) }

    public static func fromDatabaseValue(_ value: DatabaseValue) throws -> Float {
        Float(try Double.fromDatabaseValue(value))
    }
}

extension String: DatabaseValueConvertible {
    public static var databaseColumnType: DatabaseColumnType { .text }
    public func databaseValue() throws -> DatabaseValue { .text(self) }

    public static func fromDatabaseValue(_ value: DatabaseValue) throws -> String {
        guard case .text(let stored) = value else {
            throw ValueConversionError(value: value, to: String.self)
        }
        return stored
    }
}

extension Data: DatabaseValueConvertible {
    public static var databaseColumnType: DatabaseColumnType { .blob }
    public func databaseValue() throws -> DatabaseValue { .blob(self) }

    public static func fromDatabaseValue(_ value: DatabaseValue) throws -> Data {
        switch value {
        case .blob(let stored): return stored
        case .text(let stored): return Data(stored.utf8)
        default: throw ValueConversionError(value: value, to: Data.self)
        }
    }
}
