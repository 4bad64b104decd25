import CSQLite

/// The positional values of an ``SQL`` value: held inline (no allocation) up to
/// ``inlineCapacity``, in an array beyond.
///
/// A statement run in a loop (`"INSERT ... VALUES (\(name), \(score))"`) built an array of its
/// values on every call, and allocating it cost as much as binding them. Most SQL written in
/// code binds a handful of integers, reals, texts and NULLs: those are kept inline, as raw
/// bits and strings rather than as ``DatabaseValue``s, so that copying them is a copy of bytes
/// and a retain per string, and they are bound from here without a switch over an enum of
/// five payloads. A blob, or more values than fit, moves them all to an array.
///
/// Appending is `@inlinable`, as is building an ``SQL`` literal: inlined into the caller's
/// loop, the slots an interpolation fills are known there, and building and destroying the
/// value costs a few stores instead of calls that copy and release every slot.
@usableFromInline
struct SQLValues: Sendable {
    // Not a stored `static let`: inlined code would reach it through its lazy initializer.
    @inlinable static var inlineCapacity: Int { 4 }

    @usableFromInline
    enum Kind: UInt8, Sendable {
        case null, integer, real, text
    }

    /// One kind per inline value.
    @usableFromInline var kinds = InlineSlots<Kind>(repeating: .null)
    /// The integer, or the bit pattern of the real, of each inline value.
    @usableFromInline var bits = InlineSlots<UInt64>(repeating: 0)
    /// The text of each inline text value; the empty string (no allocation) elsewhere.
    @usableFromInline var texts = InlineSlots<String>(repeating: "")
    /// All the values, once they did not fit inline (or when given as an array).
    @usableFromInline var spilled: [DatabaseValue]?
    /// How many values there are.
    @usableFromInline var count = 0

    @inlinable init() {}

    /// Values already in an array: kept as they are.
    init(_ values: [DatabaseValue]) {
        if !values.isEmpty {
            spilled = values
            count = values.count
        }
    }

    var isEmpty: Bool { count == 0 }

    mutating func append(_ value: DatabaseValue) {
        guard spilled == nil, count < Self.inlineCapacity else { return appendSpilling(value) }
        let index = count
        switch value {
        case .null:
            kinds[index] = .null
        case .integer(let integer):
            kinds[index] = .integer
            bits[index] = UInt64(bitPattern: integer)
        case .real(let real):
            kinds[index] = .real
            bits[index] = real.bitPattern
        case .text(let text):
            kinds[index] = .text
            texts[index] = text
        case .blob:
            return appendSpilling(value)
        }
        count += 1
    }

    @inlinable
    mutating func append(integer: Int64) {
        guard spilled == nil, count < Self.inlineCapacity else { return appendSpilling(.integer(integer)) }
        kinds[count] = .integer
        bits[count] = UInt64(bitPattern: integer)
        count += 1
    }

    @inlinable
    mutating func append(real: Double) {
        guard spilled == nil, count < Self.inlineCapacity else { return appendSpilling(.real(real)) }
        kinds[count] = .real
        bits[count] = real.bitPattern
        count += 1
    }

    @inlinable
    mutating func append(text: String) {
        guard spilled == nil, count < Self.inlineCapacity else { return appendSpilling(.text(text)) }
        kinds[count] = .text
        texts[count] = text
        count += 1
    }

    /// Appends to the array, moving the inline values there first. In place, so that a long
    /// list (`IN \(list: ids)`) appends in amortized constant time.
    @usableFromInline
    mutating func appendSpilling(_ value: DatabaseValue) {
        if spilled == nil {
            var all = array
            all.reserveCapacity(Self.inlineCapacity * 2)
            texts = InlineSlots(repeating: "")
            spilled = all
        }
        spilled?.append(value)
        count += 1
    }

    mutating func append(contentsOf values: SQLValues) {
        if values.isEmpty { return }
        if isEmpty {
            self = values
            return
        }
        for index in 0..<values.count { append(values[index]) }
    }

    /// The value at `index`, below ``count``.
    subscript(index: Int) -> DatabaseValue {
        if let spilled { return spilled[index] }
        switch kinds[index] {
        case .null: return .null
        case .integer: return .integer(Int64(bitPattern: bits[index]))
        case .real: return .real(Double(bitPattern: bits[index]))
        case .text: return .text(texts[index])
        }
    }

    /// The values as an array, for the API that exposes them.
    var array: [DatabaseValue] {
        if let spilled { return spilled }
        return (0..<count).map { self[$0] }
    }

    /// Binds every value to `statement`'s parameters 1, 2, ... in order.
    func bind(to statement: Statement) throws {
        if let spilled {
            for (index, value) in spilled.enumerated() { try statement.bind(value, toParameter: index + 1) }
            return
        }
        // Slot by slot, without a switch over the index to find each slot.
        guard count > 0 else { return }
        try Self.bind(kinds.elements.0, bits.elements.0, texts.elements.0, at: 1, to: statement)
        guard count > 1 else { return }
        try Self.bind(kinds.elements.1, bits.elements.1, texts.elements.1, at: 2, to: statement)
        guard count > 2 else { return }
        try Self.bind(kinds.elements.2, bits.elements.2, texts.elements.2, at: 3, to: statement)
        guard count > 3 else { return }
        try Self.bind(kinds.elements.3, bits.elements.3, texts.elements.3, at: 4, to: statement)
    }

    @inline(__always)
    private static func bind(
        _ kind: Kind, _ bits: UInt64, _ text: String, at position: Int32, to statement: Statement
    ) throws {
        let code: Int32
        switch kind {
        case .null:
            code = sqlite3_bind_null(statement.handle, position)
        case .integer:
            code = sqlite3_bind_int64(statement.handle, position, Int64(bitPattern: bits))
        case .real:
            // The same check as binding a `DatabaseValue`: SQLite would store NULL for NaN.
            let real = Double(bitPattern: bits)
            guard !real.isNaN else { throw ValueConversionError.nanParameter("\(position)") }
            code = sqlite3_bind_double(statement.handle, position, real)
        case .text:
            code = statement.bind(text: text, at: position)
        }
        if code != SQLITE_OK {
            throw DatabaseError.fromConnection(statement.connectionHandle, code: code, sql: statement.sql)
        }
    }
}

/// Four values of one type held inline, read and written by index: the slots of ``SQLValues``.
@usableFromInline
struct InlineSlots<Element: Sendable>: Sendable {
    /// The slots themselves, for code that reads them in order without a switch.
    @usableFromInline var elements: (Element, Element, Element, Element)

    @inlinable
    init(repeating element: Element) {
        elements = (element, element, element, element)
    }

    @inlinable
    subscript(index: Int) -> Element {
        @inline(__always) get {
            switch index {
            case 0: elements.0
            case 1: elements.1
            case 2: elements.2
            default: elements.3
            }
        }
        @inline(__always) set {
            switch index {
            case 0: elements.0 = newValue
            case 1: elements.1 = newValue
            case 2: elements.2 = newValue
            default: elements.3 = newValue
            }
        }
    }
}
