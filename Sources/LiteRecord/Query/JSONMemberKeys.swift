import Foundation

/// The JSON keys of the members a key path reads inside a JSON column: each nested type's own
/// `CodingKeys`, not its Swift property names (`case wins = "w"` is read at `$.w`).
///
/// Each nested type is probed once (``SchemaProbe``, as a model type is) and its properties are
/// matched to its coding keys the way a model's are; the result is kept per type.
enum JSONMemberKeys {
    /// The coding keys along `names`, property names of `rootType` and then of each member's type.
    ///
    /// A type that cannot be probed (not a struct, not `Decodable`, a decoder that rejects
    /// every placeholder) keeps the property names, as a JSON path did before.
    ///
    /// - Throws: ``SchemaError`` when a property has no coding key: it is not encoded, so the
    ///   JSON holds no value for it.
    ///
    /// - Parameter skipping: How many leading names only lead to the next type (the model's
    ///   column property, whose key the table already knows); they have no key in the result.
    static func keys(
        along names: [String], from rootType: Any.Type, skipping: Int = 0, keyPathText: String
    ) throws -> [String] {
        var type = unwrapped(rootType)
        var keys: [String] = []
        for (position, name) in names.enumerated() {
            if position < skipping {
                let field = PropertyPath.storedFields(of: type)?.first { $0.name == name }
                type = field.map { unwrapped($0.type) } ?? Never.self
                continue
            }
            guard let fields = PropertyPath.storedFields(of: type),
                let field = fields.first(where: { $0.name == name })
            else {
                keys.append(name)
                type = Never.self
                continue
            }
            if let keyForProperty = keyMap(of: type) {
                guard let key = keyForProperty[name] else {
                    throw SchemaError(
                        "\(keyPathText): property \(name) of \(type) has no coding key, so it is not encoded "
                            + "and the JSON holds no value for it")
                }
                keys.append(key)
            } else {
                keys.append(name)
            }
            type = unwrapped(field.type)
        }
        return keys
    }

    private static let cache = Locked<[ObjectIdentifier: [String: String]?]>([:])

    /// Property name → coding key of a struct type, or `nil` when it cannot be probed.
    private static func keyMap(of type: Any.Type) -> [String: String]? {
        let id = ObjectIdentifier(type)
        if let known = cache.withLock({ $0[id] }) { return known }
        let map = probeKeyMap(type)
        cache.withLock { $0[id] = map }
        return map
    }

    private static func probeKeyMap(_ type: Any.Type) -> [String: String]? {
        guard let decodable = type as? any Decodable.Type,
            let fields = PropertyPath.storedFields(of: type),
            let probe = try? probeResult(decodable)
        else { return nil }
        return TableSchema.matchProperties(fields: fields.map(\.name), probe: probe)
    }

    private static func probeResult<T: Decodable>(_ type: T.Type) throws -> SchemaProbe.Result {
        try SchemaProbe.probe(T.self)
    }

    private static func unwrapped(_ type: Any.Type) -> Any.Type {
        (type as? any OptionalWrapper.Type)?.wrappedType ?? type
    }
}
