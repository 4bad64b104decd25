import LiteRecord

extension DatabaseContext {
    /// The first column of the first row of a query, read as `T`; `nil` when there is no row.
    ///
    /// - Parameters:
    ///   - type: The Swift type to read.
    ///   - sql: A query; interpolated values are bound.
    /// - Throws: ``DatabaseError``, ``RowAccessError`` or ``ValueConversionError``.
    func firstValue<T: DatabaseValueConvertible>(_ type: T.Type, sql: SQL) throws -> T? {
        try fetchOne(Row.self, sql: sql).map { try $0.value(T.self, at: 0) }
    }
}
