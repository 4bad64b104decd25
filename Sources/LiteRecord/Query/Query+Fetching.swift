extension Query {
    /// The query limited to its first row (`limit(0)` stays `limit(0)`, an offset stays): what
    /// `fetchOne()`, `first()` and `exists()` read, on every backend.
    package var firstRowOnly: Query { limit(Swift.min(limitCount ?? 1, 1)) }

    /// Runs `body` with the table and the writer connection, after throwing any build error.
    func run<T>(_ body: (Connection, TableSchema) throws -> T) throws -> T {
        if let buildError { throw buildError }
        return try context.withConnection { connection in
            let table = try connection.table(for: M.self)
            for related in relatedTables { try related.prepare(connection) }
            return try body(connection, table)
        }
    }

    /// Runs `body`, which only reads, with the table and a reading connection (a reader of a
    /// WAL database), after throwing any build error. A model table that does not exist yet
    /// reads as empty (see `Connection.readingModelTable`).
    func runReading<T>(_ body: (Connection, TableSchema) throws -> T) throws -> T {
        if let buildError { throw buildError }
        return try context.withReader(preparing: M.self) { connection in
            try connection.readingRelatedModelTables(relatedTables) {
                try connection.readingModelTable(M.self) { table in try body(connection, table) }
            }
        }
    }

    /// Every matching model.
    ///
    /// - Returns: The models, in the query's order.
    /// - Throws: ``SchemaError`` for a key path that is not a column, ``DatabaseError``,
    ///   ``RowDecodingError``.
    @inlinable
    public func fetchAll() throws -> [M] {
        // Inlinable so that appending is specialized for the model type in the caller's code.
        var models: [M] = []
        try forEachModel(allocatingAll: makeRowArray, collectingAll: { models = $0 }, { models.append($0) })
        return models
    }

    /// The first matching model, or `nil`.
    ///
    /// - Returns: The model.
    /// - Throws: As ``fetchAll()-2xr4o``.
    public func fetchOne() throws -> M? {
        if let backend { return try backend.fetchOne(self) }
        return try runReading { connection, table in
            try connection.fetchFirstModel(
                M.self, table: table, sql: firstRowOnly.selectSQL("*", table: table))
        }
    }

    /// The first matching model, or `nil`; the same as ``fetchOne()-95mgs``.
    ///
    /// - Returns: The model.
    /// - Throws: As ``fetchAll()-2xr4o``.
    public func first() throws -> M? {
        try fetchOne()
    }

    /// Decodes the matching models one at a time, without holding them all in memory.
    ///
    /// - Parameter body: Called with each model; throwing stops the iteration.
    /// - Throws: As ``fetchAll()-2xr4o``, or what `body` throws.
    public func forEach(_ body: (M) throws -> Void) throws {
        try forEachModel { try body($0) }
    }

    /// Decodes the matching models one at a time, handing each over: a caller that keeps it
    /// moves it instead of copying it and destroying the original (or, given `allocatingAll`,
    /// hands all of them over at once to `collectingAll` when they are built in place).
    @usableFromInline
    func forEachModel(
        allocatingAll: RowArrayAllocation<M>? = nil, collectingAll: (consuming [M]) -> Void = { _ in },
        _ body: (consuming M) throws -> Void
    ) throws {
        if let backend {
            guard allocatingAll != nil else { return try backend.forEach(self) { try body($0) } }
            return collectingAll(try backend.fetchAll(self))
        }
        try runReading { connection, table in
            try connection.forEachModel(
                M.self, table: table, sql: selectSQL("*", table: table), allocatingAll: allocatingAll,
                collectingAll: collectingAll, body)
        }
    }

    /// The number of matching rows (within the limit, when there is one); for a grouped query,
    /// the number of groups, as many as `select(_:_:)` returns.
    ///
    /// - Returns: The count.
    /// - Throws: ``SchemaError``, ``DatabaseError``.
    public func count() throws -> Int {
        if let backend { return try backend.count(self) }
        return try runReading { connection, table in
            let sql: SQL =
                limitCount == nil && offsetCount == nil && !isDistinct && groupKeys.isEmpty
                ? selectSQL("count(*)", table: table, ordered: false)
                : "SELECT count(*) FROM (\(selectSQL("*", table: table)))"
            return try connection.fetchOne(Int.self, sql: sql) ?? 0
        }
    }

    /// Whether any row matches.
    ///
    /// - Returns: `true` when at least one row matches.
    /// - Throws: ``SchemaError``, ``DatabaseError``.
    public func exists() throws -> Bool {
        if let backend { return try backend.exists(self) }
        return try runReading { connection, table in
            let inner = firstRowOnly.selectSQL("1", table: table, ordered: false)
            return try connection.fetchOne(Bool.self, sql: "SELECT EXISTS (\(inner))") ?? false
        }
    }

    // MARK: - Aggregates

    private func aggregate<T: Decodable>(
        _ function: String, _ column: (Columns<M>) -> Column<some Any>, as type: T.Type
    )
        throws -> T?
    {
        let selected = column(columns)
        if let error = selected.error { throw error }
        guard groupKeys.isEmpty else {
            // One value per group: a scalar would silently be the first group's.
            throw SchemaError(
                "\(function)() of a grouped query has one value per group; use select(_:_:) with a "
                    + "per-group aggregate instead, such as `$0.score.sum.as(\"total\")`")
        }
        if let backend { return try backend.aggregate(self, function, of: selected, as: T.self) }
        return try runReading { connection, table in
            let aggregate: SQL =
                switch function {
                case "min", "max": selected.extremumSQL(function)
                case "sum": selected.sumSQL
                default: "\(SQL(function))(\(selected.sql))"
                }
            // Over the rows the query returns, as count() (the column names are the same).
            let sql: SQL =
                limitCount == nil && offsetCount == nil && !isDistinct
                ? selectSQL(aggregate, table: table, ordered: false, limited: false)
                : "SELECT \(aggregate) FROM (\(selectSQL("*", table: table)))"
            return try connection.fetchOne(T?.self, sql: sql) ?? nil
        }
    }

    /// The sum of a numeric column over the matching rows; 0 when none match.
    ///
    /// - Parameter column: `{ $0.score }`.
    /// - Returns: The sum, of the column's type.
    /// - Throws: ``DatabaseError`` (an integer overflow, for instance); ``SchemaError`` for a
    ///   grouped query.
    public func sum<Value: Numeric & Decodable>(_ column: (Columns<M>) -> Column<Value>) throws -> Value {
        try aggregate("sum", column, as: Value.self) ?? 0
    }

    /// The smallest value of a column over the matching rows, or `nil` when none match.
    ///
    /// - Parameter column: `{ $0.score }`.
    /// - Returns: The minimum.
    /// - Throws: ``DatabaseError``, ``RowDecodingError``; ``SchemaError`` for a grouped query.
    public func min<Value: Comparable & Decodable>(_ column: (Columns<M>) -> Column<Value>) throws -> Value? {
        try aggregate("min", column, as: Value.self)
    }

    /// The largest value of a column over the matching rows, or `nil` when none match.
    ///
    /// - Parameter column: `{ $0.score }`.
    /// - Returns: The maximum.
    /// - Throws: ``DatabaseError``, ``RowDecodingError``; ``SchemaError`` for a grouped query.
    public func max<Value: Comparable & Decodable>(_ column: (Columns<M>) -> Column<Value>) throws -> Value? {
        try aggregate("max", column, as: Value.self)
    }

    /// The average of a numeric column over the matching rows, or `nil` when none match.
    ///
    /// - Parameter column: `{ $0.score }`.
    /// - Returns: The average as a `Double`.
    /// - Throws: ``DatabaseError``; ``SchemaError`` for a grouped query.
    public func average<Value: Numeric>(_ column: (Columns<M>) -> Column<Value>) throws -> Double? {
        try aggregate("avg", column, as: Double.self)
    }
}

// The same aggregates over optional columns: `nil`s are left out, as SQL does.
extension Query {
    /// The smallest non-`nil` value of an optional column, or `nil` when there is none.
    ///
    /// - Parameter column: `{ $0.freight }`.
    /// - Returns: The minimum.
    /// - Throws: As ``min(_:)``.
    public func min<Value: Comparable & Decodable>(_ column: (Columns<M>) -> Column<Value?>) throws -> Value?
    {
        try aggregate("min", column, as: Value.self)
    }

    /// The largest non-`nil` value of an optional column, or `nil` when there is none.
    ///
    /// - Parameter column: `{ $0.freight }`.
    /// - Returns: The maximum.
    /// - Throws: As ``max(_:)``.
    public func max<Value: Comparable & Decodable>(_ column: (Columns<M>) -> Column<Value?>) throws -> Value?
    {
        try aggregate("max", column, as: Value.self)
    }

    /// The sum of an optional numeric column over the matching rows, `nil`s left out (as
    /// `compactMap` then `reduce(0, +)`); 0 when no value is there.
    ///
    /// - Parameter column: `{ $0.freight }`.
    /// - Returns: The sum, of the wrapped type.
    /// - Throws: As ``sum(_:)``.
    public func sum<Value: Numeric & Decodable>(_ column: (Columns<M>) -> Column<Value?>) throws -> Value {
        try aggregate("sum", column, as: Value.self) ?? 0
    }

    /// The average of the non-`nil` values of an optional numeric column, or `nil` when there
    /// is none.
    ///
    /// - Parameter column: `{ $0.freight }`.
    /// - Returns: The average as a `Double`.
    /// - Throws: As ``average(_:)``.
    public func average<Value: Numeric>(_ column: (Columns<M>) -> Column<Value?>) throws -> Double? {
        try aggregate("avg", column, as: Double.self)
    }
}
