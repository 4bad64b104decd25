import Foundation

// A column compared with an optional value of its type: `$0.notebookID == notebook.id`, where a
// saved model's key is `Int64?`. Swift's `==` would promote the column's value to an optional,
// so these give the same answers: `nil` equals no row and differs from every row.

extension Column where Value: Encodable {
    /// Equal to an optional value, as Swift compares a value with an optional: `nil` matches no row.
    ///
    /// Disfavored, so that a literal, `nil` or a value of the column's own type picks the
    /// comparison with a value (`$0.bonus == nil` on an optional column still matches NULL).
    ///
    /// - Parameters:
    ///   - lhs: The column.
    ///   - rhs: The optional value: `notebook.id`.
    /// - Returns: The condition.
    @_disfavoredOverload
    public static func == (lhs: Column, rhs: Value?) -> Condition {
        guard let rhs else { return Condition(SQL(lhs.dialect.falseCondition), error: lhs.error) }
        return lhs == rhs
    }

    /// Not equal to an optional value, as Swift compares a value with an optional: every row
    /// differs from `nil`.
    ///
    /// - Parameters:
    ///   - lhs: The column.
    ///   - rhs: The optional value: `notebook.id`.
    /// - Returns: The condition.
    @_disfavoredOverload
    public static func != (lhs: Column, rhs: Value?) -> Condition {
        guard let rhs else {
            let alwaysTrue = "NOT " + lhs.dialect.falseCondition
            return Condition(SQL(alwaysTrue), error: lhs.error)
        }
        return lhs != rhs
    }
}
