/// How rows of a model's table become models.
///
/// By default (``automatic``) a plain struct whose stored properties are all numbers, `Bool`,
/// `String`, `Data`, `Date`, `[String]` or optionals of these is built in place, property by
/// property, straight from SQLite's values, once probe rows have shown that its
/// `init(from:)` stores each column unchanged (the synthesized one does). Probe rows are
/// evidence, not proof: an `init(from:)` that changes only values no probe row holds (a
/// legacy sentinel such as `9999` read as `-1`) looks unchanged to them, and rows holding
/// such values would be built without it. ``initializer`` makes every row go through the
/// type's own `init(from:)`.
public enum ModelDecoding: Sendable, Hashable {
    /// In place when the type's `init(from:)` is shown to store each column unchanged,
    /// through `init(from:)` otherwise.
    case automatic
    /// Always through the type's own `init(from:)`: for an `init(from:)` that validates or
    /// transforms values, so that no row skips it.
    case initializer
}

extension Schema {
    /// Chooses how rows become models: ``ModelDecoding/initializer`` makes every row go
    /// through the model's own `init(from:)`, never built in place.
    ///
    /// Declare it on a model whose custom `init(from:)` validates or transforms values:
    ///
    /// ```swift
    /// static let schema = Schema<Reading>(table: "readings").decoding(.initializer)
    /// ```
    ///
    /// - Parameter decoding: ``ModelDecoding/automatic`` (the default) or
    ///   ``ModelDecoding/initializer``.
    /// - Returns: The schema with the choice.
    public func decoding(_ decoding: ModelDecoding) -> Schema {
        var copy = self
        copy.rowDecoding = decoding
        return copy
    }
}

extension Model {
    /// Whether the model's schema asks for every row to go through `init(from:)`.
    static var requiresInitializerDecoding: Bool { schema.rowDecoding == .initializer }
}
