// What a dialect (`SQLDialect`) of another backend reads of a model's table to write its SQL.

extension TableSchema {
    /// The names of the model's columns, in order.
    package var columnNames: [String] { columns.map(\.name) }

    /// The columns the full-text index declared with `fullTextSearch(on:)` indexes, if any.
    package var fullTextColumns: [String]? { fullTextIndex?.columns }

    /// The column of that name, if the model has one.
    package func column(named name: String) -> Column? { columns.first { $0.name == name } }
}

extension TableSchema.Column {
    /// Whether the Swift value is a `Bool` (SQLite stores it as an integer).
    package var isBoolean: Bool { swiftTypeName == "Bool" || swiftTypeName == "Optional<Bool>" }

    /// Whether the Swift value is a `Decimal` (stored as its exact text, see `Decimal`'s
    /// conformance), which a query compares, sorts and aggregates as a number.
    package var isDecimal: Bool { swiftTypeName == "Decimal" || swiftTypeName == "Optional<Decimal>" }

    /// The column as a query in `dialect` reads, compares and sorts it.
    func queryExpression(in dialect: any SQLDialect) -> SQL { dialect.columnExpression(self) }
}
