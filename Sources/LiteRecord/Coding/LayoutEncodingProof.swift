import CSQLite
import Foundation

/// Decides whether a model may be encoded in place (``LayoutEncoding``), by comparing what the
/// direct read binds with what the model's own `encode(to:)` produces, on probe models.
///
/// A model qualifies when:
/// - it decodes in place (``LayoutDecoding``: a struct of ``LayoutLeaf`` properties, each
///   filled from one column), which gives each property's offset and coding key;
/// - each of its table's columns is the column of exactly one property;
/// - on probe models (every property at its edges in turn — integer extremes, `-0.0`,
///   infinities, NaN, empty and non-ASCII text, text with quotes and NUL, empty arrays, dates at
///   the ends of what text holds, nil — and then random mixes), `encode(to:)` writes exactly the
///   table's columns in order, and every value the direct read binds is, storage class and
///   bytes, the one `encode(to:)` gave; where `encode(to:)` throws, the direct read declines.
///   A custom `encode(to:)` that renames, swaps, trims, rounds or skips a value shows up as a
///   difference, and the model keeps `encode(to:)`.
///
/// The direct read binds to a statement on a private in-memory connection and the bound values
/// are read back from SQLite, so the proof checks the bytes SQLite receives.
enum LayoutEncodingProof {
    /// The layout of `M` when its `encode(to:)` proved equivalent; `nil` otherwise.
    static func verify<M: Model>(_ type: M.Type, table: TableSchema, dateStorage: DateStorage)
        -> EncodingLayout?
    {
        guard let layout = LayoutDecoding.layout(for: M.self) else { return nil }
        let columns = table.statements.columns
        guard layout.fields.count == columns.count else { return nil }
        let required = Set(table.requiredKeyColumns.map(\.name))
        var fieldForColumn: [String: EncodingField] = [:]
        for field in layout.fields {
            let column = table.keyToColumn?[field.key] ?? field.key
            guard columns.contains(column), fieldForColumn[column] == nil else { return nil }
            fieldForColumn[column] = EncodingField(
                offset: field.offset, leaf: field.leaf, isOptional: field.isOptional,
                dateStorage: table.columnDateStorage[column] ?? dateStorage,
                isRequiredKey: required.contains(column))
        }
        let insertFields = columns.compactMap { fieldForColumn[$0] }
        guard insertFields.count == columns.count else { return nil }
        let updateFields =
            table.statements.update == nil ? nil : table.statements.updateOrder.map { insertFields[$0] }
        let candidate = EncodingLayout(insertFields: insertFields, updateFields: updateFields)
        let encoder = table.rowEncoder(dateStorage: dateStorage)
        guard let probe = try? EncodingProbe(parameterCount: columns.count),
            probe.verify(M.self, fields: insertFields, encoder: encoder, columns: columns)
        else { return nil }
        return candidate
    }
}

/// `SELECT ?1, ?2, ...` on a private connection: binds a probe model in place and reads back
/// what SQLite received.
private struct EncodingProbe {
    let connection: Connection
    let statement: Statement

    init(parameterCount: Int) throws {
        connection = try Connection(location: .inMemory, configuration: Configuration())
        let parameters = (1...parameterCount).map { "?\($0)" }.joined(separator: ", ")
        statement = try connection.makeStatement(sql: "SELECT " + parameters)
    }

    /// Whether every probe model binds in place exactly what `encode(to:)` gives.
    func verify<M: Model>(
        _ type: M.Type, fields: [EncodingField], encoder: RowEncoder, columns: [String]
    ) -> Bool {
        var generator = SplitMix64(seed: 0x5EED_C0DE)
        let rows = EncodingProbeValues.edgeRowCount + 96
        let model = UnsafeMutablePointer<M>.allocate(capacity: 1)
        defer { model.deallocate() }
        for row in 0..<rows {
            let raw = UnsafeMutableRawPointer(model)
            for (position, field) in fields.enumerated() {
                EncodingProbeValues.write(
                    field, row: row, position: position, &generator, at: raw + field.offset)
            }
            // Every stored property is initialized: the memory is a whole model.
            defer { model.deinitialize(count: 1) }
            guard
                check(
                    model.pointee, at: UnsafeRawPointer(model), fields: fields, encoder: encoder,
                    columns: columns)
            else { return false }
        }
        return true
    }

    private func check<M: Model>(
        _ model: M, at address: UnsafeRawPointer, fields: [EncodingField], encoder: RowEncoder,
        columns: [String]
    ) -> Bool {
        let encoded = try? encoder.encode(model, expecting: columns)
        defer {
            statement.reset()
            statement.clearBindings()
        }
        guard EncodingLayout.bind(fields, from: address, to: statement) else {
            // Declined: the row goes through `encode(to:)`, whatever it does.
            return true
        }
        // Bound in place: `encode(to:)` must have written the table's columns, the same values.
        guard let encoded, encoded.matchesTable, (try? statement.step()) == true else { return false }
        for (index, expected) in encoded.row.values.enumerated() {
            guard let value = sqlite3_column_value(statement.handle, Int32(index)),
                Self.isIdentical(value, expected)
            else { return false }
        }
        return true
    }

    /// Whether SQLite holds exactly `expected`: storage class and bytes (`-0.0` is not `0.0`).
    private static func isIdentical(_ value: OpaquePointer, _ expected: DatabaseValue) -> Bool {
        let storage = sqlite3_value_type(value)
        switch expected {
        case .null: return storage == SQLITE_NULL
        case .integer(let integer): return storage == SQLITE_INTEGER && sqlite3_value_int64(value) == integer
        case .real(let real):
            return storage == SQLITE_FLOAT && sqlite3_value_double(value).bitPattern == real.bitPattern
        case .text(let text):
            guard storage == SQLITE_TEXT else { return false }
            let count = Int(sqlite3_value_bytes(value))
            guard let bytes = sqlite3_value_text(value) else { return text.isEmpty }
            return UnsafeBufferPointer(start: bytes, count: count).elementsEqual(text.utf8)
        case .blob(let data):
            guard storage == SQLITE_BLOB else { return false }
            let count = Int(sqlite3_value_bytes(value))
            guard let bytes = sqlite3_value_blob(value) else { return data.isEmpty }
            return UnsafeRawBufferPointer(start: bytes, count: count).elementsEqual(data)
        }
    }
}

/// Probe values per leaf: the edges first (one row per edge, each property at a different
/// edge so that swapped properties show), then random values.
private enum EncodingProbeValues {
    static let edgeRowCount = 16

    static let integers: [Int64] = [0, 1, -1, .min, .max, 2, 127, -128, 255, 32_767, -32_769, 65_536]
    static let unsigned: [UInt64] = [0, 1, UInt64(Int64.max), UInt64(Int64.max) + 1, .max, 255]
    static let doubles: [Double] = [
        0, -0.0, 1.5, -2.5, .infinity, -.infinity, .nan, .leastNonzeroMagnitude,
        .greatestFiniteMagnitude, 1e-300, 0.1, 3,
    ]
    static let strings: [String] = [
        "", "a", "Ab", " padded ", "ümlaut é", "😀", "x\"y", "back\\slash", "nul\u{0}byte", "tab\t", "12",
        "2026-11-30 12:34:56.789",
    ]
    static let dates: [Double] = [
        0, -0.5, 700_000_000.0625, 0.1, 1e-7, -63_145_526_400, 252_423_993_599.999, 252_423_993_600,
        -63_145_526_401, 1e20, .infinity, .nan, -1e-9, 123_456_789.123_456_7,
    ]
    static let arrays: [[String]] = [
        [], [""], ["a", "B"], ["é", "x\"y"], ["tab\t"], ["😀"], ["a\\b"], ["one", "two", "three"],
    ]

    /// Initializes the property of `field` at `target` for probe row `row`.
    static func write(
        _ field: EncodingField, row: Int, position: Int, _ generator: inout SplitMix64,
        at target: UnsafeMutableRawPointer
    ) {
        let bits = generator.next()
        let isEdge = row < edgeRowCount
        let edge = row + position
        // Nil on one edge row and on about one random row in five.
        let isNil = field.isOptional && (isEdge ? edge % edgeRowCount == 3 : bits % 5 == 0)
        func pick<T>(_ values: [T]) -> T { values[edge % values.count] }
        switch field.leaf {
        case .int:
            put(Int(isEdge ? pick(integers) : Int64(bitPattern: generator.next())), field, isNil, target)
        case .int64: put(isEdge ? pick(integers) : Int64(bitPattern: generator.next()), field, isNil, target)
        case .int32:
            put(
                Int32(truncatingIfNeeded: isEdge ? pick(integers) : Int64(bitPattern: bits)), field, isNil,
                target)
        case .int16:
            put(
                Int16(truncatingIfNeeded: isEdge ? pick(integers) : Int64(bitPattern: bits)), field, isNil,
                target)
        case .int8:
            put(
                Int8(truncatingIfNeeded: isEdge ? pick(integers) : Int64(bitPattern: bits)), field, isNil,
                target)
        case .uint: put(UInt(isEdge ? pick(unsigned) : generator.next() >> (bits % 2)), field, isNil, target)
        case .uint64: put(isEdge ? pick(unsigned) : generator.next() >> (bits % 2), field, isNil, target)
        case .uint32: put(UInt32(truncatingIfNeeded: isEdge ? pick(unsigned) : bits), field, isNil, target)
        case .uint16: put(UInt16(truncatingIfNeeded: isEdge ? pick(unsigned) : bits), field, isNil, target)
        case .uint8: put(UInt8(truncatingIfNeeded: isEdge ? pick(unsigned) : bits), field, isNil, target)
        case .bool: put(isEdge ? edge % 2 == 0 : bits % 2 == 0, field, isNil, target)
        case .double: put(isEdge ? pick(doubles) : number(bits, &generator), field, isNil, target)
        case .float: put(Float(isEdge ? pick(doubles) : number(bits, &generator)), field, isNil, target)
        case .string: put(isEdge ? pick(strings) : text(&generator), field, isNil, target)
        case .data:
            let bytes = (0..<Int(bits % 9)).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
            put(Data(bytes), field, isNil, target)
        case .date:
            let interval = isEdge ? pick(dates) : Double(Int64(bits % 80_000_000_000) - 30_000_000_000) / 1024
            put(Date(timeIntervalSinceReferenceDate: interval), field, isNil, target)
        case .strings:
            let array = isEdge ? pick(arrays) : (0..<Int(bits % 4)).map { _ in text(&generator) }
            put(array, field, isNil, target)
        }
    }

    private static func put<T>(
        _ value: T, _ field: EncodingField, _ isNil: Bool, _ target: UnsafeMutableRawPointer
    ) {
        if field.isOptional {
            target.assumingMemoryBound(to: T?.self).initialize(to: isNil ? nil : value)
        } else {
            target.assumingMemoryBound(to: T.self).initialize(to: value)
        }
    }

    /// Any bit pattern (NaN and infinities included), a whole number, or a short binary fraction.
    private static func number(_ bits: UInt64, _ generator: inout SplitMix64) -> Double {
        let whole = Double(Int64(bitPattern: generator.next()) >> (bits % 60))
        switch bits % 3 {
        case 0: return Double(bitPattern: generator.next())
        case 1: return whole
        default: return whole / 1024
        }
    }

    private static let alphabet = Array("aZq 0.9-_'\"\\\té€😀\u{0}xX")

    private static func text(_ generator: inout SplitMix64) -> String {
        let count = Int(generator.next() % 9)
        return String((0..<count).map { _ in alphabet[Int(generator.next() % UInt64(alphabet.count))] })
    }
}
