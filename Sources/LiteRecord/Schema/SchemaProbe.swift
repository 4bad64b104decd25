import Foundation

/// What the probing decoder learned about one coding key.
struct ProbedColumn {
    /// The coding key's string value.
    let key: String
    /// The property's Swift type (the wrapped type for optionals).
    let type: Any.Type
    /// Whether the property was decoded with `decodeIfPresent` (an optional).
    let isOptional: Bool
}

/// Reads a type's columns without an instance, by decoding it from a decoder that records each
/// key asked for and answers with placeholder values.
///
/// Types whose `init(from:)` rejects a placeholder (validation, raw-value enums) are handled in
/// two ways: several placeholder profiles are tried (marked, zero, one); and when every profile
/// fails, the keys recorded before the failure are used if they cover every stored property.
/// A nested value that rejects all placeholders uses its first case (`CaseIterable`) or, for a
/// plain-data type such as a no-payload enum, its all-zero bit pattern, which is its first case.
enum SchemaProbe {
    /// The profiles, tried in order. `marked` makes each string and number unique per key so
    /// that the decoded instance tells which property each key filled.
    enum Profile: CaseIterable {
        case marked, zero, one
    }

    struct Result {
        let columns: [ProbedColumn]
        /// The decoded instance when one profile succeeded (the `marked` one ideally).
        let instance: Any?
        let profile: Profile?
        /// Property → coding key, found by changing one key's value at a time, when a profile
        /// other than `marked` succeeded (the type rejects marked values).
        var alternateMatches: [String: String] = [:]
    }

    static func probe<T: Decodable>(_ type: T.Type) throws -> Result {
        var best: (columns: [ProbedColumn], error: any Error)?
        for profile in Profile.allCases {
            let recorder = ProbeRecorder(profile: profile)
            do {
                let instance = try T(from: ProbeDecoder(recorder: recorder))
                var result = Result(columns: recorder.columns, instance: instance, profile: profile)
                if profile != .marked {
                    result.alternateMatches = matchByAlternates(
                        T.self, baseline: instance, profile: profile, keys: recorder.columns.map(\.key))
                }
                return result
            } catch {
                if recorder.columns.count > best?.columns.count ?? -1 {
                    best = (recorder.columns, error)
                }
            }
        }
        guard let best else { return Result(columns: [], instance: nil, profile: nil) }
        // Validation usually runs after every property is decoded: the keys are all there.
        let storedCount = PropertyPath.storedFields(of: T.self)?.count ?? 0
        if !best.columns.isEmpty && best.columns.count >= storedCount {
            return Result(columns: best.columns, instance: nil, profile: nil)
        }
        if let columns = completedFromStoredProperties(T.self, recorded: best.columns, error: best.error) {
            return Result(columns: columns, instance: nil, profile: nil)
        }
        throw SchemaError(
            "cannot read the columns of \(T.self): its init(from:) rejected every placeholder value "
                + "(\(best.error)); make the failing property's type conform to DatabaseValueConvertible or "
                + "CaseIterable, or validate after decoding every property")
    }

    /// The columns of a type whose decoding stopped at a property no placeholder fits (an enum
    /// with associated values, say): the keys seen so far, then the other stored properties,
    /// named as synthesized coding keys name them. `nil` when decoding failed for another
    /// reason, or when a key seen so far is not a property name (custom `CodingKeys`, whose
    /// other names cannot be guessed).
    private static func completedFromStoredProperties(
        _ type: Any.Type, recorded: [ProbedColumn], error: any Error
    ) -> [ProbedColumn]? {
        guard error is PlaceholderUnavailable, let fields = PropertyPath.storedFields(of: type) else {
            return nil
        }
        let names = Set(fields.map(\.name))
        guard recorded.allSatisfy({ names.contains($0.key) }) else { return nil }
        var columns = recorded
        for field in fields where !columns.contains(where: { $0.key == field.name }) {
            if let optional = field.type as? any ProbeOptional.Type {
                columns.append(ProbedColumn(key: field.name, type: optional.wrappedType, isOptional: true))
            } else {
                columns.append(ProbedColumn(key: field.name, type: field.type, isOptional: false))
            }
        }
        return columns
    }

    /// Which property each key fills, for a type whose decoding rejects marked values: each key
    /// in turn is decoded with another primitive value, and the one property that changed is
    /// the key's. Keys whose change is rejected, or changes nothing or several things, stay
    /// unmatched.
    private static func matchByAlternates<T: Decodable>(
        _ type: T.Type, baseline: T, profile: Profile, keys: [String]
    ) -> [String: String] {
        func fields(_ value: T) -> [(label: String, text: String)] {
            Mirror(reflecting: value).children.map { ($0.label ?? "", String(describing: $0.value)) }
        }
        let base = fields(baseline)
        var matches: [String: String] = [:]
        for key in keys {
            let recorder = ProbeRecorder(profile: profile, alternateKey: key)
            guard let changed = try? T(from: ProbeDecoder(recorder: recorder)) else { continue }
            let differing = zip(base, fields(changed)).filter { $0.text != $1.text }.map(\.0.label)
            if differing.count == 1, matches[differing[0]] == nil { matches[differing[0]] = key }
        }
        return matches
    }

    /// A placeholder for a value of type `T`, or `nil` when none can be made.
    ///
    /// - Parameter alternate: Whether to make another primitive value than the profile's usual one.
    static func placeholder<T: Decodable>(
        _ type: T.Type, index: Int, recorder: ProbeRecorder, alternate: Bool = false
    ) -> T? {
        if let value = primitivePlaceholder(
            T.self, index: index, profile: recorder.profile, alternate: alternate)
        {
            return value
        }
        if let convertible = T.self as? any DatabaseValueConvertible.Type {
            for candidate in candidates(index: index, profile: recorder.profile) {
                if let value = try? convertible.fromDatabaseValue(candidate) as? T { return value }
            }
        }
        if let value = try? T(
            from: ProbeDecoder(recorder: ProbeRecorder(profile: recorder.profile, nested: true)))
        {
            return value
        }
        if let caseIterable = T.self as? any CaseIterable.Type, let first = firstCase(of: caseIterable) as? T
        {
            return first
        }
        if _isPOD(T.self), MemoryLayout<T>.size > 0 {
            // The all-zero pattern of plain data: 0 for numbers, the first case of an enum.
            return withUnsafeTemporaryAllocation(of: T.self, capacity: 1) { buffer -> T in
                let raw = UnsafeMutableRawBufferPointer(buffer)
                raw.initializeMemory(as: UInt8.self, repeating: 0)
                return raw.load(as: T.self)
            }
        }
        return nil
    }

    private static func firstCase<C: CaseIterable>(of type: C.Type) -> Any? {
        C.allCases.first
    }

    static func primitivePlaceholder<T>(_ type: T.Type, index: Int, profile: Profile, alternate: Bool = false)
        -> T?
    {
        // The marked profile never needs an alternate: its values already tell keys apart.
        let alternate = alternate && profile != .marked
        let small = (profile == .zero ? 0 : 1) + (alternate ? 1 : 0)
        let number: Int = profile == .marked ? 1_000_003 + index : small
        switch T.self {
        case is String.Type:
            let text =
                profile == .marked
                ? "literecord.probe.\(index)" : alternate ? "b" : profile == .one ? "a" : ""
            return text as? T
        case is Int.Type: return number as? T
        case is Int64.Type: return Int64(number) as? T
        case is Int32.Type: return Int32(number) as? T
        case is Double.Type: return Double(number) as? T
        case is Float.Type: return Float(number) as? T
        case is Bool.Type: return ((profile == .one) != alternate) as? T
        case is UInt.Type: return UInt(number) as? T
        case is UInt64.Type: return UInt64(number) as? T
        case is UInt32.Type: return UInt32(number) as? T
        case is Int8.Type: return Int8(truncatingIfNeeded: profile == .marked ? 1 : small) as? T
        case is Int16.Type: return Int16(truncatingIfNeeded: profile == .marked ? 1 : small) as? T
        case is UInt8.Type: return UInt8(truncatingIfNeeded: profile == .marked ? 1 : small) as? T
        case is UInt16.Type: return UInt16(truncatingIfNeeded: profile == .marked ? 1 : small) as? T
        default: return nil
        }
    }

    private static func candidates(index: Int, profile: Profile) -> [DatabaseValue] {
        [
            .integer(profile == .zero ? 0 : 1), .text(profile == .zero ? "" : "a"), .real(0), .integer(0),
            .text("00000000-0000-0000-0000-000000000000"), .text("https://example.com"),
            .text("2000-01-01 00:00:00"), .text("0"), .blob(Data()),
        ]
    }
}

/// Thrown to the model's `init(from:)` for a property whose type no placeholder fits.
struct PlaceholderUnavailable: Error, CustomStringConvertible {
    let key: String
    let type: Any.Type
    var description: String { "cannot make a placeholder \(type) for \"\(key)\"" }
}

/// An optional type, seen through `Any.Type`.
private protocol ProbeOptional {
    static var wrappedType: Any.Type { get }
}

extension Optional: ProbeOptional {
    static var wrappedType: Any.Type { Wrapped.self }
}

/// Collects what the probe decoder sees.
final class ProbeRecorder {
    let profile: SchemaProbe.Profile
    /// Nested decoders (inside a property's value) produce placeholders but record nothing.
    let isNested: Bool
    /// The key that gets an alternate primitive value, to find which property it fills.
    let alternateKey: String?
    private(set) var columns: [ProbedColumn] = []

    init(profile: SchemaProbe.Profile, nested: Bool = false, alternateKey: String? = nil) {
        self.profile = profile
        self.isNested = nested
        self.alternateKey = alternateKey
    }

    /// Whether `key` (of the top-level container) gets the alternate value.
    func isAlternate(_ key: String) -> Bool { !isNested && key == alternateKey }

    func record(_ key: String, _ type: Any.Type, optional: Bool) -> Int {
        if !isNested, !columns.contains(where: { $0.key == key }) {
            columns.append(ProbedColumn(key: key, type: type, isOptional: optional))
        }
        return columns.firstIndex { $0.key == key } ?? 0
    }
}

/// A decoder that answers every request with a placeholder.
struct ProbeDecoder: Decoder {
    let recorder: ProbeRecorder
    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        KeyedDecodingContainer(ProbeKeyedContainer<Key>(recorder: recorder))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer { EmptyUnkeyedContainer() }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        ProbeSingleValueContainer(recorder: recorder)
    }
}

struct ProbeKeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let recorder: ProbeRecorder
    var codingPath: [any CodingKey] { [] }
    var allKeys: [Key] { [] }

    func contains(_ key: Key) -> Bool { true }
    func decodeNil(forKey key: Key) throws -> Bool { false }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        let index = recorder.record(key.stringValue, T.self, optional: false)
        let alternate = recorder.isAlternate(key.stringValue)
        guard
            let value = SchemaProbe.placeholder(
                T.self, index: index, recorder: recorder, alternate: alternate)
        else {
            throw PlaceholderUnavailable(key: key.stringValue, type: T.self)
        }
        return value
    }

    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        let index = recorder.record(key.stringValue, T.self, optional: true)
        // A value rather than nil where one is cheap, so the marked profile can find the property.
        return SchemaProbe.primitivePlaceholder(
            T.self, index: index, profile: recorder.profile, alternate: recorder.isAlternate(key.stringValue))
    }

    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try decode(type, key) }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try decode(type, key) }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try decode(type, key) }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try decode(type, key) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try decode(type, key) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try decode(type, key) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try decode(type, key) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try decode(type, key) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try decode(type, key) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try decode(type, key) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try decode(type, key) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try decode(type, key) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try decode(type, key) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try decode(type, key) }

    private func decode<T: Decodable>(_ type: T.Type, _ key: Key) throws -> T {
        try decode(type, forKey: key)
    }

    func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? { try optional(type, key) }
    func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? { try optional(type, key) }
    func decodeIfPresent(_ type: Double.Type, forKey key: Key) throws -> Double? { try optional(type, key) }
    func decodeIfPresent(_ type: Float.Type, forKey key: Key) throws -> Float? { try optional(type, key) }
    func decodeIfPresent(_ type: Int.Type, forKey key: Key) throws -> Int? { try optional(type, key) }
    func decodeIfPresent(_ type: Int8.Type, forKey key: Key) throws -> Int8? { try optional(type, key) }
    func decodeIfPresent(_ type: Int16.Type, forKey key: Key) throws -> Int16? { try optional(type, key) }
    func decodeIfPresent(_ type: Int32.Type, forKey key: Key) throws -> Int32? { try optional(type, key) }
    func decodeIfPresent(_ type: Int64.Type, forKey key: Key) throws -> Int64? { try optional(type, key) }
    func decodeIfPresent(_ type: UInt.Type, forKey key: Key) throws -> UInt? { try optional(type, key) }
    func decodeIfPresent(_ type: UInt8.Type, forKey key: Key) throws -> UInt8? { try optional(type, key) }
    func decodeIfPresent(_ type: UInt16.Type, forKey key: Key) throws -> UInt16? { try optional(type, key) }
    func decodeIfPresent(_ type: UInt32.Type, forKey key: Key) throws -> UInt32? { try optional(type, key) }
    func decodeIfPresent(_ type: UInt64.Type, forKey key: Key) throws -> UInt64? { try optional(type, key) }

    private func optional<T: Decodable>(_ type: T.Type, _ key: Key) throws -> T? {
        try decodeIfPresent(type, forKey: key)
    }

    func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type, forKey key: Key
    ) throws -> KeyedDecodingContainer<NestedKey> {
        _ = recorder.record(key.stringValue, [String: String].self, optional: false)
        return KeyedDecodingContainer(
            ProbeKeyedContainer<NestedKey>(recorder: ProbeRecorder(profile: recorder.profile, nested: true)))
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        _ = recorder.record(key.stringValue, [String].self, optional: false)
        return EmptyUnkeyedContainer()
    }

    func superDecoder() throws -> any Decoder { ProbeDecoder(recorder: recorder) }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        _ = recorder.record(key.stringValue, [String: String].self, optional: false)
        return ProbeDecoder(recorder: ProbeRecorder(profile: recorder.profile, nested: true))
    }
}

struct ProbeSingleValueContainer: SingleValueDecodingContainer {
    let recorder: ProbeRecorder
    var codingPath: [any CodingKey] { [] }

    func decodeNil() -> Bool { false }

    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        guard let value = SchemaProbe.placeholder(T.self, index: 0, recorder: recorder) else {
            throw SchemaError("cannot make a placeholder \(T.self)")
        }
        return value
    }
}

/// An empty list: arrays, sets and dictionaries probe as empty.
struct EmptyUnkeyedContainer: UnkeyedDecodingContainer {
    var codingPath: [any CodingKey] { [] }
    var count: Int? { 0 }
    var isAtEnd: Bool { true }
    var currentIndex: Int { 0 }

    mutating func decodeNil() throws -> Bool { false }
    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        throw SchemaError("an empty probe list has no elements")
    }
    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type
    ) throws -> KeyedDecodingContainer<NestedKey> {
        throw SchemaError("an empty probe list has no elements")
    }
    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        throw SchemaError("an empty probe list has no elements")
    }
    mutating func superDecoder() throws -> any Decoder {
        throw SchemaError("an empty probe list has no elements")
    }
}
