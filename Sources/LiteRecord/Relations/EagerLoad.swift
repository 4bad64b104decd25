/// The plan of an eager load: which rows of the target's table belong to which root, and the
/// SQL that fetches them all in one statement.
struct EagerLoad: Sendable {
    /// How the target rows are reached from the roots.
    enum Path: Sendable {
        /// A foreign key between the root and the target.
        case direct(Relation)
        /// A junction table with a foreign key to each (many-to-many): `first` relates the root
        /// to the junction, `second` the junction to the target.
        case through(first: Relation, second: Relation)
    }

    let path: Path
    /// The models whose tables the load reads: the target, and the junction before it.
    let models: [any Model.Type]
    /// Makes sure every table the load reads exists, on a connection that can write.
    let prepareTables: @Sendable (Connection) throws -> Void

    /// The columns of a root row whose values select its target rows.
    var rootColumns: [String] {
        switch path {
        case .direct(let relation): relation.rootColumns
        case .through(let first, _): first.rootColumns
        }
    }

    /// How the root's key columns compare with the related rows' (see ``RelationKeyForm``).
    var keyForms: [RelationKeyForm] {
        switch path {
        case .direct(let relation): relation.keyForms
        case .through(let first, _): first.keyForms
        }
    }

    /// The tables read, for the missing-table check of a reader.
    var tables: [TableSchema] {
        switch path {
        case .direct(let relation): [relation.target]
        case .through(let first, let second): [first.target, second.target]
        }
    }

    /// Names the columns that carry the root's key in a result row of the target query.
    static let keyColumnPrefix = "literecord_key_"

    /// `SELECT` of every target row related to the roots whose keys are bound as one JSON
    /// array, narrowed and ordered by `children`; the result also holds, in `keyColumns`, the
    /// root key each row belongs to. `dialect` is that of the children's query, which the
    /// conditions and ordering are in.
    func targetSQL(keys: String, conditions: [Condition], orderClause: SQL, dialect: any SQLDialect) -> (
        sql: SQL, keyColumns: [String]
    ) {
        func quoted(_ name: String) -> SQL { SQL(SQL.quoteIdentifier(name)) }
        var sql: SQL
        let keyColumns: [String]
        switch path {
        case .direct(let relation):
            keyColumns = relation.targetColumns
            sql = "SELECT * FROM \(quoted(relation.target.tableName)) WHERE "
            sql.append(
                dialect.keyMembership(
                    relation.targetColumns.map(quoted), keys: keys, names: relation.targetColumns,
                    in: relation.target, forms: relation.keyForms))
            for condition in conditions { sql.append(" AND \(condition.sql)") }
        case .through(let first, let second):
            // The target's columns and the junction's root key, in a subquery, so that the
            // children's conditions and orderings name the target's columns unambiguously. The
            // subquery takes the target table's name (a dialect may require it to have one), so that
            // a condition naming that table, as a relation filter's `EXISTS` does, reads its rows.
            keyColumns = first.targetColumns.indices.map { "\(EagerLoad.keyColumnPrefix)\($0)" }
            let junction = quoted("literecord_junction")
            let target = quoted("literecord_target")
            var selection: SQL = ""
            for (index, column) in first.targetColumns.enumerated() {
                selection.append("\(junction).\(quoted(column)) AS \(quoted(keyColumns[index])), ")
            }
            // The junction's key to the target compared as a value: a UUID in any spelling.
            var join = second.keysEqual(target: target, root: junction, in: dialect)
            var targetSource = quoted(second.target.tableName)
            var prefix: SQL = ""
            if second.comparesThroughFunction(in: dialect) {
                // A date or decimal key compares through a function no index serves: the target's
                // key values are computed once, in a materialized table SQLite indexes for the
                // join, rather than once for every pair of junction and target rows.
                var keyed: SQL = ""
                join = ""
                for (index, form) in second.keyForms.enumerated() {
                    let name = quoted("literecord_join_key_\(index)")
                    keyed.append("\(form.keyValue(quoted(second.targetColumns[index]))) AS \(name), ")
                    if index > 0 { join.append(" AND ") }
                    join.append(
                        "\(target).\(name) = \(form.keyValue("\(junction).\(quoted(second.rootColumns[index]))"))"
                    )
                }
                let materialized = quoted("literecord_keyed_target")
                prefix = "WITH \(materialized) AS MATERIALIZED (SELECT \(keyed)* FROM \(targetSource)) "
                targetSource = materialized
            }
            let membership = dialect.keyMembership(
                first.targetColumns.map { "\(junction).\(quoted($0))" }, keys: keys,
                names: first.targetColumns,
                in: first.target, forms: first.keyForms)
            sql =
                "\(prefix)SELECT * FROM (SELECT \(selection)\(target).* FROM \(targetSource) AS "
                + "\(target) JOIN \(quoted(first.target.tableName)) AS \(junction) ON \(join) WHERE \(membership)) "
                + "AS \(quoted(second.target.tableName))"
            for (index, condition) in conditions.enumerated() {
                sql.append(index == 0 ? " WHERE \(condition.sql)" : " AND \(condition.sql)")
            }
        }
        sql.append(orderClause)
        return (sql, keyColumns)
    }
}

extension Connection {
    /// Decodes the models an SQL query returns, and the values of some of their columns.
    ///
    /// One loop in one call, not a closure per row: in this code, generic over the model, each
    /// call would look up the type metadata of the arrays it appends to again.
    func fetchModelsWithKeys<M: Model>(
        _ type: M.Type, table: TableSchema, sql: SQL, keyColumns: [String]
    ) throws -> (models: [M], keys: RowKeys) {
        try withStatement(sql) { statement in
            let columns = try statement.positions(ofKeyColumns: keyColumns, table: table)
            let session = RowDecodingSession(
                source: statement, decoder: table.rowDecoder(dateStorage: configuration.dateStorage),
                type: M.self)
            var models: [M] = []
            var keys = RowKeys()
            while try statement.step() {
                models.append(try session.decodeRow(M.self))
                try keys.append(from: statement, columns: columns)
            }
            return (models, keys)
        }
    }

    /// Decodes the related rows an SQL query returns into one array per slot of their key.
    func fetchModelsBySlot<M: Model>(
        _ type: M.Type, table: TableSchema, sql: SQL, keyColumns: [String], slots: KeySlots
    ) throws -> [[M]] {
        try withStatement(sql) { statement in
            let columns = try statement.positions(ofKeyColumns: keyColumns, table: table)
            let session = RowDecodingSession(
                source: statement, decoder: table.rowDecoder(dateStorage: configuration.dateStorage),
                type: M.self)
            let rows = RowsBySlot<M>()
            while try statement.step() {
                let model = try session.decodeRow(M.self)
                if let slot = try slots.slot(ofRowIn: statement, columns: columns) {
                    rows.append(model, slot: slot)
                }
            }
            return rows.take(slotCount: slots.count)
        }
    }

    /// Runs `body` in one read transaction, so that the statements of an eager load see one
    /// snapshot, or right there inside the transaction already open.
    func inOneSnapshot<T>(_ body: () throws -> T) throws -> T {
        if isInsideTransaction { return try body() }
        return try performTransaction(.deferred) { _ in try body() }
    }

    /// Runs a read of related tables; when one of them does not exist yet on a connection that
    /// does not create tables, returns `[]` as a read of a missing model table does.
    func readingRelatedTables<T>(_ tables: [TableSchema], _ body: () throws -> [T]) throws -> [T] {
        do {
            return try body()
        } catch let error as DatabaseError
            where error.resultCode.primary == .error && error.message.hasPrefix("no such table: ")
        {
            let missing = try tables.filter { try !tableExists($0.tableName) }
            guard !missing.isEmpty else { throw error }
            for table in missing { authorizer?.recordRead(of: table.tableName) }
            return []
        }
    }
}

extension Statement {
    /// The positions of the columns holding the key rows are related by.
    ///
    /// - Throws: ``SchemaError`` when the statement has no such column.
    func positions(ofKeyColumns names: [String], table: TableSchema) throws -> [Int] {
        try names.map { column in
            guard let position = columnIndex(named: column) else {
                throw SchemaError("the rows of \(table.tableName) have no column \(column) to relate them by")
            }
            return position
        }
    }
}
