@_spi(Reflection) import Swift

/// The stored property (or chain of stored properties) a key path designates, read from the
/// type's layout: `\Player.stats.wins` is `["stats", "wins"]`.
///
/// Resolution needs no instance: the standard library's field reflection lists each stored
/// property with its offset and type, and `MemoryLayout.offset(of:)` gives the key path's
/// offset. The offset alone cannot tell `\.stats` from `\.stats.wins` (both may sit at the same
/// offset), so the value type decides where the path stops.
public struct PropertyPath: Hashable, Sendable, CustomStringConvertible {
    /// Property names from the root type inward.
    public let names: [String]

    /// The first property: the one that owns a column.
    public var root: String { names[0] }

    public var description: String { names.joined(separator: ".") }

    init(names: [String]) {
        self.names = names
    }

    /// Resolves a key path, or returns `nil` when it does not designate stored properties
    /// (a computed property, a subscript, a property of a class).
    static func resolve<Root>(_ keyPath: PartialKeyPath<Root>) -> PropertyPath? {
        guard let offset = MemoryLayout<Root>.offset(of: keyPath) else { return nil }
        let valueType = type(of: keyPath).valueType
        var names: [String] = []
        guard resolve(in: Root.self, offset: offset, valueType: valueType, into: &names) else { return nil }
        return PropertyPath(names: names)
    }

    private static func resolve(
        in type: Any.Type, offset: Int, valueType: Any.Type, into names: inout [String]
    ) -> Bool {
        var fields: [(name: String, offset: Int, type: Any.Type)] = []
        let isStruct = _forEachField(of: type, options: []) { name, fieldOffset, fieldType, _ in
            fields.append((String(cString: name), fieldOffset, fieldType))
            return true
        }
        guard isStruct else { return false }
        // Fields at the same offset: a zero-sized field can share it; prefer the exact type.
        let candidates = fields.filter { field in
            offset >= field.offset && offset < field.offset + max(1, sizeOfType(field.type))
        }
        if let exact = candidates.first(where: { $0.offset == offset && $0.type == valueType }) {
            names.append(exact.name)
            return true
        }
        for field in candidates {
            names.append(field.name)
            if resolve(in: field.type, offset: offset - field.offset, valueType: valueType, into: &names) {
                return true
            }
            names.removeLast()
        }
        return false
    }

    private static func sizeOfType(_ type: Any.Type) -> Int {
        func size<T>(_: T.Type) -> Int { MemoryLayout<T>.size }
        return _openExistential(type, do: size)
    }

    /// The stored fields of a struct type, in declaration order, or `nil` for other types.
    static func storedFields(of type: Any.Type) -> [(name: String, offset: Int, type: Any.Type)]? {
        var fields: [(name: String, offset: Int, type: Any.Type)] = []
        let isStruct = _forEachField(of: type, options: []) { name, fieldOffset, fieldType, _ in
            fields.append((String(cString: name), fieldOffset, fieldType))
            return true
        }
        return isStruct ? fields : nil
    }
}

/// A key path as a schema keeps it: resolved at once (key paths are not `Sendable`), with the
/// key path's own text kept for the error a bad one raises at first use.
struct PropertyReference: Hashable, Sendable {
    let path: PropertyPath?
    let keyPathDescription: String

    init<Root>(_ keyPath: PartialKeyPath<Root>) {
        self.path = PropertyPath.resolve(keyPath)
        self.keyPathDescription = String(describing: keyPath)
    }
}
