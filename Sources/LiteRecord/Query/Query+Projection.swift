/// A selected expression with the name a result type reads it by: `$0.score.sum.as("total")`.
public struct SelectedColumn: Sendable {
    let sql: SQL
    let error: (any Error)?
}

extension Column {
    /// Selects this column or expression under `name`, the coding key of the result type.
    ///
    /// - Parameter name: The result column's name.
    /// - Returns: The selection.
    public func `as`(_ name: String) -> SelectedColumn {
        SelectedColumn(sql: "\(sql) AS \(SQL(SQL.quoteIdentifier(name)))", error: error)
    }

    /// The sum of the column over each group (0 for an empty group).
    public var sum: Column<Value> {
        derived(aggregate("coalesce(\(sumSQL), 0)", function: "sum"), isNullable: false)
    }
    /// The smallest value of the column in each group.
    public var min: Column<Value?> {
        derived(aggregate(extremumSQL("min"), function: "min"), isNullable: true)
    }
    /// The largest value of the column in each group.
    public var max: Column<Value?> {
        derived(aggregate(extremumSQL("max"), function: "max"), isNullable: true)
    }
    /// The average of the column in each group.
    public var average: Column<Double?> {
        derived(aggregate("avg(\(sql))", function: "avg"), isNullable: true)
    }

    /// The aggregate as the Swift type it decodes to, in the column's dialect (see
    /// `SQLDialect.aggregateResult`).
    private func aggregate(_ sql: SQL, function: String) -> SQL {
        dialect.aggregateResult(sql, function: function, resultType: Value.self)
    }
}

extension Columns {
    /// The number of rows (in each group, when grouped): `count(*)`.
    public var rowCount: Column<Int> {
        Column(
            sql: "count(*)", columnName: nil, isNullable: false, isJSON: false, collation: nil,
            dateStorage: dateStorage, jsonPath: nil, error: nil, dialectType: dialectType)
    }
}

/// A query whose rows are decoded into another `Decodable` type than the model: some columns,
/// or aggregates of groups.
///
/// ```swift
/// struct TeamTotal: Decodable { var team: Team?; var total: Int; var players: Int }
/// let totals = try db.query(Player.self)
///     .group(by: \.team)
///     .select(TeamTotal.self) { [$0.team.as("team"), $0.score.sum.as("total"), $0.rowCount.as("players")] }
///     .fetchAll()
/// ```
public struct Projection<M: Model, T: Decodable>: Sendable {
    let query: Query<M>
    let selection: [SelectedColumn]?

    func selectionSQL(_ table: TableSchema) throws -> SQL {
        guard let selection else {
            // The result type's keys name the columns; keys the table lacks are left to the
            // decoder, which reports them (or leaves an optional nil).
            let keys = try SchemaProbe.probe(T.self).columns.map(\.key)
            let names = keys.map { table.keyToColumn?[$0] ?? $0 }.filter { name in
                table.columns.contains { $0.name == name }
            }
            guard !names.isEmpty else {
                throw SchemaError("\(T.self) has no property named like a column of \(table.tableName)")
            }
            return SQL(names.map(SQL.quoteIdentifier).joined(separator: ", "))
        }
        if let error = selection.lazy.compactMap(\.error).first { throw error }
        guard let first = selection.first else { throw SchemaError("select(_:_:) needs at least one column") }
        return selection.dropFirst().reduce(first.sql) { "\($0), \($1.sql)" }
    }

    /// Every result row, decoded.
    ///
    /// - Returns: The rows.
    /// - Throws: ``SchemaError``, ``DatabaseError``, ``RowDecodingError``.
    public func fetchAll() throws -> [T] {
        var rows: [T] = []
        try forEach { rows.append($0) }
        return rows
    }

    /// The first result row, or `nil`.
    ///
    /// - Returns: The row.
    /// - Throws: As ``fetchAll()-6n8cn``.
    public func fetchOne() throws -> T? {
        try Projection(query: query.firstRowOnly, selection: selection).fetchAll().first
    }

    /// Decodes the result rows one at a time.
    ///
    /// - Parameter body: Called with each row.
    /// - Throws: As ``fetchAll()-6n8cn``, or what `body` throws.
    public func forEach(_ body: (T) throws -> Void) throws {
        if let backend = query.backend { return try backend.forEach(self, body) }
        try query.runReading { connection, table in
            let sql = query.selectSQL(try selectionSQL(table), table: table)
            try connection.withStatement(sql) { statement in
                let session = RowDecodingSession(
                    source: statement, decoder: RowDecoder(dateStorage: connection.configuration.dateStorage),
                    type: T.self)
                while try statement.step() {
                    try body(session.decodeRow(T.self))
                }
            }
        }
    }

    /// The SELECT this projection runs, with its arguments.
    public var sqlDescription: String {
        do {
            if query.backend != nil { return try backendSelectSQL().description }
            let table = try TableSchemaCache.schema(for: M.self)
            return query.selectSQL(try selectionSQL(table), table: table).description
        } catch {
            return "invalid query: \(error)"
        }
    }
}

extension Query {
    /// Decodes the matching rows into another type, selecting the columns named by its keys.
    ///
    /// - Parameter type: A `Decodable` type whose properties are some of the model's columns.
    /// - Returns: The projection; run it with `fetchAll()`, `fetchOne()` or `forEach`.
    public func select<T: Decodable>(_ type: T.Type) -> Projection<M, T> {
        Projection(query: self, selection: nil)
    }

    /// Decodes chosen columns and aggregates into another type.
    ///
    /// - Parameters:
    ///   - type: The result type; each selection's name is one of its coding keys.
    ///   - selection: `{ [$0.team.as("team"), $0.score.sum.as("total")] }`.
    /// - Returns: The projection.
    public func select<T: Decodable>(
        _ type: T.Type, _ selection: (Columns<M>) -> [SelectedColumn]
    ) -> Projection<M, T> {
        Projection(query: self, selection: selection(columns))
    }

    /// Groups the rows by one or more columns, for aggregates in ``select(_:_:)``.
    ///
    /// - Parameter keyPaths: The grouping properties.
    /// - Returns: The grouped query.
    public func group(by keyPaths: PartialKeyPath<M>...) -> Query {
        group(byKeyPaths: keyPaths)
    }

    /// ``group(by:)`` with the key paths in an array (another backend forwards its own
    /// variadic arguments here).
    package func group(byKeyPaths keyPaths: [PartialKeyPath<M>]) -> Query {
        var copy = self
        copy.groupKeys = keyPaths.map { PropertyReference($0) }
        return copy
    }

    func groupClause(_ table: TableSchema) throws -> SQL {
        guard !groupKeys.isEmpty else { return "" }
        return SQL(
            " GROUP BY " + (try groupColumnNames(table)).map(SQL.quoteIdentifier).joined(separator: ", "))
    }

    /// The columns the rows are grouped by, in order.
    func groupColumnNames(_ table: TableSchema) throws -> [String] {
        try groupKeys.map { reference -> String in
            guard let path = reference.path, path.names.count == 1 else {
                throw SchemaError("\(reference.keyPathDescription) is not a stored property to group by")
            }
            return try table.column(for: path, keyPathDescription: reference.keyPathDescription).name
        }
    }
}
