/// A foreign key as a ``Schema`` keeps it: the child's properties, the parent model type, the
/// parent's key properties (empty for its primary key), and the `ON DELETE` action.
///
/// The parent's table is resolved late, at first use, so that a model may reference itself
/// (`Employee.reportsTo → Employee`) or two models each other.
struct ForeignKeyDeclaration: Sendable {
    let columns: [PropertyReference]
    let parent: ObjectIdentifier
    let parentTypeName: String
    /// The parent model type, for another backend that prepares the parent's table itself.
    let parentType: any Model.Type
    let parentKey: [PropertyReference]
    let onDelete: OnDelete
    /// The parent's table, resolved once per process.
    let parentTable: @Sendable () throws -> TableSchema
    /// Creates the parent's table on a connection that can write, when it is missing.
    let prepareParent: @Sendable (Connection) throws -> Void

    init<Parent: Model>(
        columns: [PropertyReference], parent: Parent.Type, parentKey: [PropertyReference], onDelete: OnDelete
    ) {
        self.columns = columns
        self.parent = ObjectIdentifier(Parent.self)
        self.parentTypeName = String(describing: Parent.self)
        self.parentType = Parent.self
        self.parentKey = parentKey
        self.onDelete = onDelete
        self.parentTable = { try TableSchemaCache.schema(for: Parent.self) }
        self.prepareParent = { connection in _ = try connection.table(for: Parent.self) }
    }
}

/// A foreign key of a model's table, its child columns resolved.
struct ForeignKey: Sendable {
    /// The child table's key columns, in key order.
    let columns: [String]
    /// The child model's properties holding them, in the same order.
    let properties: [String]
    let declaration: ForeignKeyDeclaration

    var parent: ObjectIdentifier { declaration.parent }
    var onDelete: OnDelete { declaration.onDelete }

    /// The parent's table and the columns the key references, in key order: the declared key
    /// properties, or the parent's primary key.
    ///
    /// - Throws: ``SchemaError`` when the parent has no such key, or a key of another length.
    func referencedColumns(childTypeName: String) throws -> (table: TableSchema, columns: [String]) {
        let parent = try declaration.parentTable()
        let described = "the foreign key \(childTypeName).\(properties.joined(separator: "+"))"
        var referenced: [String] = []
        if declaration.parentKey.isEmpty {
            guard !parent.primaryKey.isEmpty else {
                throw SchemaError(
                    "\(described) references \(parent.typeName), which has no primary key: declare one in "
                        + "\(parent.typeName)'s schema (primaryKey:), or name the referenced property with key:"
                )
            }
            referenced = parent.primaryKey
        } else {
            for reference in declaration.parentKey {
                guard let path = reference.path, path.names.count == 1,
                    let column = parent.propertyToColumn[path.root]
                else {
                    throw SchemaError(
                        "\(reference.keyPathDescription) in \(described) is not a stored property of "
                            + "\(parent.typeName) with a column")
                }
                referenced.append(column)
            }
        }
        guard referenced.count == columns.count else {
            throw SchemaError(
                "\(described) has \(columns.count) column(s) but references \(referenced.count) column(s) "
                    + "of \(parent.typeName) (\(referenced.joined(separator: ", "))); give as many of each")
        }
        return (parent, referenced)
    }
}

extension TableSchema {
    /// Resolves the child columns of each declared foreign key, checking what can be checked
    /// without the parent's table: the properties are columns, and `.setNull` keys are optional.
    static func resolveForeignKeys(
        _ declarations: [ForeignKeyDeclaration], typeName: String, columns: [Column],
        column: (PropertyReference) throws -> String
    ) throws -> [ForeignKey] {
        try declarations.map { declaration in
            guard !declaration.columns.isEmpty else {
                throw SchemaError(
                    "a foreign key of \(typeName) to \(declaration.parentTypeName) names no property")
            }
            let names = try declaration.columns.map(column)
            let properties = names.map { name in
                columns.first { $0.name == name }.flatMap(\.property) ?? name
            }
            if declaration.onDelete == .setNull,
                let required = columns.first(where: { names.contains($0.name) && !$0.isOptional })
            {
                throw SchemaError(
                    "the foreign key \(typeName).\(required.property ?? required.name) to "
                        + "\(declaration.parentTypeName) is onDelete: .setNull, but the property is not "
                        + "optional: make it optional, or choose .cascade, .restrict or .noAction")
            }
            return ForeignKey(columns: names, properties: properties, declaration: declaration)
        }
    }

    /// The `FOREIGN KEY (...) REFERENCES ...(...) ON DELETE ...` clauses of a new table.
    func foreignKeyClauses() throws -> [String] {
        try foreignKeys.map { key in
            let (parent, referenced) = try key.referencedColumns(childTypeName: typeName)
            return "FOREIGN KEY (\(TableDefinition.quotedList(key.columns))) REFERENCES "
                + "\(SQL.quoteIdentifier(parent.tableName)) (\(TableDefinition.quotedList(referenced))) "
                + "ON DELETE \(key.onDelete.sql)"
        }
    }

    /// The foreign keys whose columns begin no index, unique constraint or primary key of the
    /// table: each gets an index, so that finding a parent's children (eager loading, the
    /// check SQLite makes when a parent row is deleted) reads only those rows.
    var foreignKeysNeedingIndex: [ForeignKey] {
        let covering = indexes + uniques + [primaryKey]
        return foreignKeys.filter { key in
            !covering.contains {
                $0.count >= key.columns.count && Array($0.prefix(key.columns.count)) == key.columns
            }
        }
    }
}
