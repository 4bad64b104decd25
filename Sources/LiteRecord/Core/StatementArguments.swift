/// Values bound to an SQL statement's parameters: positional (`?`, `?NNN`), named (`:name`,
/// `@name`, `$name`), or both.
///
/// Positional values fill the unnamed parameters in order. Named values fill parameters by
/// name, written without the prefix. Binding checks the count both ways: a parameter without a
/// value, or a value without a parameter, is a ``DatabaseError`` with code `.misuse`.
///
/// ```swift
/// try db.execute(sql: "INSERT INTO t(a, b) VALUES (?, ?)", arguments: [1, "two"])
/// try db.execute(sql: "UPDATE t SET b = :b WHERE a = :a", arguments: ["a": 1, "b": "deux"])
/// ```
public struct StatementArguments: Hashable, Sendable, CustomStringConvertible,
    ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral
{
    /// Values for unnamed parameters, in order.
    public var positional: [DatabaseValue]
    /// Values for named parameters, keyed by name without its `:`, `@` or `$` prefix.
    public var named: [String: DatabaseValue]

    /// No arguments.
    public init() {
        self.init(positional: [], named: [:])
    }

    /// Creates arguments from already-converted values.
    ///
    /// - Parameters:
    ///   - positional: Values for `?` parameters, in order.
    ///   - named: Values for named parameters.
    public init(positional: [DatabaseValue] = [], named: [String: DatabaseValue] = [:]) {
        self.positional = positional
        self.named = named
    }

    /// Creates positional arguments from Swift values.
    ///
    /// - Parameter values: Values for `?` parameters, in order.
    /// - Throws: ``ValueConversionError`` when a value cannot be stored.
    public init(_ values: [any DatabaseValueConvertible]) throws {
        self.init(positional: try values.map { try $0.databaseValue() })
    }

    /// Creates named arguments from Swift values.
    ///
    /// - Parameter values: Values keyed by parameter name (without prefix).
    /// - Throws: ``ValueConversionError`` when a value cannot be stored.
    public init(_ values: [String: any DatabaseValueConvertible]) throws {
        self.init(named: try values.mapValues { try $0.databaseValue() })
    }

    public init(arrayLiteral elements: DatabaseValue...) {
        self.init(positional: elements)
    }

    public init(dictionaryLiteral elements: (String, DatabaseValue)...) {
        self.init(named: Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }

    /// Whether there are no values at all.
    public var isEmpty: Bool { positional.isEmpty && named.isEmpty }

    /// Appends the values of `other`.
    ///
    /// - Parameter other: More arguments; a name present in both takes `other`'s value.
    public mutating func append(contentsOf other: StatementArguments) {
        positional += other.positional
        named.merge(other.named) { _, new in new }
    }

    public var description: String {
        let positionalPart = positional.map(\.description)
        let namedPart = named.sorted { $0.key < $1.key }.map { ":\($0.key): \($0.value)" }
        return "[" + (positionalPart + namedPart).joined(separator: ", ") + "]"
    }
}
