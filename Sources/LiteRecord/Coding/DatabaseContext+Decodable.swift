// MARK: - Fetching Decodable values with raw SQL

extension DatabaseContext {
    /// Fetches every row of a query, decoded into a `Decodable` type.
    ///
    /// Any `Decodable` works, not only models: a struct reads its properties from the columns
    /// of the same names; a plain value (`Int`, `String`, `Date`, a raw-value enum, ...) reads
    /// the first column.
    ///
    /// ```swift
    /// let rich = try db.fetchAll(Player.self, sql: "SELECT * FROM players WHERE score > \(100)")
    /// let names = try db.fetchAll(String.self, sql: "SELECT name FROM players ORDER BY name")
    /// ```
    ///
    /// - Parameters:
    ///   - type: The type of each element.
    ///   - sql: One query; interpolated values are bound.
    /// - Returns: The decoded rows, in the order SQLite returned them.
    /// - Throws: ``DatabaseError`` when the SQL fails, ``RowDecodingError`` when a row does not
    ///   fit the type (naming the column, the stored value and the expected type).
    @inlinable
    public func fetchAll<T: Decodable>(_ type: T.Type, sql: SQL) throws -> [T] {
        // Inlinable so that appending is specialized for the type in the caller's code: in
        // generic code it costs more than decoding an integer column.
        var values: [T] = []
        try forEachValue(
            T.self, sql: sql, allocatingAll: makeRowArray, collectingAll: { values = $0 },
            { values.append($0) })
        return values
    }

    /// Fetches every row of a query with explicit arguments, decoded into a `Decodable` type.
    ///
    /// - Parameters:
    ///   - type: The type of each element.
    ///   - sql: One query with `?` or `:name` parameters.
    ///   - arguments: Their values.
    /// - Returns: The decoded rows.
    /// - Throws: As ``fetchAll(_:sql:)-(T.Type,_)``.
    public func fetchAll<T: Decodable>(_ type: T.Type, sql: String, arguments: StatementArguments) throws
        -> [T]
    {
        try fetchAll(T.self, sql: SQL(sql, arguments: arguments))
    }

    /// Fetches the first row of a query decoded into a `Decodable` type, or `nil` when there
    /// is no row.
    ///
    /// - Parameters:
    ///   - type: The type to decode.
    ///   - sql: One query; interpolated values are bound.
    /// - Returns: The first row, decoded.
    /// - Throws: As ``fetchAll(_:sql:)-(T.Type,_)``.
    public func fetchOne<T: Decodable>(_ type: T.Type, sql: SQL) throws -> T? {
        try withReader { connection in
            try connection.withStatement(sql) { statement in
                guard try statement.step() else { return T?.none }
                return try RowDecodingSession(source: statement, decoder: connection.rowDecoder, type: T.self)
                    .decodeRow(T.self)
            }
        }
    }

    /// Decodes the rows of a query one at a time, as SQLite produces them, without holding
    /// them all in memory.
    ///
    /// - Parameters:
    ///   - type: The type of each element.
    ///   - sql: One query; interpolated values are bound.
    ///   - body: Called with each decoded row; throwing stops the iteration and is rethrown.
    /// - Throws: ``DatabaseError``, ``RowDecodingError``, or what `body` throws.
    /// - Complexity: Column names are looked up once per query, not once per row.
    public func forEach<T: Decodable>(_ type: T.Type, sql: SQL, _ body: (T) throws -> Void) throws {
        try forEachValue(T.self, sql: sql) { try body($0) }
    }

    /// Decodes the rows of a query one at a time, handing each value over: a caller that keeps
    /// it moves it instead of copying it and destroying the original.
    ///
    /// - Parameters:
    ///   - allocatingAll: For a caller that keeps every row: when rows of `T` are built in
    ///     place, in an array it allocates, they go to `collectingAll` and `body` is never called.
    ///   - collectingAll: Takes the rows built in place.
    @usableFromInline
    func forEachValue<T: Decodable>(
        _ type: T.Type, sql: SQL, allocatingAll: RowArrayAllocation<T>? = nil,
        collectingAll: (consuming [T]) -> Void = { _ in }, _ body: (consuming T) throws -> Void
    ) throws {
        try withReader { connection in
            try connection.withStatement(sql) { statement in
                try RowDecodingSession.decodeRows(
                    T.self, of: statement, decoder: connection.rowDecoder, allocatingAll: allocatingAll,
                    collectingAll: collectingAll, body)
            }
        }
    }
}

// MARK: - Fetching Decodable values from a table

extension DatabaseContext {
    /// Fetches every row of a table (or view) into a `Decodable` type that is not a model: a
    /// read-only view of some of its columns.
    ///
    /// The type's coding keys name the columns to select (`SELECT "id", "total" FROM "orders"`);
    /// the table's other columns are not read. The table is neither created nor changed.
    ///
    /// ```swift
    /// struct Summary: Decodable { var id: Int64; var total: Double; var note: String? }
    /// let summaries = try db.fetchAll(Summary.self, fromTable: "orders")
    /// ```
    ///
    /// - Parameters:
    ///   - type: The type of each element; its properties are read from the columns of the
    ///     same names (its `CodingKeys` strings; SQLite names ignore case).
    ///   - table: The table or view name; it is quoted, so any name works.
    /// - Returns: The rows, in the order SQLite reads them (for another order, or a filter,
    ///   write the SQL: ``fetchAll(_:sql:)-(T.Type,_)``).
    /// - Throws: ``SchemaError`` naming the property and the table's columns when a non-optional
    ///   property has no column (an optional one reads `nil`), or when the type has no keys;
    ///   ``DatabaseError`` (`no such table`) for a table that does not exist;
    ///   ``RowDecodingError`` when a value does not fit.
    public func fetchAll<T: Decodable>(_ type: T.Type, fromTable table: String) throws -> [T] {
        try withReader { connection in
            try connection.fetchAll(T.self, sql: connection.selectSQL(for: T.self, fromTable: table))
        }
    }
}

extension Connection {
    /// `SELECT` of the columns a `Decodable` type's keys name, from a table, checked against the
    /// table's columns.
    func selectSQL<T: Decodable>(for type: T.Type, fromTable table: String) throws -> SQL {
        let columns = try fetchAll(String.self, sql: "SELECT name FROM pragma_table_xinfo(\(table))")
        return try DecodableTableSelection.selectSQL(for: T.self, fromTable: table, columns: columns)
    }
}
