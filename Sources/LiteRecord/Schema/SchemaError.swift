/// A model that cannot be mapped to its table: a key path that is not a stored property, a
/// missing primary key, a column whose type changed, a column that cannot be added.
///
/// The message says what is wrong and how to fix it.
public struct SchemaError: Error, Sendable, CustomStringConvertible {
    /// What is wrong, in words.
    public let message: String

    package init(_ message: String) {
        self.message = message
    }

    public var description: String { message }

    /// A new column that the table's existing rows cannot fill: the same error on every backend.
    ///
    /// - Parameters:
    ///   - column: The column's name.
    ///   - table: The table's name.
    ///   - property: `Type.property`, the property the column stores.
    /// - Returns: The error, saying to declare a default or make the property optional.
    package static func newColumnNeedsValue(_ column: String, table: String, property: String) -> SchemaError
    {
        SchemaError(
            "cannot add column \(column) to \(table): \(property) is new and not optional, so existing rows "
                + "need a value; declare one with .defaultValue(_:for:) in the schema, or make the property optional"
        )
    }
}

/// A write or read by primary key that found no row, or a model without the key it needs.
public struct PersistenceError: Error, Sendable, CustomStringConvertible {
    /// What is wrong, in words.
    public let message: String
    /// The table involved.
    public let table: String
    /// Whether no row has the model's primary key (an `update` of a row that does not exist).
    public let isRowNotFound: Bool

    package init(_ message: String, table: String, isRowNotFound: Bool = false) {
        self.message = message
        self.table = table
        self.isRowNotFound = isRowNotFound
    }

    public var description: String { message }
}
