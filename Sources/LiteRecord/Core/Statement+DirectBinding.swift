import CSQLite
import Foundation

extension Statement {
    /// Binds one stored property, read in place at `address`, the way the Codable path binds
    /// the value its keyed container produces for it (see ``LayoutEncoding``).
    ///
    /// Declines (returns `false`) every value the Codable path refuses or stores through
    /// another route: NaN, a `UInt`/`UInt64` above `Int64.max`, a date the column's storage
    /// cannot hold, a string array that needs JSON escaping, a nil required key, and any value
    /// SQLite refuses to bind (over its length limit). The caller then encodes the row with
    /// `encode(to:)`, which binds every parameter again or throws its own error.
    @inline(__always)
    func bindInPlace(_ field: EncodingField, at address: UnsafeRawPointer, toParameter index: Int32) -> Bool {
        switch field.leaf {
        case .int, .int64: return bindInteger(Int64.self, field, address, index)
        case .int32: return bindInteger(Int32.self, field, address, index)
        case .int16: return bindInteger(Int16.self, field, address, index)
        case .int8: return bindInteger(Int8.self, field, address, index)
        case .uint, .uint64: return bindInteger(UInt64.self, field, address, index)
        case .uint32: return bindInteger(UInt32.self, field, address, index)
        case .uint16: return bindInteger(UInt16.self, field, address, index)
        case .uint8: return bindInteger(UInt8.self, field, address, index)
        case .bool:
            guard let value = load(Bool.self, field, address) else { return bindNull(field, index) }
            return sqlite3_bind_int64(handle, index, value ? 1 : 0) == SQLITE_OK
        case .double:
            guard let value = load(Double.self, field, address) else { return bindNull(field, index) }
            return bindReal(value, index)
        case .float:
            guard let value = load(Float.self, field, address) else { return bindNull(field, index) }
            return bindReal(Double(value), index)
        case .string:
            if field.isOptional {
                guard let text = address.assumingMemoryBound(to: String?.self).pointee else {
                    return bindNull(field, index)
                }
                return bindText(text, index)
            }
            return bindText(address.assumingMemoryBound(to: String.self).pointee, index)
        case .data:
            guard let data = load(Data.self, field, address) else { return bindNull(field, index) }
            return data.withUnsafeBytes { bytes in
                // As `bind(_:toParameter:)`: empty data is an empty blob, never NULL.
                guard let base = bytes.baseAddress else { return sqlite3_bind_zeroblob(handle, index, 0) }
                return sqlite3_bind_blob64(
                    handle, index, base, sqlite3_uint64(bytes.count), literecord_sqlite_transient())
            } == SQLITE_OK
        case .date:
            guard let date = load(Date.self, field, address) else { return bindNull(field, index) }
            return bindDate(date, storage: field.dateStorage, index)
        case .strings:
            guard let strings = load([String].self, field, address) else { return bindNull(field, index) }
            return bindStringArray(strings, index)
        }
    }

    @inline(__always)
    private func load<T>(_ type: T.Type, _ field: EncodingField, _ address: UnsafeRawPointer) -> T? {
        field.isOptional
            ? address.assumingMemoryBound(to: T?.self).pointee
            : address.assumingMemoryBound(to: T.self).pointee
    }

    /// NULL for a nil optional; a nil required key is declined, for the Codable path's error.
    @inline(__always)
    private func bindNull(_ field: EncodingField, _ index: Int32) -> Bool {
        !field.isRequiredKey && sqlite3_bind_null(handle, index) == SQLITE_OK
    }

    @inline(__always)
    private func bindInteger<T: FixedWidthInteger>(
        _ type: T.Type, _ field: EncodingField, _ address: UnsafeRawPointer, _ index: Int32
    ) -> Bool {
        guard let value = load(T.self, field, address) else { return bindNull(field, index) }
        // A `UInt64` above `Int64.max` is refused by the Codable path.
        guard let integer = Int64(exactly: value) else { return false }
        return sqlite3_bind_int64(handle, index, integer) == SQLITE_OK
    }

    @inline(__always)
    private func bindReal(_ value: Double, _ index: Int32) -> Bool {
        // NaN is refused by the Codable path (SQLite would store NULL).
        !value.isNaN && sqlite3_bind_double(handle, index, value) == SQLITE_OK
    }

    @inline(__always)
    private func bindText(_ text: String, _ index: Int32) -> Bool {
        let code =
            text.utf8.withContiguousStorageIfAvailable { bytes in
                bindTextBytes(UnsafeRawBufferPointer(bytes), index)
            }
            ?? {
                var copy = text
                return copy.withUTF8 { bindTextBytes(UnsafeRawBufferPointer($0), index) }
            }()
        return code == SQLITE_OK
    }

    @inline(__always)
    private func bindTextBytes(_ bytes: UnsafeRawBufferPointer, _ index: Int32) -> Int32 {
        // An empty buffer may have no base address, which SQLite would bind as NULL.
        let base = bytes.baseAddress ?? UnsafeRawPointer(("" as StaticString).utf8Start)
        return sqlite3_bind_text64(
            handle, index, base.assumingMemoryBound(to: CChar.self), sqlite3_uint64(bytes.count),
            literecord_sqlite_transient(), UInt8(SQLITE_UTF8))
    }

    private func bindDate(_ date: Date, storage: DateStorage, _ index: Int32) -> Bool {
        if case .text = storage {
            return DateText.withText(date) { bindTextBytes($0, index) == SQLITE_OK } ?? false
        }
        switch try? storage.databaseValue(for: date) {
        case .integer(let value)?: return sqlite3_bind_int64(handle, index, value) == SQLITE_OK
        case .real(let value)?: return bindReal(value, index)
        default: return false
        }
    }

    /// A `[String]` as the JSON text ``ColumnValueEncoding/encode(_:)-([String])`` writes, when
    /// no string needs escaping: each string's bytes between quotes, comma-separated, in
    /// brackets, written into a buffer on the stack (or the heap for a long array).
    private func bindStringArray(_ strings: [String], _ index: Int32) -> Bool {
        guard StringArrayJSON.isJSONStorage else { return false }
        var length = 2 + max(strings.count - 1, 0)
        for string in strings {
            guard
                let plain = string.utf8.withContiguousStorageIfAvailable({ bytes in
                    bytes.allSatisfy { $0 >= 0x20 && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "\\") }
                }), plain
            else { return false }
            length += string.utf8.count + 2
        }
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: length) { buffer in
            var position = 0
            @inline(__always) func write(_ byte: UInt8) {
                buffer[position] = byte
                position += 1
            }
            write(UInt8(ascii: "["))
            for (offset, string) in strings.enumerated() {
                if offset > 0 { write(UInt8(ascii: ",")) }
                write(UInt8(ascii: "\""))
                _ = string.utf8.withContiguousStorageIfAvailable { bytes in
                    for byte in bytes { write(byte) }
                }
                write(UInt8(ascii: "\""))
            }
            write(UInt8(ascii: "]"))
            return bindTextBytes(UnsafeRawBufferPointer(start: buffer.baseAddress, count: position), index)
                == SQLITE_OK
        }
    }
}
