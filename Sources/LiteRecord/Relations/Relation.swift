/// How the rows of two models' tables are related, found from a foreign key declared on one of
/// them: the columns on the root's side and the matching columns on the target's side.
///
/// A root row and a target row are related when their key columns hold equal values. When the
/// root holds the foreign key (a book and its author) its key columns are the foreign key's;
/// when the target holds it (an author and their books) the root's columns are the referenced
/// key.
struct Relation: Sendable {
    let root: TableSchema
    let target: TableSchema
    let rootColumns: [String]
    let targetColumns: [String]
    /// How a date key stored as a number is read when the schema gives its column no storage
    /// of its own: the query's (the database's) ``DateStorage``.
    var dateStorage: DateStorage = .text

    /// Which side of a foreign key the root is on, when both could be.
    enum Preference {
        /// The root is the referenced (parent) side: `including(all:)`, `where(any:)`.
        case rootIsParent
        /// The root holds the foreign key: `including(one:)`, `where(_:_:)`.
        case rootIsChild
    }

    /// Finds the relation between two models.
    ///
    /// - Parameters:
    ///   - via: The foreign key property that names the relation; it belongs to the child on
    ///     the preferred side (the target for `.rootIsParent`, the root for `.rootIsChild`).
    ///   - usage: What the caller wrote, to show in messages (`including(all: Book.self)`).
    ///   - fix: What to write when several foreign keys could serve, given their property names;
    ///     `via: \.first` by default.
    /// - Throws: ``SchemaError`` naming both types and what to write, when no foreign key
    ///   relates them, or several do and `via` does not say which.
    static func resolve<Root: Model, Target: Model>(
        _ root: Root.Type, _ target: Target.Type, preferring preference: Preference, via: PropertyReference?,
        usage: String, fix: (([String]) -> String)? = nil
    ) throws -> Relation {
        let rootTable = try TableSchemaCache.schema(for: Root.self)
        let targetTable = try TableSchemaCache.schema(for: Target.self)
        // Foreign keys of the target to the root (root is parent), and of the root to the target.
        let down = targetTable.foreignKeys.filter { $0.parent == ObjectIdentifier(Root.self) }
        let up = rootTable.foreignKeys.filter { $0.parent == ObjectIdentifier(Target.self) }
        let (preferred, other) = preference == .rootIsParent ? (down, up) : (up, down)
        let childTable = preference == .rootIsParent ? targetTable : rootTable
        let parentTable = preference == .rootIsParent ? rootTable : targetTable
        if let via {
            let property = via.path?.root
            guard via.path?.names.count == 1,
                let key = preferred.first(where: { $0.properties.first == property })
            else {
                throw SchemaError(
                    "no relation between \(rootTable.typeName) and \(targetTable.typeName) via "
                        + "\(via.keyPathDescription): it is not a foreign key of \(childTable.typeName) to "
                        + "\(parentTable.typeName); declare it in \(childTable.typeName)'s schema: "
                        + ".foreignKey(\(via.keyPathDescription), references: \(parentTable.typeName).self)")
            }
            return try relation(
                key, rootIsParent: preference == .rootIsParent, root: rootTable, target: targetTable)
        }
        let candidates = preferred.isEmpty ? other : preferred
        guard let key = candidates.first else {
            throw SchemaError(
                "no relation between \(rootTable.typeName) and \(targetTable.typeName) for \(usage): neither "
                    + "declares a foreign key to the other; declare one in the schema of the model holding "
                    + "the key, e.g. Schema<\(childTable.typeName)>(...).foreignKey(\\.\(lowercasedFirst(parentTable.typeName))ID, "
                    + "references: \(parentTable.typeName).self)")
        }
        guard candidates.count == 1 else {
            let keys = candidates.map { $0.properties.joined(separator: "+") }
            let holder = preferred.isEmpty ? parentTable.typeName : childTable.typeName
            throw SchemaError(
                "the relation between \(rootTable.typeName) and \(targetTable.typeName) for \(usage) is "
                    + "ambiguous: \(holder) has \(candidates.count) foreign keys to the other model "
                    + "(\(keys.joined(separator: ", "))); \(fix?(keys) ?? "name one with via:, e.g. via: \\.\(keys[0])")"
            )
        }
        let rootIsParent = preferred.isEmpty ? preference != .rootIsParent : preference == .rootIsParent
        return try relation(key, rootIsParent: rootIsParent, root: rootTable, target: targetTable)
    }

    private static func relation(
        _ key: ForeignKey, rootIsParent: Bool, root: TableSchema, target: TableSchema
    ) throws -> Relation {
        let child = rootIsParent ? target : root
        let (_, referenced) = try key.referencedColumns(childTypeName: child.typeName)
        return rootIsParent
            ? Relation(root: root, target: target, rootColumns: referenced, targetColumns: key.columns)
            : Relation(root: root, target: target, rootColumns: key.columns, targetColumns: referenced)
    }

    private static func lowercasedFirst(_ name: String) -> String {
        name.prefix(1).lowercased() + name.dropFirst()
    }
}
