import Foundation

/// A `Decoder` over the JSON held by one column, for a type whose `init(from:)` reads that
/// column through `nestedContainer(keyedBy:forKey:)`, `nestedUnkeyedContainer(forKey:)` or
/// `superDecoder(forKey:)`: the mirror of ``JSONTreeEncoding``.
///
/// Each value inside is decoded by the shared JSON decoder, so it reads exactly what the same
/// value stored as a whole would read.
struct JSONTreeDecoding: Decoder {
    let node: Any
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    init(node: Any, codingPath: [any CodingKey]) {
        self.node = node
        self.codingPath = codingPath
    }

    init(jsonColumn value: DatabaseValue, codingPath: [any CodingKey]) throws {
        let data: Data
        switch value {
        case .text(let text): data = Data(text.utf8)
        case .blob(let blob): data = blob
        default:
            throw ValueConversionError(value: value, to: [String: Any].self, reason: "expected JSON text")
        }
        // Parsed by JSONDecoder, not JSONSerialization: on Linux, JSONSerialization drops a
        // U+FEFF at the start of a string value ("\u{FEFF}x" reads as "x").
        self.init(
            node: try JSONColumn.decoder.decode(JSONNode.self, from: data).value, codingPath: codingPath)
    }

    /// Any JSON value as the `Any` tree JSONSerialization would build: `NSNull`, `Bool`, `Int`,
    /// `UInt64`, `Double`, `String`, `[Any]`, `[String: Any]`.
    private struct JSONNode: Decodable {
        let value: Any

        init(from decoder: any Decoder) throws {
            if let object = try? decoder.container(keyedBy: NameKey.self) {
                var dictionary: [String: Any] = [:]
                for key in object.allKeys {
                    dictionary[key.stringValue] = try object.decode(JSONNode.self, forKey: key).value
                }
                value = dictionary
            } else if var array = try? decoder.unkeyedContainer() {
                var elements: [Any] = []
                while !array.isAtEnd { elements.append(try array.decode(JSONNode.self).value) }
                value = elements
            } else {
                let single = try decoder.singleValueContainer()
                if single.decodeNil() {
                    value = NSNull()
                } else if let bool = try? single.decode(Bool.self) {
                    value = bool
                } else if let integer = try? single.decode(Int.self) {
                    value = integer
                } else if let unsigned = try? single.decode(UInt64.self) {
                    value = unsigned
                } else if let number = try? single.decode(Double.self) {
                    value = number
                } else {
                    value = try single.decode(String.self)
                }
            }
        }
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard let object = node as? [String: Any] else {
            throw DecodingError.typeMismatch(
                [String: Any].self, .init(codingPath: codingPath, debugDescription: "expected a JSON object"))
        }
        return KeyedDecodingContainer(Keyed<Key>(object: object, codingPath: codingPath))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard let array = node as? [Any] else {
            throw DecodingError.typeMismatch(
                [Any].self, .init(codingPath: codingPath, debugDescription: "expected a JSON array"))
        }
        return Unkeyed(array: array, codingPath: codingPath)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        Single(node: node, codingPath: codingPath)
    }

    /// Decodes a JSON subtree with the shared decoder.
    static func decode<T: Decodable>(_ type: T.Type, from node: Any, codingPath: [any CodingKey]) throws -> T
    {
        do {
            let data = try JSONSerialization.data(withJSONObject: node, options: .fragmentsAllowed)
            return try JSONColumn.decoder.decode(T.self, from: data)
        } catch let error as DecodingError {
            throw error
        } catch {
            throw DecodingError.dataCorrupted(
                .init(codingPath: codingPath, debugDescription: "invalid JSON value", underlyingError: error))
        }
    }

    static func isNull(_ node: Any?) -> Bool {
        node == nil || node is NSNull
    }

    struct Keyed<Key: CodingKey>: KeyedDecodingContainerProtocol {
        let object: [String: Any]
        let codingPath: [any CodingKey]
        var allKeys: [Key] { object.keys.compactMap { Key(stringValue: $0) } }

        func contains(_ key: Key) -> Bool { object[key.stringValue] != nil }

        private func node(_ key: Key) throws -> Any {
            guard let node = object[key.stringValue] else {
                throw DecodingError.keyNotFound(
                    key,
                    .init(
                        codingPath: codingPath, debugDescription: "no key \"\(key.stringValue)\" in the JSON")
                )
            }
            return node
        }

        func decodeNil(forKey key: Key) throws -> Bool { JSONTreeDecoding.isNull(try node(key)) }
        func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
            try JSONTreeDecoding.decode(T.self, from: node(key), codingPath: codingPath + [key])
        }
        func nestedContainer<NestedKey: CodingKey>(
            keyedBy type: NestedKey.Type, forKey key: Key
        ) throws -> KeyedDecodingContainer<NestedKey> {
            try JSONTreeDecoding(node: node(key), codingPath: codingPath + [key]).container(keyedBy: type)
        }
        func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
            try JSONTreeDecoding(node: node(key), codingPath: codingPath + [key]).unkeyedContainer()
        }
        func superDecoder() throws -> any Decoder {
            JSONTreeDecoding(node: object["super"] ?? NSNull(), codingPath: codingPath + [NameKey("super")])
        }
        func superDecoder(forKey key: Key) throws -> any Decoder {
            JSONTreeDecoding(node: object[key.stringValue] ?? NSNull(), codingPath: codingPath + [key])
        }
    }

    struct Unkeyed: UnkeyedDecodingContainer {
        let array: [Any]
        let codingPath: [any CodingKey]
        var currentIndex = 0
        var count: Int? { array.count }
        var isAtEnd: Bool { currentIndex >= array.count }

        init(array: [Any], codingPath: [any CodingKey]) {
            self.array = array
            self.codingPath = codingPath
        }

        private mutating func next() throws -> (node: Any, path: [any CodingKey]) {
            guard !isAtEnd else {
                throw DecodingError.valueNotFound(
                    Any.self,
                    .init(codingPath: codingPath, debugDescription: "the JSON array has no more elements"))
            }
            defer { currentIndex += 1 }
            return (array[currentIndex], codingPath + [IndexKey(currentIndex)])
        }

        mutating func decodeNil() throws -> Bool {
            guard !isAtEnd, JSONTreeDecoding.isNull(array[currentIndex]) else { return false }
            currentIndex += 1
            return true
        }
        mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
            let (node, path) = try next()
            return try JSONTreeDecoding.decode(T.self, from: node, codingPath: path)
        }
        mutating func nestedContainer<NestedKey: CodingKey>(
            keyedBy type: NestedKey.Type
        ) throws -> KeyedDecodingContainer<NestedKey> {
            let (node, path) = try next()
            return try JSONTreeDecoding(node: node, codingPath: path).container(keyedBy: type)
        }
        mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
            let (node, path) = try next()
            return try JSONTreeDecoding(node: node, codingPath: path).unkeyedContainer()
        }
        mutating func superDecoder() throws -> any Decoder {
            let (node, path) = try next()
            return JSONTreeDecoding(node: node, codingPath: path)
        }
    }

    struct Single: SingleValueDecodingContainer {
        let node: Any
        let codingPath: [any CodingKey]
        func decodeNil() -> Bool { JSONTreeDecoding.isNull(node) }
        func decode<T: Decodable>(_ type: T.Type) throws -> T {
            try JSONTreeDecoding.decode(T.self, from: node, codingPath: codingPath)
        }
    }
}
