/// What SQLite does to the rows of a child table when the parent row they reference is deleted
/// (or its key changes): the `ON DELETE` action of a foreign key.
public enum OnDelete: Sendable, Hashable {
    /// The delete fails when rows still reference the parent row (checked at the end of the
    /// statement, or of the transaction for a deferred key): SQLite's default.
    case noAction
    /// The child rows are deleted with the parent row.
    case cascade
    /// The child rows keep existing with their key set to NULL; the key must be optional.
    case setNull
    /// The delete fails at once when rows still reference the parent row.
    case restrict

    /// The action's SQL words.
    var sql: String {
        switch self {
        case .noAction: "NO ACTION"
        case .cascade: "CASCADE"
        case .setNull: "SET NULL"
        case .restrict: "RESTRICT"
        }
    }
}
