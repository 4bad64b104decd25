extension Schema where M: Model {
    /// Declares that a property holds the key of another model's row: a foreign key.
    ///
    /// A table LiteRecord creates gets `FOREIGN KEY ("col") REFERENCES "parent" ("key")
    /// ON DELETE ...` and an index on the column; SQLite enforces it (LiteRecord opens
    /// databases with `PRAGMA foreign_keys = ON`), so writing a key no parent row has fails
    /// with ``ResultCode/constraintForeignKey``. A table that already exists is left exactly
    /// as it is (SQLite cannot add a foreign key without rebuilding the table): the relation
    /// still serves `including` and the filters across tables; enforce it with a
    /// ``Migrator`` step.
    ///
    /// ```swift
    /// static let schema = Schema<Book>(table: "books")
    ///     .foreignKey(\.authorID, references: Author.self, onDelete: .cascade)
    /// ```
    ///
    /// - Parameters:
    ///   - property: The property holding the parent's key (optional when a row may have no parent).
    ///   - parent: The model referenced.
    ///   - key: The parent's property referenced; by default the parent's primary key. It must
    ///     be the primary key or unique, as SQLite requires.
    ///   - onDelete: What happens to this row when the parent row is deleted; `.noAction` by default.
    /// - Returns: The schema with the foreign key.
    public func foreignKey<Parent: Model>(
        _ property: PartialKeyPath<M>, references parent: Parent.Type, key: PartialKeyPath<Parent>? = nil,
        onDelete: OnDelete = .noAction
    ) -> Schema {
        foreignKey([property], references: parent, keys: key.map { [$0] } ?? [], onDelete: onDelete)
    }

    /// Declares a foreign key of several columns, referencing a composite key.
    ///
    /// - Parameters:
    ///   - properties: The properties holding the parent's key, in the key's order.
    ///   - parent: The model referenced.
    ///   - keys: The parent's properties referenced, in the same order; by default the parent's
    ///     (composite) primary key.
    ///   - onDelete: What happens to this row when the parent row is deleted; `.noAction` by default.
    /// - Returns: The schema with the foreign key.
    public func foreignKey<Parent: Model>(
        _ properties: [PartialKeyPath<M>], references parent: Parent.Type,
        keys: [PartialKeyPath<Parent>] = [],
        onDelete: OnDelete = .noAction
    ) -> Schema {
        var copy = self
        copy.foreignKeys.append(
            ForeignKeyDeclaration(
                columns: properties.map(PropertyReference.init), parent: Parent.self,
                parentKey: keys.map(PropertyReference.init), onDelete: onDelete))
        return copy
    }
}
