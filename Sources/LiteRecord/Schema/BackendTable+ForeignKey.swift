extension BackendTable {
    /// A foreign key of a model's table, as another backend creates it: the child columns,
    /// the parent model (whose table must exist first) and the referenced columns.
    package struct ForeignKey: Sendable {
        /// The child table's key columns, in key order.
        package let columns: [String]
        /// The parent model type.
        package let parentType: any Model.Type
        /// The `ON DELETE` action's SQL words (`CASCADE`, `SET NULL`, ...).
        package let onDeleteSQL: String
        /// Whether no index, unique constraint or primary key of the table begins with the key's
        /// columns: the key gets an index of its own, as SQLite's tables get.
        package let needsIndex: Bool
        private let key: LiteRecord.ForeignKey
        private let childTypeName: String

        init(key: LiteRecord.ForeignKey, childTypeName: String, needsIndex: Bool) {
            self.columns = key.columns
            self.parentType = key.declaration.parentType
            self.onDeleteSQL = key.onDelete.sql
            self.needsIndex = needsIndex
            self.key = key
            self.childTypeName = childTypeName
        }

        /// The parent's table name and the columns the key references, in key order.
        ///
        /// - Returns: The table and the columns.
        /// - Throws: ``SchemaError`` when the parent has no such key, or a key of another length.
        package func referenced() throws -> (table: String, columns: [String]) {
            let (parent, columns) = try key.referencedColumns(childTypeName: childTypeName)
            return (parent.tableName, columns)
        }
    }
}
