import CSQLite
import Foundation

/// Encoding a model by binding each stored property straight from its memory to the model's
/// cached INSERT or UPDATE, instead of calling its `encode(to:)` and binding an array of
/// ``DatabaseValue``s: the mirror of ``LayoutDecoding``.
///
/// The keyed container's `encode(to:)` costs, per property, the standard library's container
/// box and a dynamic dispatch, then an enum value per column and a second pass to bind it:
/// more than SQLite's own insert. A model qualifies when it decodes in place (its stored
/// properties are all ``LayoutLeaf`` types, each filled from one column) and
/// ``LayoutEncodingProof`` has shown, on probe values, that its `encode(to:)` writes exactly what
/// the direct read binds: the same column per property, the same storage class and bytes. A
/// row the direct read declines (NaN, an out-of-range `UInt64` or date, a string array that
/// needs JSON escaping, a nil primary key) goes through `encode(to:)`, so the values stored and
/// the errors thrown stay those of the Codable path.
enum LayoutEncoding {
    private struct Key: Hashable {
        let type: ObjectIdentifier
        let dateStorage: DateStorage
    }

    /// The verdict per model type and connection date storage.
    private static let verdicts = Locked<[Key: EncodingLayout?]>([:])

    /// The proven layout of a model for a connection's date storage; `nil` when the model keeps
    /// its `encode(to:)`. Proven on first use and remembered.
    static func layout<M: Model>(for type: M.Type, table: TableSchema, dateStorage: DateStorage)
        -> EncodingLayout?
    {
        if let last = table.encodingVerdict.withLock({ $0 }), last.storage == dateStorage {
            return last.layout
        }
        let key = Key(type: ObjectIdentifier(M.self), dateStorage: dateStorage)
        let verdict: EncodingLayout?
        if let known = verdicts.withLock({ $0[key] }) {
            verdict = known
        } else {
            // Proven outside the lock: the proof runs the model's own code.
            verdict = LayoutEncodingProof.verify(M.self, table: table, dateStorage: dateStorage)
            verdicts.withLock { $0[key] = verdict }
        }
        table.encodingVerdict.withLock { $0 = (dateStorage, verdict) }
        return verdict
    }
}

extension RowEncoder {
    /// Whether a model's rows are written by binding its stored properties in place, without
    /// calling its `encode(to:)`.
    ///
    /// A model that decodes in place (see ``RowDecoder/decodesInPlace(_:)``) and whose
    /// `encode(to:)` is shown on probe values to write each property unchanged into its column
    /// (the synthesized one does) is inserted and updated by binding each property straight
    /// from the model to the cached statement. A row the direct read declines (NaN, a `UInt64`
    /// above `Int64.max`, a date text cannot hold, a string array that needs JSON escaping)
    /// goes through `encode(to:)`, so values and errors are the same either way. Use this in a
    /// test to keep a hot model on the fast path.
    ///
    /// - Parameters:
    ///   - type: The model type; the check runs once per type and date storage.
    ///   - dateStorage: The connection's date storage (``Configuration/dateStorage``).
    /// - Returns: `true` when inserts and updates of `type` bind its properties in place.
    public static func encodesInPlace<M: Model>(_ type: M.Type, dateStorage: DateStorage = .text) -> Bool {
        guard let table = try? TableSchemaCache.schema(for: M.self) else { return false }
        return LayoutEncoding.layout(for: M.self, table: table, dateStorage: dateStorage) != nil
    }
}

/// One stored property bound in place: where it is, what it is, how its dates are stored.
struct EncodingField: Sendable {
    let offset: Int
    let leaf: LayoutLeaf
    let isOptional: Bool
    /// The column's date storage (only read for `.date`).
    let dateStorage: DateStorage
    /// A primary key column SQLite does not assign: a nil value is for the Codable path, which
    /// refuses it with its own error.
    let isRequiredKey: Bool
}

/// A model's stored properties in the order of its cached statements' parameters.
final class EncodingLayout: Sendable {
    /// In ``ModelStatements/columns`` order: the INSERT's parameters.
    let insertFields: [EncodingField]
    /// In ``ModelStatements/updateOrder``: the UPDATE's parameters (non-key columns, then the
    /// key); `nil` when the model has no UPDATE.
    let updateFields: [EncodingField]?

    init(insertFields: [EncodingField], updateFields: [EncodingField]?) {
        self.insertFields = insertFields
        self.updateFields = updateFields
    }

    /// Binds the properties of the model at `model` to the statement's parameters 1...n;
    /// `false` when a value is one the direct read declines (the row is then for the Codable
    /// path, which binds every parameter again).
    @inline(__always)
    static func bind(
        _ fields: [EncodingField], from model: UnsafeRawPointer, to statement: Statement
    ) -> Bool {
        var index: Int32 = 1
        for field in fields {
            guard statement.bindInPlace(field, at: model + field.offset, toParameter: index) else {
                return false
            }
            index += 1
        }
        return true
    }
}
