/// A `Codable` struct stored in a table: one instance per row, one stored property per column.
///
/// Conforming is all it takes; the table is created (and grown) on first use:
///
/// ```swift
/// struct Player: Model {
///     var id: Int64?          // INTEGER PRIMARY KEY, assigned by SQLite on insert
///     var name: String
///     var score: Int
/// }
/// var alice = Player(id: nil, name: "Alice", score: 120)
/// try db.insert(&alice)       // alice.id is set
/// ```
///
/// Annotations (table name, primary key, unique constraints, indexes, column naming, defaults,
/// collations) live in one static ``schema`` value next to the properties. Without it the
/// table is named after the type with a lowercased first letter (`Player` → `player`) and the
/// primary key is the `id` property when there is one.
///
/// ## Topics
/// - ``schema``
/// - ``Schema``
public protocol Model: Codable, Sendable {
    /// The model's table annotations.
    static var schema: Schema<Self> { get }
}

// MARK: - Default implementations

extension Model {
    /// No annotations: the table is named after the type, and `id` is the primary key if present.
    public static var schema: Schema<Self> { Schema() }
}
