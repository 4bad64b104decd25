import CLibPQ
import Foundation
import LiteRecord

/// A ``LiteRecord/TypeLayout`` bound to the columns of a PostgreSQL result: rows of a struct
/// that decodes in place on SQLite are built here too by writing each property straight from
/// the `PGresult`'s value, with no ``LiteRecord/Row`` copied and no `init(from:)` called.
///
/// Each property reads the value the copied row would hold (``PostgresResult/ValueKind/read(_:)``,
/// the one reading both paths use) and converts it as the keyed container's
/// `fromDatabaseValue` does; everything else is declined: NULL into a non-optional, a value
/// out of range, another kind of value, a `[String]` or date text that needs the general
/// parser. A declined row sends the whole result through the copied rows and `init(from:)`
/// (``PostgresRawResult/decodeAll(_:decoder:)``), which give the values and errors they always
/// gave.
final class PostgresLayoutBinding {
    private typealias Field = BoundLayoutField<PostgresResult.ValueKind>

    private let fields: [Field]
    let type: ObjectIdentifier
    let keyToColumn: [String: String]?
    /// The prepared statement whose results it reads, when it is kept with it.
    let preparedName: String?

    /// Binds a layout to a result's columns; `nil` when a property's column is missing (the
    /// rows are then for `init(from:)`, which reports the column or reads `nil`, as it chooses).
    init?<T>(
        _ type: T.Type, layout: TypeLayout, result: PostgresRawResult, keyToColumn: [String: String]?,
        preparedName: String?
    ) {
        let columns = RowColumns(names: result.columnNames)
        let kinds = result.kinds
        var fields: [Field] = []
        for field in layout.fields {
            // The keyed container's lookup: the mapped name, exact, then ignoring ASCII case.
            guard let column = columns.index(of: keyToColumn?[field.key] ?? field.key) else { return nil }
            fields.append(Field(column: Int32(column), field: field, reading: kinds[column]))
        }
        self.fields = fields
        self.type = ObjectIdentifier(T.self)
        self.keyToColumn = keyToColumn
        self.preparedName = preparedName
    }

    /// Every row of the result built in place; `nil` (with nothing left behind) when a row is
    /// declined.
    func decodeAll<T>(_ type: T.Type, from result: OpaquePointer) -> [T]? {
        let count = Int(PQntuples(result))
        var declined = false
        let models = [T](filling: count) { buffer, initialized in
            guard let base = buffer.baseAddress else { return }
            for row in 0..<count {
                guard fill(result, row: Int32(row), into: UnsafeMutableRawPointer(base + row)) else {
                    declined = true
                    return
                }
                initialized += 1
            }
        }
        return declined ? nil : models
    }

    /// The result's first row built in place, with no array; `nil` when it is declined.
    func decodeFirst<T>(_ type: T.Type, from result: OpaquePointer) -> T? {
        withUnsafeTemporaryAllocation(of: T.self, capacity: 1) { buffer in
            guard let slot = buffer.baseAddress, fill(result, row: 0, into: UnsafeMutableRawPointer(slot))
            else {
                return nil
            }
            return slot.move()
        }
    }

    /// Writes row `row` into uninitialized memory for one value of the type; `false`, with
    /// nothing left initialized there, when a value is declined.
    @inline(__always)
    private func fill(_ result: OpaquePointer, row: Int32, into target: UnsafeMutableRawPointer) -> Bool {
        for (index, field) in fields.enumerated() {
            guard Self.read(result, row: row, field, into: target + field.offset) else {
                for written in fields[0..<index] where written.leaf.needsCleanup {
                    written.leaf.destroy(isOptional: written.isOptional, at: target + written.offset)
                }
                return false
            }
        }
        return true
    }

    @inline(__always)
    private static func read(
        _ result: OpaquePointer, row: Int32, _ field: Field, into target: UnsafeMutableRawPointer
    ) -> Bool {
        if PQgetisnull(result, row, field.column) != 0 {
            guard field.isOptional else { return false }
            field.leaf.writeNil(at: target)
            return true
        }
        let bytes = UnsafeRawBufferPointer(
            start: PQgetvalue(result, row, field.column), count: Int(PQgetlength(result, row, field.column)))
        let isOptional = field.isOptional
        switch field.leaf {
        case .date:
            // As `DateStorage.date(from: .text)`: the copied row's text is these bytes when
            // they are UTF-8, and the parser accepts nothing else. A number is for the storage.
            guard let text = textBytes(bytes, field.reading),
                case .interval(let interval)? = try? DateText.parse(text.bindMemory(to: UInt8.self))
            else { return false }
            writeLayoutValue(Date(timeIntervalSinceReferenceDate: interval), isOptional, target)
            return true
        case .strings:
            // As on SQLite: plain JSON arrays of plain strings only; `JSONDecoder` reads the rest.
            guard StringArrayJSON.isJSONStorage, let text = textBytes(bytes, field.reading),
                let strings = StringArrayJSON.parse(text.bindMemory(to: UInt8.self))
            else { return false }
            writeLayoutValue(strings, isOptional, target)
            return true
        default:
            break
        }
        guard let value = field.reading.read(bytes) else { return false }
        switch field.leaf {
        case .int: return integer(Int.self, value, isOptional, target)
        case .int64: return integer(Int64.self, value, isOptional, target)
        case .int32: return integer(Int32.self, value, isOptional, target)
        case .int16: return integer(Int16.self, value, isOptional, target)
        case .int8: return integer(Int8.self, value, isOptional, target)
        case .uint: return integer(UInt.self, value, isOptional, target)
        case .uint64: return integer(UInt64.self, value, isOptional, target)
        case .uint32: return integer(UInt32.self, value, isOptional, target)
        case .uint16: return integer(UInt16.self, value, isOptional, target)
        case .uint8: return integer(UInt8.self, value, isOptional, target)
        case .double, .float:
            // As `Double.fromDatabaseValue` (and `Float`'s, which rounds its Double).
            let double: Double
            switch value {
            case .real(let real): double = real
            case .integer(let integer): double = Double(integer)
            default: return false
            }
            if field.leaf == .float {
                writeLayoutValue(Float(double), isOptional, target)
            } else {
                writeLayoutValue(double, isOptional, target)
            }
            return true
        case .bool:
            switch value {
            case .integer(0): writeLayoutValue(false, isOptional, target)
            case .integer(1): writeLayoutValue(true, isOptional, target)
            default: return false
            }
            return true
        case .string:
            guard case .text(let text) = value else { return false }
            writeLayoutValue(text, isOptional, target)
            return true
        case .data:
            // `bytea` only: text into `Data` is left to the general path.
            guard case .blob(let data) = value else { return false }
            writeLayoutValue(data, isOptional, target)
            return true
        case .date, .strings:
            return false  // read above
        }
    }

    /// The text a textual column holds, without `jsonb`'s version byte; `nil` for the others.
    @inline(__always)
    private static func textBytes(_ bytes: UnsafeRawBufferPointer, _ kind: PostgresResult.ValueKind)
        -> UnsafeRawBufferPointer?
    {
        switch kind {
        case .text, .binaryText: return bytes
        case .binaryJSONB:
            guard bytes.first == 1 else { return nil }
            return UnsafeRawBufferPointer(rebasing: bytes.dropFirst())
        default: return nil
        }
    }

    /// As the integers' `fromDatabaseValue`: an integer in range; a REAL is left to it.
    @inline(__always)
    private static func integer<T: FixedWidthInteger>(
        _ type: T.Type, _ value: DatabaseValue, _ isOptional: Bool, _ target: UnsafeMutableRawPointer
    ) -> Bool {
        guard case .integer(let stored) = value, let result = T(exactly: stored) else { return false }
        writeLayoutValue(result, isOptional, target)
        return true
    }
}
