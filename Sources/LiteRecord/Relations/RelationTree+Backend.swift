// What another backend (LiteRecordPostgres) needs to run a relation tree: the same levels,
// relation resolution, SQL and grouping as SQLite's, over the rows its own statements return.
// Package access: the public API does not grow.

/// Where a relation tree reads the levels below its roots.
enum RelationSource {
    /// A SQLite connection: statements stepped row by row.
    case connection(Connection)
    /// Another backend, which returns each statement's rows at once.
    case backend(any RelationTreeBackend)
}

/// Runs the statements of a relation tree on another backend.
package protocol RelationTreeBackend {
    /// Runs a `SELECT`, decodes each of its rows as a model, and reads some of its columns.
    ///
    /// - Parameters:
    ///   - type: The model of the rows.
    ///   - sql: The statement.
    ///   - columns: The columns to read from each row, besides decoding it.
    /// - Returns: The models, and for each the values of `columns`, in the rows' order.
    /// - Throws: The backend's errors; ``SchemaError`` when a column is missing.
    func fetchRows<M: Model>(_ type: M.Type, sql: SQL, columns: [String]) throws -> (
        models: [M], values: [[DatabaseValue]]
    )
}

extension RelationTree {
    /// The query of the tree's roots.
    package var backendQuery: Query<Root> { query }

    /// Every model whose table the tree reads: the roots', those their filters read, and those
    /// of every level below.
    package var models: [any Model.Type] {
        [Root.self] + query.relatedTables.map(\.model) + relatedModels
    }

    /// Runs the tree on another backend: the roots' query, then one query per level below.
    ///
    /// Call it inside one snapshot, once the tables of ``models`` exist; every level's SQL is in
    /// the dialect its query carries (the backend's: the tree was built on it).
    ///
    /// - Parameter backend: Runs the statements.
    /// - Returns: The roots in the root query's order, each as an element.
    /// - Throws: The first problem of the tree (see `check`), the backend's errors.
    package func fetchAll(on backend: any RelationTreeBackend) throws -> [Element] {
        if let error = query.buildError { throw error }
        try check()
        let roots = try backend.fetchRows(
            Root.self, sql: try query.backendSelectSQL("*"), columns: keyColumns)
        var keys = RowKeys()
        if !keyColumns.isEmpty {
            for values in roots.values { keys.append(values: values[...]) }
        }
        return try attach(roots.models, keys, .backend(backend))
    }

    /// Decodes a fetched element into a `Decodable` of the caller's, as
    /// ``IncludingQuery/fetchAll(_:)-67huj`` does.
    ///
    /// - Parameters:
    ///   - type: The caller's type.
    ///   - element: An element ``fetchAll(on:)`` returned.
    /// - Returns: The decoded value.
    /// - Throws: ``SchemaError`` when a property asks for something the tree does not fetch.
    package func decode<T: Decodable>(_ type: T.Type, from element: Element) throws -> T {
        try RelationTreeDecoder.decode(T.self, from: node(element))
    }

    /// The elements of this level for the rows of the level above whose keys are `keys`,
    /// gathered by key slot, read from another backend: `nil` when no key relates to anything.
    func groups(of keys: RowKeys, load: EagerLoad, from backend: any RelationTreeBackend) throws -> (
        rootSlots: [Int], groups: [[Element]]
    )? {
        let dialect = query.dialect
        let slots = try KeySlots(keys, forms: load.keyForms, dialect: dialect)
        guard slots.count > 0 else { return nil }
        let (sql, slotColumns) = load.targetSQL(
            keys: slots.boundKeys, conditions: query.conditions, orderClause: query.orderClause(),
            dialect: dialect)
        let fetched = try backend.fetchRows(Root.self, sql: sql, columns: slotColumns + keyColumns)
        var models: [Root] = []
        var rowSlots: [Int] = []
        var rowKeys = RowKeys()
        models.reserveCapacity(fetched.models.count)
        // Indices, not `zip`: see `RowsBySlot.append(contentsOf:slots:)`.
        for index in fetched.models.indices {
            let values = fetched.values[index]
            guard let slot = slots.slot(of: values[..<slotColumns.count]) else { continue }
            models.append(fetched.models[index])
            rowSlots.append(slot)
            if !keyColumns.isEmpty { rowKeys.append(values: values[slotColumns.count...]) }
        }
        let elements = try attach(models, rowKeys, .backend(backend))
        let rows = RowsBySlot<Element>()
        rows.append(contentsOf: elements, slots: rowSlots)
        return (slots.rootSlots, rows.take(slotCount: slots.count))
    }
}
