import Foundation

/// An `Encoder` that builds a JSON tree, for a row whose `encode(to:)` writes a column through
/// `nestedContainer(keyedBy:forKey:)`, `nestedUnkeyedContainer(forKey:)` or
/// `superEncoder(forKey:)`. The tree becomes the column's JSON text when the row is done.
///
/// Values inside are encoded by the shared JSON encoder, so the text matches what the same
/// value stored as a whole would give (sorted keys, same dates).
struct JSONTreeEncoding: Encoder {
    /// A JSON value under construction.
    final class Node {
        enum Content {
            case undecided
            case object([String: Node])
            case array([Node])
            /// A finished value, as a Foundation JSON object (`NSNull`, `NSNumber`, `String`, ...).
            case leaf(Any)
        }
        var content: Content

        init(_ content: Content) {
            self.content = content
        }

        func jsonObject() -> Any {
            switch content {
            case .undecided: return [String: Any]()
            case .object(let members): return members.mapValues { $0.jsonObject() }
            case .array(let items): return items.map { $0.jsonObject() }
            case .leaf(let value): return value
            }
        }

        func jsonText(codingPath: [any CodingKey]) throws -> DatabaseValue {
            do {
                let data = try JSONSerialization.data(
                    withJSONObject: jsonObject(),
                    options: [.sortedKeys, .fragmentsAllowed, .withoutEscapingSlashes])
                return .text(String(decoding: data, as: UTF8.self))
            } catch {
                throw EncodingError.invalidValue(
                    (), .init(codingPath: codingPath, debugDescription: "cannot write JSON: \(error)"))
            }
        }
    }

    let node: Node
    let codingPath: [any CodingKey]
    let storage: RowEncodingStorage
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        if case .undecided = node.content { node.content = .object([:]) }
        return KeyedEncodingContainer(Keyed<Key>(encoding: self))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        if case .undecided = node.content { node.content = .array([]) }
        return Unkeyed(encoding: self)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        Single(encoding: self)
    }

    /// Turns a value into a leaf with the shared JSON encoder's rules.
    static func leaf<T: Encodable>(_ value: T, codingPath: [any CodingKey]) throws -> Node {
        let data = try JSONColumn.encoder.encode(value)
        return Node(.leaf(try JSONSerialization.jsonObject(with: data, options: .fragmentsAllowed)))
    }

    func child(_ content: Node.Content, key: any CodingKey) -> JSONTreeEncoding {
        JSONTreeEncoding(node: Node(content), codingPath: codingPath + [key], storage: storage)
    }

    struct Keyed<Key: CodingKey>: KeyedEncodingContainerProtocol {
        let encoding: JSONTreeEncoding
        var codingPath: [any CodingKey] { encoding.codingPath }

        private func set(_ node: Node, _ key: any CodingKey) {
            guard case .object(var members) = encoding.node.content else { return }
            members[key.stringValue] = node
            encoding.node.content = .object(members)
        }

        mutating func encodeNil(forKey key: Key) throws { set(Node(.leaf(NSNull())), key) }
        mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
            set(try JSONTreeEncoding.leaf(value, codingPath: codingPath + [key]), key)
        }
        mutating func nestedContainer<NestedKey: CodingKey>(
            keyedBy keyType: NestedKey.Type, forKey key: Key
        ) -> KeyedEncodingContainer<NestedKey> {
            let child = encoding.child(.object([:]), key: key)
            set(child.node, key)
            return child.container(keyedBy: keyType)
        }
        mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
            let child = encoding.child(.array([]), key: key)
            set(child.node, key)
            return child.unkeyedContainer()
        }
        mutating func superEncoder() -> any Encoder { superEncoder(for: NameKey("super")) }
        mutating func superEncoder(forKey key: Key) -> any Encoder { superEncoder(for: key) }

        private func superEncoder(for key: any CodingKey) -> any Encoder {
            let child = encoding.child(.undecided, key: key)
            set(child.node, key)
            return child
        }
    }

    struct Unkeyed: UnkeyedEncodingContainer {
        let encoding: JSONTreeEncoding
        var codingPath: [any CodingKey] { encoding.codingPath }
        var count: Int {
            guard case .array(let items) = encoding.node.content else { return 0 }
            return items.count
        }

        private func append(_ node: Node) {
            guard case .array(var items) = encoding.node.content else { return }
            items.append(node)
            encoding.node.content = .array(items)
        }

        mutating func encodeNil() throws { append(Node(.leaf(NSNull()))) }
        mutating func encode<T: Encodable>(_ value: T) throws {
            append(try JSONTreeEncoding.leaf(value, codingPath: codingPath))
        }
        mutating func nestedContainer<NestedKey: CodingKey>(
            keyedBy keyType: NestedKey.Type
        ) -> KeyedEncodingContainer<NestedKey> {
            let child = encoding.child(.object([:]), key: IndexKey(count))
            append(child.node)
            return child.container(keyedBy: keyType)
        }
        mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
            let child = encoding.child(.array([]), key: IndexKey(count))
            append(child.node)
            return child.unkeyedContainer()
        }
        mutating func superEncoder() -> any Encoder {
            let child = encoding.child(.undecided, key: IndexKey(count))
            append(child.node)
            return child
        }
    }

    struct Single: SingleValueEncodingContainer {
        let encoding: JSONTreeEncoding
        var codingPath: [any CodingKey] { encoding.codingPath }

        mutating func encodeNil() throws { encoding.node.content = .leaf(NSNull()) }
        mutating func encode<T: Encodable>(_ value: T) throws {
            encoding.node.content = try JSONTreeEncoding.leaf(value, codingPath: codingPath).content
        }
    }
}

/// A coding key for an array position.
struct IndexKey: CodingKey {
    let intValue: Int?
    var stringValue: String { "Index \(intValue ?? 0)" }
    init(_ index: Int) { intValue = index }
    init?(stringValue: String) { return nil }
    init?(intValue: Int) { self.intValue = intValue }
}

/// A coding key for a fixed name.
struct NameKey: CodingKey {
    let stringValue: String
    var intValue: Int? { nil }
    init(_ name: String) { stringValue = name }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { return nil }
}

/// Swallows what is written after an error has been recorded, so that a non-throwing `Encoder`
/// method can report a misuse through the storage and still return a container.
struct DiscardingEncoder: Encoder {
    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }
    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        KeyedEncodingContainer(RefusingKeyedContainer<Key, DiscardWrites>())
    }
    func unkeyedContainer() -> any UnkeyedEncodingContainer { RefusingUnkeyedContainer<DiscardWrites>() }
    func singleValueContainer() -> any SingleValueEncodingContainer { DiscardingSingleValueContainer() }
}

struct DiscardingSingleValueContainer: SingleValueEncodingContainer {
    var codingPath: [any CodingKey] { [] }
    mutating func encodeNil() throws {}
    mutating func encode<T: Encodable>(_ value: T) throws {}
}
