import CSQLite
import Foundation

/// A stored property type that layout decoding writes in place: the property types read
/// straight from SQLite's value by the keyed container, and their optionals.
///
/// Each read accepts only what the keyed container's own fast read accepts (the same storage
/// classes, the same conversions, the same functions), and declines everything else: NULL into
/// a non-optional, another storage class, a value out of range, text that is not UTF-8 or not a
/// date. A declined row is decoded again by the type's `init(from:)`, which gives the value or
/// the error it always gave.
package enum LayoutLeaf: UInt8 {
    case int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64
    case double, float, bool, string, data, date, strings

    /// The leaf and whether it is optional, for a property type; `nil` for any other type.
    static func of(_ type: Any.Type) -> (leaf: LayoutLeaf, isOptional: Bool)? {
        let identifier = ObjectIdentifier(type)
        for (leaf, plain, optional) in table {
            if identifier == plain { return (leaf, false) }
            if identifier == optional { return (leaf, true) }
        }
        return nil
    }

    private static let table: [(LayoutLeaf, ObjectIdentifier, ObjectIdentifier)] = [
        entry(.int, Int.self), entry(.int8, Int8.self), entry(.int16, Int16.self),
        entry(.int32, Int32.self), entry(.int64, Int64.self), entry(.uint, UInt.self),
        entry(.uint8, UInt8.self), entry(.uint16, UInt16.self), entry(.uint32, UInt32.self),
        entry(.uint64, UInt64.self), entry(.double, Double.self), entry(.float, Float.self),
        entry(.bool, Bool.self), entry(.string, String.self), entry(.data, Data.self),
        entry(.date, Date.self), entry(.strings, [String].self),
    ]

    private static func entry<T>(_ leaf: LayoutLeaf, _ type: T.Type) -> (
        LayoutLeaf, ObjectIdentifier, ObjectIdentifier
    ) {
        (leaf, ObjectIdentifier(T.self), ObjectIdentifier(T?.self))
    }

    /// Whether the value owns memory, so that a half-built row must destroy it.
    package var needsCleanup: Bool {
        switch self {
        case .string, .data, .strings: true
        default: false
        }
    }

    // MARK: - Reading

    /// Writes the property read from SQLite's value at `target`; `false` (and nothing written)
    /// when the value is not one this read accepts.
    @inline(__always)
    func read(_ value: OpaquePointer, isOptional: Bool, into target: UnsafeMutableRawPointer) -> Bool {
        let storage = sqlite3_value_type(value)
        if storage == SQLITE_NULL {
            guard isOptional else { return false }
            writeNil(at: target)
            return true
        }
        switch self {
        case .int: return Self.integer(Int.self, value, storage, isOptional, target)
        case .int64: return Self.integer(Int64.self, value, storage, isOptional, target)
        case .int32: return Self.integer(Int32.self, value, storage, isOptional, target)
        case .int16: return Self.integer(Int16.self, value, storage, isOptional, target)
        case .int8: return Self.integer(Int8.self, value, storage, isOptional, target)
        case .uint: return Self.integer(UInt.self, value, storage, isOptional, target)
        case .uint64: return Self.integer(UInt64.self, value, storage, isOptional, target)
        case .uint32: return Self.integer(UInt32.self, value, storage, isOptional, target)
        case .uint16: return Self.integer(UInt16.self, value, storage, isOptional, target)
        case .uint8: return Self.integer(UInt8.self, value, storage, isOptional, target)
        case .double:
            // As `RowDecodingContext.double`: REAL, or INTEGER converted by SQLite.
            guard storage == SQLITE_FLOAT || storage == SQLITE_INTEGER else { return false }
            writeLayoutValue(sqlite3_value_double(value), isOptional, target)
            return true
        case .float:
            // As `Float.fromDatabaseValue`: the column's Double, rounded to Float.
            guard storage == SQLITE_FLOAT || storage == SQLITE_INTEGER else { return false }
            let double =
                storage == SQLITE_FLOAT ? sqlite3_value_double(value) : Double(sqlite3_value_int64(value))
            writeLayoutValue(Float(double), isOptional, target)
            return true
        case .bool:
            guard storage == SQLITE_INTEGER else { return false }
            switch sqlite3_value_int64(value) {
            case 0: writeLayoutValue(false, isOptional, target)
            case 1: writeLayoutValue(true, isOptional, target)
            default: return false
            }
            return true
        case .string:
            guard storage == SQLITE_TEXT, let text = Statement.text(of: value) else { return false }
            writeLayoutValue(text, isOptional, target)
            return true
        case .data:
            // A BLOB only: text into `Data` goes through the general path and its UTF-8 rules.
            guard storage == SQLITE_BLOB else { return false }
            let count = Int(sqlite3_value_bytes(value))
            let bytes = sqlite3_value_blob(value)
            writeLayoutValue(bytes.map { Data(bytes: $0, count: count) } ?? Data(), isOptional, target)
            return true
        case .date:
            guard storage == SQLITE_TEXT, let date = Self.textDate(value) else { return false }
            writeLayoutValue(date, isOptional, target)
            return true
        case .strings:
            guard storage == SQLITE_TEXT, let bytes = sqlite3_value_text(value),
                let strings = StringArrayJSON.parse(
                    UnsafeBufferPointer(start: bytes, count: Int(sqlite3_value_bytes(value))))
            else { return false }
            writeLayoutValue(strings, isOptional, target)
            return true
        }
    }

    @inline(__always)
    private static func integer<T: FixedWidthInteger>(
        _ type: T.Type, _ value: OpaquePointer, _ storage: Int32, _ isOptional: Bool,
        _ target: UnsafeMutableRawPointer
    ) -> Bool {
        guard storage == SQLITE_INTEGER, let result = T(exactly: sqlite3_value_int64(value)) else {
            return false
        }
        writeLayoutValue(result, isOptional, target)
        return true
    }

    /// The same parse as the keyed container's text date read.
    @inline(__always)
    private static func textDate(_ value: OpaquePointer) -> Date? {
        guard let bytes = sqlite3_value_text(value) else { return nil }
        let text = UnsafeBufferPointer(start: bytes, count: Int(sqlite3_value_bytes(value)))
        guard case .interval(let interval)? = try? DateText.parse(text) else { return nil }
        return Date(timeIntervalSinceReferenceDate: interval)
    }

    /// Initializes the optional property at `target` to `nil`: a NULL column read in place.
    package func writeNil(at target: UnsafeMutableRawPointer) {
        switch self {
        case .int: Self.none(Int.self, target)
        case .int8: Self.none(Int8.self, target)
        case .int16: Self.none(Int16.self, target)
        case .int32: Self.none(Int32.self, target)
        case .int64: Self.none(Int64.self, target)
        case .uint: Self.none(UInt.self, target)
        case .uint8: Self.none(UInt8.self, target)
        case .uint16: Self.none(UInt16.self, target)
        case .uint32: Self.none(UInt32.self, target)
        case .uint64: Self.none(UInt64.self, target)
        case .double: Self.none(Double.self, target)
        case .float: Self.none(Float.self, target)
        case .bool: Self.none(Bool.self, target)
        case .string: Self.none(String.self, target)
        case .data: Self.none(Data.self, target)
        case .date: Self.none(Date.self, target)
        case .strings: Self.none([String].self, target)
        }
    }

    private static func none<T>(_ type: T.Type, _ target: UnsafeMutableRawPointer) {
        target.assumingMemoryBound(to: T?.self).initialize(to: nil)
    }

    // MARK: - Cleanup and comparison

    /// Destroys a value this leaf wrote at `target`.
    package func destroy(isOptional: Bool, at target: UnsafeMutableRawPointer) {
        switch self {
        case .string: Self.destroy(String.self, isOptional, target)
        case .data: Self.destroy(Data.self, isOptional, target)
        case .strings: Self.destroy([String].self, isOptional, target)
        default: break  // plain bits
        }
    }

    private static func destroy<T>(_ type: T.Type, _ isOptional: Bool, _ target: UnsafeMutableRawPointer) {
        if isOptional {
            target.assumingMemoryBound(to: T?.self).deinitialize(count: 1)
        } else {
            target.assumingMemoryBound(to: T.self).deinitialize(count: 1)
        }
    }

    /// Whether two values of this leaf are the same value: bit for bit for numbers and dates
    /// (`-0.0` is not `0.0`, NaN is itself), byte for byte for text.
    func isIdentical(_ lhs: UnsafeRawPointer, _ rhs: UnsafeRawPointer, isOptional: Bool) -> Bool {
        switch self {
        case .int: Self.same(Int.self, lhs, rhs, isOptional, ==)
        case .int8: Self.same(Int8.self, lhs, rhs, isOptional, ==)
        case .int16: Self.same(Int16.self, lhs, rhs, isOptional, ==)
        case .int32: Self.same(Int32.self, lhs, rhs, isOptional, ==)
        case .int64: Self.same(Int64.self, lhs, rhs, isOptional, ==)
        case .uint: Self.same(UInt.self, lhs, rhs, isOptional, ==)
        case .uint8: Self.same(UInt8.self, lhs, rhs, isOptional, ==)
        case .uint16: Self.same(UInt16.self, lhs, rhs, isOptional, ==)
        case .uint32: Self.same(UInt32.self, lhs, rhs, isOptional, ==)
        case .uint64: Self.same(UInt64.self, lhs, rhs, isOptional, ==)
        case .bool: Self.same(Bool.self, lhs, rhs, isOptional, ==)
        case .double: Self.same(Double.self, lhs, rhs, isOptional) { $0.bitPattern == $1.bitPattern }
        case .float: Self.same(Float.self, lhs, rhs, isOptional) { $0.bitPattern == $1.bitPattern }
        case .date:
            Self.same(Date.self, lhs, rhs, isOptional) {
                $0.timeIntervalSinceReferenceDate.bitPattern == $1.timeIntervalSinceReferenceDate.bitPattern
            }
        case .string: Self.same(String.self, lhs, rhs, isOptional) { $0.utf8.elementsEqual($1.utf8) }
        case .data: Self.same(Data.self, lhs, rhs, isOptional, ==)
        case .strings:
            Self.same([String].self, lhs, rhs, isOptional) {
                $0.count == $1.count && zip($0, $1).allSatisfy { $0.utf8.elementsEqual($1.utf8) }
            }
        }
    }

    private static func same<T>(
        _ type: T.Type, _ lhs: UnsafeRawPointer, _ rhs: UnsafeRawPointer, _ isOptional: Bool,
        _ equal: (T, T) -> Bool
    ) -> Bool {
        guard isOptional else {
            return equal(
                lhs.assumingMemoryBound(to: T.self).pointee, rhs.assumingMemoryBound(to: T.self).pointee)
        }
        switch (lhs.assumingMemoryBound(to: T?.self).pointee, rhs.assumingMemoryBound(to: T?.self).pointee) {
        case (nil, nil): return true
        case (let left?, let right?): return equal(left, right)
        default: return false
        }
    }
}

/// Initializes the property at `target` with `value`, wrapped when it is optional: the one store
/// of every backend's in-place read.
///
/// A free function rather than a static on ``LayoutLeaf``: Swift 6.3 neither inlines nor
/// specializes a `package` type's `@inlinable` static in another module (the PostgreSQL read
/// then made an unspecialized generic call per value, 1.8 times the instructions).
@inlinable @inline(__always)
package func writeLayoutValue<T>(_ value: T, _ isOptional: Bool, _ target: UnsafeMutableRawPointer) {
    if isOptional {
        target.assumingMemoryBound(to: T?.self).initialize(to: value)
    } else {
        target.assumingMemoryBound(to: T.self).initialize(to: value)
    }
}
