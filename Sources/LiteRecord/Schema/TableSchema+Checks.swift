import Foundation

/// The checks that turn a type LiteRecord cannot map faithfully into a ``SchemaError`` that
/// says what to write instead, before any table is created.
extension TableSchema {
    /// The error for a model that is not a struct: a class, an enum, an actor.
    static func notAStructError(_ type: Any.Type) -> SchemaError {
        let name = String(describing: type)
        if type is AnyClass {
            return SchemaError(
                "\(name) is not a struct but a class, and a Model must be a struct: LiteRecord reads a model's columns from "
                    + "the stored properties of a struct (key paths in its schema and queries are offsets into "
                    + "them) and writes models by value; make \(name) a struct, and keep reference-type state "
                    + "(an observable view model, say) outside it, holding the struct")
        }
        return SchemaError(
            "\(name) is not a struct: a Model must be a struct so that its stored properties can name columns"
        )
    }

    /// Throws when the model encodes a stored property its `init(from:)` never decodes: it
    /// cannot be a column, since a row could be written but never read back. The usual cause
    /// is `let id = UUID()`, which Codable's synthesized `init(from:)` skips (a `let` with an
    /// initial value cannot be assigned again) and its `encode(to:)` writes.
    static func checkEveryEncodedKeyIsDecoded<M: Model>(
        _ type: M.Type, probe: SchemaProbe.Result, fields: [(name: String, offset: Int, type: Any.Type)]
    ) throws {
        guard let instance = probe.instance as? M,
            let encoded = try? RowEncoder(dateStorage: .text, columnDateStorage: [:]).encode(instance)
        else { return }
        let decoded = Set(probe.columns.map(\.key))
        // Only a stored property's own key: a custom encode(to:) may write an extra key (a type
        // tag) into a column an existing table has, and that keeps working.
        let encodedOnly = encoded.columns.filter { !decoded.contains($0) }
        guard let field = fields.first(where: { encodedOnly.contains($0.name) }) else { return }
        let key = field.name
        let typeName = String(describing: M.self)
        let example = field.type == UUID.self ? "UUID()" : "<initial value>"
        throw SchemaError(
            "\(typeName).\(key) is encoded but never decoded: a `let` with an initial value "
                + "(`let \(key) = \(example)`) is not decoded by Codable's synthesized init(from:), so it "
                + "cannot be a column; write `var \(key) = \(example)`, or `let \(key): \(field.type)` set in "
                + "an initializer. Nothing was created")
    }

    /// When the type has property wrappers, the advice to name their storage: a wrapped
    /// property is computed (its key path is no stored property), and Codable encodes the
    /// wrapper's storage `_level` under the key `level`.
    static func propertyWrapperHint(typeName: String, fields: [String], keys: [String]) -> String {
        let storages = fields.filter { $0.hasPrefix("_") && keys.contains(String($0.dropFirst())) }
        guard let storage = storages.first else { return "" }
        return
            "; \(typeName) has a property wrapper (storage \(storages.joined(separator: ", "))): the wrapped "
            + "property is computed, while its storage \(storage) is what Codable encodes (under the key "
            + "\(storage.dropFirst())); name the storage in the schema (\\.\(storage)) or use a plain stored property"
    }
}
