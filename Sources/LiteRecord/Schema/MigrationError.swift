/// A ``Migrator`` that could not bring a database up to date.
///
/// It names the migration involved and, when a migration itself failed, wraps the error it
/// threw (a ``DatabaseError`` for failing SQL, or your own error):
///
/// ```
/// migration "add userId" failed: SQLITE_ERROR: duplicate column name: userId — while executing `...`
/// ```
///
/// ## Topics
/// - ``migrationName``
/// - ``underlyingError``
/// - ``isMigrationFailure``
/// - ``isDuplicateName``
/// - ``isUnknownAppliedMigration``
/// - ``isUnknownTarget``
public struct MigrationError: Error, Sendable, CustomStringConvertible {
    private enum Kind: Sendable {
        case failed(any Error)
        case duplicateName
        case unknownApplied(all: [String])
        case unknownTarget
    }

    private let kind: Kind

    /// The migration involved: the one that failed, the name registered twice, the first
    /// applied migration the migrator does not know, or the unknown target of
    /// ``Migrator/migrate(_:upTo:)-(DatabaseContext,_)``.
    public let migrationName: String

    /// The error the migration threw, or that recording it threw; `nil` when no migration ran.
    public var underlyingError: (any Error)? { if case .failed(let error) = kind { error } else { nil } }

    /// Whether a migration ran and failed (its work was rolled back); see ``underlyingError``.
    public var isMigrationFailure: Bool { if case .failed = kind { true } else { false } }

    /// Whether two migrations were registered with the same name; nothing ran.
    public var isDuplicateName: Bool { if case .duplicateName = kind { true } else { false } }

    /// Whether the database records migrations the migrator does not know (it was migrated by
    /// a newer version of the program, or a migration was renamed or removed); nothing ran.
    public var isUnknownAppliedMigration: Bool { if case .unknownApplied = kind { true } else { false } }

    /// Whether ``Migrator/migrate(_:upTo:)-(DatabaseContext,_)`` was given a name that is not registered; nothing ran.
    public var isUnknownTarget: Bool { if case .unknownTarget = kind { true } else { false } }

    public var description: String {
        switch kind {
        case .failed(let error):
            return "migration \(quoted(migrationName)) failed: \(error)"
        case .duplicateName:
            return "migration \(quoted(migrationName)) is registered more than once; "
                + "give each migration its own name (nothing was migrated)"
        case .unknownApplied(let names):
            let list = names.map(quoted).joined(separator: ", ")
            let noun = names.count == 1 ? "migration" : "migrations"
            return "the database records \(noun) \(list) that this migrator does not know; "
                + "it was migrated by a newer version of the program, or a migration was renamed "
                + "or removed (nothing was migrated)"
        case .unknownTarget:
            return "cannot migrate up to \(quoted(migrationName)): no migration of that name "
                + "is registered (nothing was migrated)"
        }
    }

    private func quoted(_ name: String) -> String {
        "\"" + name + "\""
    }

    private init(kind: Kind, migrationName: String) {
        self.kind = kind
        self.migrationName = migrationName
    }

    package static func failed(_ name: String, underlying error: any Error) -> MigrationError {
        MigrationError(kind: .failed(error), migrationName: name)
    }

    package static func duplicateName(_ name: String) -> MigrationError {
        MigrationError(kind: .duplicateName, migrationName: name)
    }

    /// - Parameter names: The unknown applied migrations, in the order they were applied; not empty.
    package static func unknownApplied(_ names: [String]) -> MigrationError {
        MigrationError(kind: .unknownApplied(all: names), migrationName: names.first ?? "")
    }

    package static func unknownTarget(_ name: String) -> MigrationError {
        MigrationError(kind: .unknownTarget, migrationName: name)
    }
}
