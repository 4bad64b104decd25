/// A ``TypeLayout`` property bound to the result column it is read from, for a backend's
/// in-place read: the column, where the property lives, what it is, and what the backend
/// worked out once per statement about reading it (SQLite's shortcut, PostgreSQL's value kind).
///
/// One shape for every backend, so that they bind a layout the same way.
package struct BoundLayoutField<Reading> {
    package let column: Int32
    package let offset: Int
    package let leaf: LayoutLeaf
    package let isOptional: Bool
    /// The backend's own per-column reading information.
    package let reading: Reading

    /// Binds `field` to the result's column `column`.
    package init(column: Int32, field: TypeLayout.Field, reading: Reading) {
        self.column = column
        self.offset = field.offset
        self.leaf = field.leaf
        self.isOptional = field.isOptional
        self.reading = reading
    }
}

extension BoundLayoutField: Sendable where Reading: Sendable {}
