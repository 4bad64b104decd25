/// Decodes a `Decodable` of the caller's from a fetched row and the related rows that came
/// with it (a ``RelationNode``): each property is matched by its type, whatever its name.
///
/// A property of the root model's type gets the row; one of type `[Child]` (to-many) or
/// `Child?` (to-one) gets the related rows; any other `Decodable` (or array of them) is decoded
/// the same way from the related row(s), which is how nested trees map to nested structs.
enum RelationTreeDecoder {
    /// Decodes `T` from a node: its row when `T` is the row's model, else `T(from:)`.
    static func decode<T: Decodable>(
        _ type: T.Type, from node: RelationNode, codingPath: [any CodingKey] = []
    )
        throws -> T
    {
        if let root = node.root as? T, Swift.type(of: node.root) == T.self { return root }
        return try T(from: NodeDecoder(node: node, typeName: "\(T.self)", codingPath: codingPath))
    }

    /// Describes what a node holds, for messages: `ChinookAlbum with [ChinookTrack]`.
    static func contents(of node: RelationNode) -> String {
        let root = "\(Swift.type(of: node.root))"
        switch node.related {
        case .none: return "\(root) alone"
        case .many(let type, _): return "\(root) with [\(type)]"
        case .one(let type, _): return "\(root) with \(type)?"
        }
    }
}

/// Arrays whose elements can each be decoded from a related row: `[Book]`, `[BookWithReviews]`.
private protocol RelationArray {
    static var elementType: Any.Type { get }
    static func decode(_ nodes: [RelationNode], codingPath: [any CodingKey]) throws -> Self
}

extension Array: RelationArray where Element: Decodable {
    fileprivate static var elementType: Any.Type { Element.self }

    fileprivate static func decode(_ nodes: [RelationNode], codingPath: [any CodingKey]) throws -> Self {
        try nodes.map { try RelationTreeDecoder.decode(Element.self, from: $0, codingPath: codingPath) }
    }
}

private struct NodeDecoder: Decoder {
    let node: RelationNode
    /// The type being decoded, for messages.
    let typeName: String
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        KeyedDecodingContainer(NodeContainer<Key>(decoder: self))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer { throw shapeError() }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { throw shapeError() }

    func shapeError() -> SchemaError {
        SchemaError(
            "\(typeName) cannot be decoded from \(RelationTreeDecoder.contents(of: node)): decode a struct whose "
                + "properties are the models (e.g. `var author: Author; var books: [Book]`)")
    }
}

private struct NodeContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let decoder: NodeDecoder
    var codingPath: [any CodingKey] { decoder.codingPath }
    var allKeys: [Key] { [] }
    private var node: RelationNode { decoder.node }

    func contains(_ key: Key) -> Bool { true }

    func decodeNil(forKey key: Key) throws -> Bool { false }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        guard let value = try decodeIfPresent(T.self, forKey: key) else {
            throw SchemaError(
                "\(decoder.typeName).\(key.stringValue) asks for a \(T.self), but a \(Swift.type(of: node.root)) "
                    + "fetched has none (its key is NULL or matches no row): declare it \(T.self)?")
        }
        return value
    }

    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        let isRoot = Swift.type(of: node.root) == T.self
        let path = codingPath + [key]
        switch node.related {
        case .many(let childType, let nodes):
            if isRoot, let root = node.root as? T { return root }
            // `[Child]`, or an array of a struct of the caller's; not an array of another model.
            if let array = T.self as? any RelationArray.Type,
                array.elementType == childType || !(array.elementType is any Model.Type),
                let value = try array.decode(nodes, codingPath: path) as? T
            {
                return value
            }
        case .one(let childType, let child):
            if childType == T.self {
                guard !isRoot else { throw ambiguity(T.self, key: key) }
                return child?.root as? T
            }
            if isRoot, let root = node.root as? T { return root }
            if !(T.self is any Model.Type), !(T.self is any RelationArray.Type) {
                guard let child else { return nil }
                return try RelationTreeDecoder.decode(T.self, from: child, codingPath: path)
            }
        case .none:
            if isRoot, let root = node.root as? T { return root }
        }
        throw notFetched(T.self, key: key)
    }

    private func ambiguity(_ type: Any.Type, key: Key) -> SchemaError {
        SchemaError(
            "\(decoder.typeName).\(key.stringValue) asks for \(type), which is ambiguous: the query fetches "
                + "\(RelationTreeDecoder.contents(of: node)), so \(type) is both the row and its related row; "
                + "fetch the tuples with fetchAll() instead")
    }

    private func notFetched(_ type: Any.Type, key: Key) -> SchemaError {
        SchemaError(
            "\(decoder.typeName).\(key.stringValue) asks for \(type), but the query fetches "
                + "\(RelationTreeDecoder.contents(of: node)): declare properties of those types (names are free)"
        )
    }

    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { throw notFetched(type, key: key) }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { throw notFetched(type, key: key) }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { throw notFetched(type, key: key) }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { throw notFetched(type, key: key) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { throw notFetched(type, key: key) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { throw notFetched(type, key: key) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { throw notFetched(type, key: key) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { throw notFetched(type, key: key) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { throw notFetched(type, key: key) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { throw notFetched(type, key: key) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { throw notFetched(type, key: key) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { throw notFetched(type, key: key) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { throw notFetched(type, key: key) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { throw notFetched(type, key: key) }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws
        -> KeyedDecodingContainer<NestedKey>
    {
        throw notFetched(type, key: key)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        throw notFetched([Any].self, key: key)
    }

    func superDecoder() throws -> any Decoder { throw decoder.shapeError() }

    func superDecoder(forKey key: Key) throws -> any Decoder { throw decoder.shapeError() }
}
