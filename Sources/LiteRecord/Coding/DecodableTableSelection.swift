/// The columns a plain `Decodable` type reads from a table: each coding key matched to the
/// table's column of that name, ignoring ASCII case as SQL names do. Shared by the backends'
/// `fetchAll(_:fromTable:)`, each of which lists the table's columns its own way.
package enum DecodableTableSelection {
    /// `SELECT` of the columns `T`'s keys name, from `table`.
    ///
    /// - Parameters:
    ///   - type: The `Decodable` type.
    ///   - table: The table or view; it is quoted.
    ///   - columns: The table's columns, in their order; empty when there is no such table.
    /// - Returns: The statement, with no arguments.
    /// - Throws: ``DatabaseError`` (`no such table`) when `columns` is empty; ``SchemaError``
    ///   naming the property and the columns when a non-optional property has no column, or when
    ///   the type has no keys or none of them names a column.
    package static func selectSQL<T: Decodable>(
        for type: T.Type, fromTable table: String, columns: [String]
    ) throws -> SQL {
        guard !columns.isEmpty else {
            throw DatabaseError(resultCode: .error, message: "no such table: \(table)")
        }
        let byFoldedName = Dictionary(columns.map { (RowColumns.fold($0), $0) }) { first, _ in first }
        let keys = try SchemaProbe.probe(T.self).columns
        guard !keys.isEmpty else {
            throw SchemaError("\(T.self) has no properties to read from the columns of \(table)")
        }
        var selected: [String] = []
        for key in keys {
            if let column = byFoldedName[RowColumns.fold(key.key)] {
                if !selected.contains(column) { selected.append(column) }
            } else if !key.isOptional {
                throw SchemaError(
                    "\(T.self).\(key.key) has no column in \(table) (columns: \(columns.joined(separator: ", "))); "
                        + "make the property optional or rename it with CodingKeys")
            }
        }
        guard !selected.isEmpty else {
            throw SchemaError(
                "none of \(T.self)'s properties names a column of \(table) (columns: "
                    + "\(columns.joined(separator: ", ")))")
        }
        // Built as a String first: interpolating into an `SQL` literal would bind the names.
        let text =
            "SELECT \(selected.map(SQL.quoteIdentifier).joined(separator: ", ")) FROM \(SQL.quoteIdentifier(table))"
        return SQL(verbatim: text)
    }
}
