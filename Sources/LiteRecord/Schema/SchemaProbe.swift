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
        let recursion = ProbeRecursion()
        for profile in Profile.allCases {
            let recorder = ProbeRecorder(
                profile: profile, enclosingTypes: [ObjectIdentifier(T.self)], recursion: recursion)
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
        if let recursive = recursion.recursiveType {
            throw SchemaError(
                "cannot read the columns of \(T.self): decoding it decodes \(recursive) inside itself without end "
                    + "(a recursive type whose init(from:) decodes its own type whatever the data holds), so no "
                    + "placeholder can finish it; decode the nested \(recursive) only when its key is present "
                    + "(container.contains(_:) or decodeIfPresent), or give the model a property order and "
                    + "CodingKeys named like its properties (\(best.error))")
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
            let recorder = ProbeRecorder(
                profile: profile, alternateKey: key, enclosingTypes: [ObjectIdentifier(T.self)])
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
        if recorder.mayDecodePlaceholder(of: T.self),
            let value = try? T(from: ProbeDecoder(recorder: recorder.nested(in: T.self)))
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
protocol ProbeOptional {
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
    /// The types whose placeholders are being decoded around this decoder, outermost first.
    let enclosingTypes: [ObjectIdentifier]
    /// Shared by a probe and every decoder nested in it.
    let recursion: ProbeRecursion
    private(set) var columns: [ProbedColumn] = []

    init(
        profile: SchemaProbe.Profile, nested: Bool = false, alternateKey: String? = nil,
        enclosingTypes: [ObjectIdentifier] = [], recursion: ProbeRecursion = ProbeRecursion()
    ) {
        self.profile = profile
        self.isNested = nested
        self.alternateKey = alternateKey
        self.enclosingTypes = enclosingTypes
        self.recursion = recursion
    }

    /// A recorder for the value of a property of type `type` (or a nested container).
    func nested(in type: Any.Type? = nil) -> ProbeRecorder {
        ProbeRecorder(
            profile: profile, nested: true,
            enclosingTypes: enclosingTypes + (type.map { [ObjectIdentifier($0)] } ?? []), recursion: recursion
        )
    }

    /// Whether the decoders around this one already decode a type inside itself: a type whose
    /// `init(from:)` decodes its own type whenever a key is present (a linked list) would
    /// recurse forever against a decoder that says every key is present, so inside one
    /// recursion no key is present any more.
    var isInsideRecursion: Bool {
        Set(enclosingTypes).count < enclosingTypes.count
            || enclosingTypes.count >= ProbeRecursion.maximumDepth
    }

    /// Whether a placeholder of `type` may be decoded here: not when that would enter a type a
    /// second time inside a recursion of it, or go deeper than any real type nests.
    func mayDecodePlaceholder(of type: Any.Type) -> Bool {
        let id = ObjectIdentifier(type)
        let allowed =
            enclosingTypes.filter { $0 == id }.count < 2 && enclosingTypes.count < ProbeRecursion.maximumDepth
        if !allowed { recursion.note(type) }
        return allowed
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

/// What a probe learned about recursion: the type it refused to decode inside itself again.
final class ProbeRecursion {
    /// Deeper than any real type nests; bounds types that recurse through ever new generic types.
    static let maximumDepth = 32
    private(set) var recursiveType: Any.Type?

    func note(_ type: Any.Type) {
        if recursiveType == nil { recursiveType = type }
    }
}
