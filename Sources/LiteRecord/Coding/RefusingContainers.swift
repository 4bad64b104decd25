/// What a container that takes no value does with a write.
///
/// Two encoders need such containers: the single-value probe, whose containers throw
/// ``NeedsJSON`` so that probing stops at the first container use, and the row encoder after
/// a misuse it has recorded, whose containers swallow the rest. A generic parameter rather than
/// a stored flag: each use is specialized, as the two hand-written families were.
protocol WriteRefusal {
    /// Called for every write.
    static func refuse() throws
    /// What `superEncoder()` returns.
    static func superEncoder() -> any Encoder
}

/// The probe's refusal: the value needs a container, so it is stored as JSON.
enum ThrowNeedsJSON: WriteRefusal {
    static func refuse() throws { throw NeedsJSON() }
    static func superEncoder() -> any Encoder { SingleValueProbe() }
}

/// The row encoder's refusal after an error: the error already recorded is the one reported.
enum DiscardWrites: WriteRefusal {
    static func refuse() {}
    static func superEncoder() -> any Encoder { DiscardingEncoder() }
}

/// A keyed container that takes no value; its nested containers take none either.
struct RefusingKeyedContainer<Key: CodingKey, Refusal: WriteRefusal>: KeyedEncodingContainerProtocol {
    var codingPath: [any CodingKey] { [] }
    mutating func encodeNil(forKey key: Key) throws { try Refusal.refuse() }
    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws { try Refusal.refuse() }
    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type, forKey key: Key
    ) -> KeyedEncodingContainer<NestedKey> {
        KeyedEncodingContainer(RefusingKeyedContainer<NestedKey, Refusal>())
    }
    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        RefusingUnkeyedContainer<Refusal>()
    }
    mutating func superEncoder() -> any Encoder { Refusal.superEncoder() }
    mutating func superEncoder(forKey key: Key) -> any Encoder { Refusal.superEncoder() }
}

/// An unkeyed container that takes no value; its nested containers take none either.
struct RefusingUnkeyedContainer<Refusal: WriteRefusal>: UnkeyedEncodingContainer {
    var codingPath: [any CodingKey] { [] }
    var count: Int { 0 }
    mutating func encodeNil() throws { try Refusal.refuse() }
    mutating func encode<T: Encodable>(_ value: T) throws { try Refusal.refuse() }
    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type
    ) -> KeyedEncodingContainer<NestedKey> {
        KeyedEncodingContainer(RefusingKeyedContainer<NestedKey, Refusal>())
    }
    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer { self }
    mutating func superEncoder() -> any Encoder { Refusal.superEncoder() }
}
