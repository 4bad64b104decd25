import CSQLite
import Foundation

/// Decides whether a type may be decoded in place (``LayoutDecoding``), by comparing the
/// in-place read with the type's own `init(from:)` on probe rows.
///
/// A type qualifies when:
/// - it is a struct (reflection lists its stored properties with offsets; not a class, enum
///   or tuple) whose every stored property has a ``LayoutLeaf`` type;
/// - its `init(from:)` reads as many keys as it has properties, each a ``LayoutLeaf`` type;
/// - changing one key's column changes exactly one property, a different one for every key, of
///   the same type and optionality (so renamed `CodingKeys` are followed, and a property built
///   from two columns, or not from a column, is found out);
/// - on rows of edge values for each key in turn (every storage class, NULL, integer and
///   floating-point extremes, empty, non-ASCII and date-like text, JSON, blobs) and on random
///   mixes of them, every row the in-place read accepts gives exactly, bit for bit, the value
///   `init(from:)` gives. A validation that throws, a default for NULL, a clamp, a trim or a
///   case change shows up as a difference, and the type keeps `init(from:)`.
///
/// The probe rows are decoded on a private in-memory connection, through the same statement
/// reads as a fetch, so the user's connections, hooks and statement caches see nothing.
/// A transformation that touches no probe value cannot be seen; the probe values cover the
/// edges a validation usually tests.
enum LayoutProof {
    /// The layout of `type` when its `init(from:)` proved equivalent; `nil` otherwise.
    static func verify<T: Decodable>(_ type: T.Type) -> TypeLayout? {
        guard !(T.self is any DatabaseValueConvertible.Type), !(T.self is any Collection.Type),
            let stored = PropertyPath.storedFields(of: T.self), !stored.isEmpty,
            MemoryLayout<T>.size > 0
        else { return nil }
        var properties: [(offset: Int, leaf: LayoutLeaf, isOptional: Bool)] = []
        for field in stored {
            guard let leaf = LayoutLeaf.of(field.type) else { return nil }
            properties.append((field.offset, leaf.leaf, leaf.isOptional))
        }
        guard let columns = try? SchemaProbe.probe(T.self).columns, columns.count == properties.count,
            Set(columns.map(\.key)).count == columns.count
        else { return nil }
        var keys: [(key: String, leaf: LayoutLeaf, isOptional: Bool)] = []
        for column in columns {
            guard let leaf = LayoutLeaf.of(column.type), !leaf.isOptional else { return nil }
            keys.append((column.key, leaf.leaf, column.isOptional))
        }
        guard let probe = try? ProbeRows<T>(keys: keys.map(\.key)) else { return nil }
        return try? probe.verify(keys: keys, properties: properties)
    }
}

/// Probe rows for one type: `SELECT ?1 AS "key1", ?2 AS "key2", ...` on a private connection.
private struct ProbeRows<T: Decodable> {
    let connection: Connection
    let sql: String

    init(keys: [String]) throws {
        connection = try Connection(location: .inMemory, configuration: Configuration())
        let selected = keys.enumerated().map { "?\($0.offset + 1) AS \(SQL.quoteIdentifier($0.element))" }
        sql = "SELECT " + selected.joined(separator: ", ")
    }

    /// The probe, or `nil` at the first difference (see ``LayoutProof``).
    func verify(
        keys: [(key: String, leaf: LayoutLeaf, isOptional: Bool)],
        properties: [(offset: Int, leaf: LayoutLeaf, isOptional: Bool)]
    ) throws -> TypeLayout? {
        let base = keys.map { Self.sample($0.leaf, alternate: false) }
        guard let baseline = try reference(base) else { return nil }
        // Which property each key fills: the one that changes when only that key's column does.
        var propertyOfKey: [Int] = []
        for (index, key) in keys.enumerated() {
            var row = base
            row[index] = Self.sample(key.leaf, alternate: true)
            guard let changed = try reference(row) else { return nil }
            let differing = properties.indices.filter { property in
                withUnsafeBytes(of: baseline) { old in
                    withUnsafeBytes(of: changed) { new in
                        guard let old = old.baseAddress, let new = new.baseAddress else { return true }
                        let field = properties[property]
                        return !field.leaf.isIdentical(
                            old + field.offset, new + field.offset, isOptional: field.isOptional)
                    }
                }
            }
            guard differing.count == 1, let property = differing.first, !propertyOfKey.contains(property),
                properties[property].leaf == key.leaf, properties[property].isOptional == key.isOptional
            else { return nil }
            propertyOfKey.append(property)
        }
        var fields: [TypeLayout.Field] = []
        for (property, field) in properties.enumerated() {
            guard let key = propertyOfKey.firstIndex(of: property) else { return nil }
            fields.append(
                TypeLayout.Field(
                    key: keys[key].key, offset: field.offset, leaf: field.leaf, isOptional: field.isOptional))
        }
        let layout = TypeLayout(fields: fields)
        let names = keys.map(\.key)
        guard let binding = LayoutBinding(T.self, layout: layout, columnIndex: { names.firstIndex(of: $0) })
        else { return nil }
        // Each key through every edge value, the others at their base value; then random mixes.
        for index in keys.indices {
            for edge in Self.edges {
                var row = base
                row[index] = edge
                guard try agrees(row, binding: binding, layout: layout) else { return nil }
            }
        }
        var generator = SplitMix64(seed: UInt64(truncatingIfNeeded: keys.count &* 7919))
        for _ in 0..<64 {
            let row = keys.map { _ in Self.edges[Int(generator.next() % UInt64(Self.edges.count))] }
            guard try agrees(row, binding: binding, layout: layout) else { return nil }
        }
        // Each key through random values of its own kind, the others at their base value: a
        // change to some characters, or to a range of numbers, that no edge value holds.
        for (index, key) in keys.enumerated() {
            for _ in 0..<Self.randomRowsPerKey {
                var row = base
                row[index] = ProbeSample.random(key.leaf, &generator)
                guard try agrees(row, binding: binding, layout: layout) else { return nil }
            }
        }
        return layout
    }

    /// Enough to meet most characters of the sample alphabet and every integer width a few
    /// times; a few milliseconds per type, once.
    private static var randomRowsPerKey: Int { 32 }

    /// The row decoded by the type's `init(from:)`; `nil` when it throws.
    private func reference(_ row: [DatabaseValue]) throws -> T? {
        try connection.withStatement(SQL(verbatim: sql, arguments: StatementArguments(positional: row))) {
            statement in
            guard try statement.step() else { return nil }
            let context = RowDecodingContext(source: statement, decoder: RowDecoder(), type: T.self)
            return try? context.decodeThroughInitializer(T.self)
        }
    }

    /// Whether the in-place read either declines the row or gives exactly what `init(from:)`
    /// gives.
    private func agrees(_ row: [DatabaseValue], binding: LayoutBinding, layout: TypeLayout) throws -> Bool {
        try connection.withStatement(SQL(verbatim: sql, arguments: StatementArguments(positional: row))) {
            statement in
            guard try statement.step() else { return false }
            let context = RowDecodingContext(source: statement, decoder: RowDecoder(), type: T.self)
            let expected = try? context.decodeThroughInitializer(T.self)
            // Declined: a fetch decodes this row with `init(from:)` too.
            guard binding.fill(from: statement.handle) else { return true }
            defer { binding.discard() }
            guard let expected else { return false }
            return withUnsafeBytes(of: expected) { bytes in
                guard let reference = bytes.baseAddress else { return false }
                return layout.fields.allSatisfy { field in
                    field.leaf.isIdentical(
                        binding.filled + field.offset, reference + field.offset, isOptional: field.isOptional)
                }
            }
        }
    }

    /// A valid value for a leaf: the base one, or another.
    private static func sample(_ leaf: LayoutLeaf, alternate: Bool) -> DatabaseValue {
        switch leaf {
        case .int, .int8, .int16, .int32, .int64, .uint, .uint8, .uint16, .uint32, .uint64:
            .integer(alternate ? 2 : 1)
        case .double, .float: .real(alternate ? 2.5 : 0.5)
        case .bool: .integer(alternate ? 1 : 0)
        case .string: .text(alternate ? "b" : "a")
        case .data: .blob(Data([alternate ? 2 : 1]))
        case .date: .text(alternate ? "2002-02-02 02:02:02.250" : "2001-01-01 00:00:00.000")
        case .strings: .text(alternate ? #"["b"]"# : #"["a"]"#)
        }
    }

    /// ``probeEdges``, reachable from the generic type.
    private static var edges: [DatabaseValue] { probeEdges }
}

/// Values of every storage class, at the edges that validations and conversions test.
private let probeEdges: [DatabaseValue] = [
    .null, .integer(0), .integer(1), .integer(-1), .integer(2), .integer(7), .integer(127), .integer(128),
    .integer(-128), .integer(-129), .integer(255), .integer(256), .integer(32_767), .integer(-32_769),
    .integer(65_536), .integer(Int64(Int32.max) + 1), .integer(Int64(UInt32.max) + 1),
    .integer(1_000_000_007), .integer(.min), .integer(.max), .real(0), .real(-0.0), .real(0.5),
    .real(1.5), .real(-2.5), .real(3), .real(-1e-300), .real(1e300), .real(.infinity),
    .real(-.infinity), .real(.leastNonzeroMagnitude), .text(""), .text(" "), .text("a"), .text("Ab"),
    .text(" padded "), .text("ümlaut é"), .text("😀"), .text("12"), .text("-0"),
    .text("2026-11-30 12:34:56.789"), .text("2026-11-30"), .text("2026-11-30T12:34:56+02:00"),
    .text("1969-12-31 23:59:59.999"), .text("[]"), .text(#"["a","B"]"#), .text(#"[""]"#),
    .text(#"["é","x\"y"]"#), .blob(Data()), .blob(Data([0, 255])), .blob(Data("a".utf8)),
]

/// Random valid values of one leaf's kind, for the probe rows after the edge values.
private enum ProbeSample {
    static func random(_ leaf: LayoutLeaf, _ generator: inout SplitMix64) -> DatabaseValue {
        let bits = generator.next()
        switch leaf {
        case .int, .int64: return integer(bits: 64, signed: true, &generator)
        case .int32: return integer(bits: 32, signed: true, &generator)
        case .int16: return integer(bits: 16, signed: true, &generator)
        case .int8: return integer(bits: 8, signed: true, &generator)
        case .uint, .uint64: return integer(bits: 63, signed: false, &generator)
        case .uint32: return integer(bits: 32, signed: false, &generator)
        case .uint16: return integer(bits: 16, signed: false, &generator)
        case .uint8: return integer(bits: 8, signed: false, &generator)
        case .double: return .real(number(bits, &generator))
        case .float: return .real(Double(Float(number(bits, &generator))))
        case .bool: return .integer(Int64(bits & 1))
        case .string: return .text(text(alphabet: textAlphabet, &generator))
        case .data:
            return .blob(Data((0..<Int(bits % 9)).map { _ in UInt8(truncatingIfNeeded: generator.next()) }))
        case .date: return .text(dateText(bits))
        case .strings:
            let items = (0..<Int(bits % 4)).map { _ in "\"" + text(alphabet: jsonAlphabet, &generator) + "\""
            }
            return .text("[" + items.joined(separator: ",") + "]")
        }
    }

    /// A finite number: any bit pattern, a whole number, or one with a short binary fraction.
    private static func number(_ bits: UInt64, _ generator: inout SplitMix64) -> Double {
        let whole = Double(integerValue(bits: 53, signed: true, &generator))
        switch bits % 3 {
        case 0:
            let any = Double(bitPattern: generator.next())
            return any.isFinite ? any : whole
        case 1: return whole
        default: return whole / 1024
        }
    }

    /// An integer of 1 to `bits` significant bits, of either sign when `signed`.
    private static func integer(bits: Int, signed: Bool, _ generator: inout SplitMix64) -> DatabaseValue {
        .integer(integerValue(bits: bits, signed: signed, &generator))
    }

    private static func integerValue(bits: Int, signed: Bool, _ generator: inout SplitMix64) -> Int64 {
        let random = generator.next()
        let width = Int(random % UInt64(bits)) + 1
        let magnitude = Int64(truncatingIfNeeded: generator.next() >> UInt64(64 - width))
        return signed && random & 0x100 != 0 ? 0 &- magnitude : magnitude
    }

    private static let textAlphabet = Array("aZq 0.9-_'\"\\\té€😀\u{0}xX")
    /// Characters that stand for themselves inside a JSON string.
    private static let jsonAlphabet = Array("aZq 0.9-_'té€😀xX")

    private static func text(alphabet: [Character], _ generator: inout SplitMix64) -> String {
        let count = Int(generator.next() % 9)
        return String((0..<count).map { _ in alphabet[Int(generator.next() % UInt64(alphabet.count))] })
    }

    /// `YYYY-MM-DD HH:MM:SS.SSS`, a valid instant between the years 1000 and 2999.
    private static func dateText(_ bits: UInt64) -> String {
        func padded(_ value: UInt64, _ width: Int) -> String {
            let digits = String(value)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        let year = 1000 + bits % 2000
        let month = 1 + (bits >> 11) % 12
        let day = 1 + (bits >> 15) % 28
        let hour = (bits >> 20) % 24
        let minute = (bits >> 25) % 60
        let second = (bits >> 31) % 60
        let millisecond = (bits >> 37) % 1000
        return "\(padded(year, 4))-\(padded(month, 2))-\(padded(day, 2)) \(padded(hour, 2)):"
            + "\(padded(minute, 2)):\(padded(second, 2)).\(padded(millisecond, 3))"
    }
}
