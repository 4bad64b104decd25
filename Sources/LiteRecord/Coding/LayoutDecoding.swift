import CSQLite

/// Decoding a row by writing each stored property in place at its offset, straight from
/// SQLite's values, instead of calling the type's `init(from:)`.
///
/// Every property a keyed container hands to `init(from:)` costs the standard library's
/// `KeyedDecodingContainer` box and a dynamic dispatch before LiteRecord reads anything: about
/// twice SQLite's own cost for a row of small values. A struct made only of the property types
/// of ``LayoutLeaf`` skips that, once ``LayoutProof`` has shown on probe rows that its
/// `init(from:)` puts each column, unchanged, into one stored property. Any row the in-place
/// read declines (NULL into a non-optional, another storage class, out of range, bad text) is
/// decoded again by `init(from:)`, so values and errors stay those of `init(from:)`.
package enum LayoutDecoding {
    /// The verdict per type: its layout, or `nil` when it keeps `init(from:)`.
    private static let verdicts = Locked<[ObjectIdentifier: TypeLayout?]>([:])

    /// The verified layout of a type, proven on first use; `nil` when the type keeps its
    /// `init(from:)`.
    package static func layout<T: Decodable>(for type: T.Type) -> TypeLayout? {
        let identifier = ObjectIdentifier(T.self)
        if let known = verdicts.withLock({ $0[identifier] }) { return known }
        // Proven outside the lock: the proof runs the type's own code. A model whose schema
        // asks for `init(from:)` on every row is not even probed.
        let requiresInitializer = (T.self as? any Model.Type)?.requiresInitializerDecoding ?? false
        let verdict = requiresInitializer ? nil : LayoutProof.verify(T.self)
        verdicts.withLock { $0[identifier] = verdict }
        return verdict
    }
}

extension RowDecoder {
    /// Whether rows of a type are built in place, without calling its `init(from:)`.
    ///
    /// A struct whose stored properties are all integers, `Double`, `Float`, `Bool`, `String`,
    /// `Data`, `Date`, `[String]` or optionals of these, and whose `init(from:)` is shown on
    /// probe rows to store each column unchanged in one property (the synthesized one does),
    /// is decoded by writing each property straight from SQLite's value: about twice as fast
    /// for rows of small values. Every other type, and every row the direct read declines (a
    /// NULL, a value out of range, another storage class), goes through `init(from:)`, so
    /// values and errors are the same either way. Use this in a test to keep a hot model on
    /// the fast path. A model whose schema declares `.decoding(.initializer)` is never built
    /// in place (see ``ModelDecoding``).
    ///
    /// - Parameter type: The type to check; the check runs once per type and is remembered.
    /// - Returns: `true` when rows of `type` fetched from a statement are built in place.
    public static func decodesInPlace<T: Decodable>(_ type: T.Type) -> Bool {
        LayoutDecoding.layout(for: T.self) != nil
    }
}

/// The stored properties of a struct that decodes in place, each with the coding key whose
/// column it holds.
package final class TypeLayout: Sendable {
    package struct Field: Sendable {
        package let key: String
        package let offset: Int
        package let leaf: LayoutLeaf
        package let isOptional: Bool
    }

    /// In declaration (memory) order.
    package let fields: [Field]

    init(fields: [Field]) {
        self.fields = fields
    }
}

/// A ``TypeLayout`` bound to a statement's columns, with the memory one row is built in.
///
/// Kept by the statement's ``DecodingPlan``; used by one fetch at a time.
final class LayoutBinding {
    private typealias BoundField = BoundLayoutField<Shortcut>

    /// The commonest properties, read without going through ``LayoutLeaf/read(_:isOptional:into:)``:
    /// the same storage classes accepted, the same SQLite function, one store.
    private enum Shortcut: UInt8 {
        /// A non-optional 64-bit integer (`Int` on 64-bit platforms, `Int64`).
        case integer64
        /// A non-optional `Double`.
        case double
        case none

        init(_ leaf: LayoutLeaf, isOptional: Bool) {
            switch (leaf, isOptional) {
            case (.int64, false): self = .integer64
            case (.int, false):
                #if _pointerBitWidth(_64)
                    self = .integer64
                #else
                    self = .none
                #endif
            case (.double, false): self = .double
            default: self = .none
            }
        }
    }

    private let fields: UnsafeMutableBufferPointer<BoundField>
    /// Room for one value of the decoded type: uninitialized between rows.
    private let storage: UnsafeMutableRawPointer
    private let type: ObjectIdentifier

    /// Binds a layout to columns; `nil` when a property's column is missing (the row is then
    /// for `init(from:)`, which reports the missing column or reads `nil`, as it chooses).
    ///
    /// - Parameter columnIndex: The column holding a coding key, as the keyed container finds it.
    init?<T>(_ type: T.Type, layout: TypeLayout, columnIndex: (String) -> Int?) {
        var bound: [BoundField] = []
        for field in layout.fields {
            guard let column = columnIndex(field.key), let position = Int32(exactly: column) else {
                return nil
            }
            let shortcut = Shortcut(field.leaf, isOptional: field.isOptional)
            bound.append(BoundField(column: position, field: field, reading: shortcut))
        }
        fields = .allocate(capacity: bound.count)
        _ = fields.initialize(from: bound)
        storage = UnsafeMutableRawPointer(UnsafeMutablePointer<T>.allocate(capacity: 1))
        self.type = ObjectIdentifier(T.self)
    }

    deinit {
        fields.deallocate()
        storage.deallocate()
    }

    /// Reads the statement's current row into ``storage``; `false`, with nothing left
    /// initialized, when a value is not one the in-place read accepts.
    @inline(__always)
    func fill(from statement: OpaquePointer) -> Bool {
        fill(from: statement, into: storage)
    }

    /// Reads the statement's current row into uninitialized memory for one value of the
    /// decoded type (an array's next element, say); `false`, with nothing left initialized
    /// there, when a value is not one the in-place read accepts.
    @inline(__always)
    func fill(from statement: OpaquePointer, into target: UnsafeMutableRawPointer) -> Bool {
        var field = fields.baseAddress
        let end = field.map { $0 + fields.count }
        while let current = field, current != end {
            guard let value = sqlite3_column_value(statement, current.pointee.column),
                Self.read(value, current.pointee, into: target + current.pointee.offset)
            else {
                destroyFields(upTo: current - fields.baseAddress.unsafelyUnwrapped, at: target)
                return false
            }
            field = current + 1
        }
        return true
    }

    @inline(__always)
    private static func read(
        _ value: OpaquePointer, _ field: BoundField, into target: UnsafeMutableRawPointer
    )
        -> Bool
    {
        switch field.reading {
        case .integer64:
            // As `LayoutLeaf.read` for `.int64`: INTEGER only, every value in range.
            guard sqlite3_value_type(value) == SQLITE_INTEGER else { return false }
            target.initializeMemory(as: Int64.self, to: sqlite3_value_int64(value))
            return true
        case .double:
            // As `LayoutLeaf.read` for `.double`: REAL, or INTEGER converted by SQLite.
            let storage = sqlite3_value_type(value)
            guard storage == SQLITE_FLOAT || storage == SQLITE_INTEGER else { return false }
            target.initializeMemory(as: Double.self, to: sqlite3_value_double(value))
            return true
        case .none:
            return field.leaf.read(value, isOptional: field.isOptional, into: target)
        }
    }

    /// The value ``fill(from:)`` built, moved out: the storage is uninitialized again.
    @inline(__always)
    func take<T>(_ type: T.Type) -> T {
        storage.assumingMemoryBound(to: T.self).move()
    }

    /// The value ``fill(from:)`` built, for comparing it in place; ``discard()`` destroys it.
    var filled: UnsafeRawPointer { UnsafeRawPointer(storage) }

    /// Destroys the value ``fill(from:)`` built without taking it.
    func discard() {
        destroyFields(upTo: fields.count, at: storage)
    }

    /// Destroys the first `count` properties written at `target`, the ones a declined row
    /// already wrote.
    private func destroyFields(upTo count: Int, at target: UnsafeMutableRawPointer) {
        for field in fields[0..<count] where field.leaf.needsCleanup {
            field.leaf.destroy(isOptional: field.isOptional, at: target + field.offset)
        }
    }
}
