import Foundation
import LiteRecord

// Models on PostgreSQL: the same insert, save, update, delete and find as on SQLite, with rows
// encoded and decoded by LiteRecord's own coders (see BackendTable).

extension PostgresContext {
    /// Inserts a model and, when its primary key is an `Int64?`/`Int?` still `nil`, sets it to
    /// the key PostgreSQL generated (`RETURNING`).
    ///
    /// The first use of a model type creates its table (or adds missing columns and indexes).
    ///
    /// - Parameter model: The model; its key is set on return.
    /// - Throws: ``LiteRecord/DatabaseError`` (a unique or NOT NULL violation as on SQLite:
    ///   `.constraintUnique`, `.constraintNotNull`, ...), `EncodingError` for a value that cannot
    ///   be stored, ``LiteRecord/SchemaError`` for a model that cannot be mapped.
    public func insert<M: Model>(_ model: inout M) throws {
        try withSession { session in
            let table = try session.preparedTable(for: M.self)
            if let generated = try session.insertRow(model, table: table, upsert: false) {
                table.assignGeneratedKey(generated, to: &model)
            }
        }
    }

    /// Inserts a model whose key the caller chose.
    ///
    /// - Parameter model: The model.
    /// - Throws: As ``insert(_:)-8ikok``.
    public func insert<M: Model>(_ model: M) throws {
        var copy = model
        try insert(&copy)
    }

    /// Inserts the model, or updates the row with its primary key when there is one
    /// (`INSERT ... ON CONFLICT DO UPDATE`). A `nil` generated key is always an insert, and set.
    ///
    /// - Parameter model: The model.
    /// - Throws: As ``insert(_:)-8ikok``.
    public func save<M: Model>(_ model: inout M) throws {
        if try withSession({ session in
            let table = try session.preparedTable(for: M.self)
            return table.hasUUIDKey || table.hasValueFormKey
        }) {
            // A row another tool keyed in another form (a UUID in lower case, a date as ISO text,
            // a decimal as `1.50`) does not conflict with LiteRecord's form of the key: find the
            // row by value instead of relying on ON CONFLICT, as SQLite does.
            // Then, when no row has the key in any form, an upsert rather than an insert:
            // concurrent saves of one new key all write LiteRecord's form, which conflicts, so
            // one inserts and the others update, as saves of an integer key do.
            do {
                try update(model, columnNames: nil)
                return
            } catch let error as PersistenceError where error.isRowNotFound {}
        }
        try withSession { session in
            let table = try session.preparedTable(for: M.self)
            if let generated = try session.insertRow(
                model, table: table, upsert: !table.hasNoGeneratedKey(model))
            {
                table.assignGeneratedKey(generated, to: &model)
            }
        }
    }

    /// Updates the row with the model's primary key to the model's values.
    ///
    /// - Parameter model: The model.
    /// - Throws: ``LiteRecord/PersistenceError`` (``LiteRecord/PersistenceError/isRowNotFound``)
    ///   when no row has the key; ``LiteRecord/DatabaseError`` for constraint violations.
    public func update<M: Model>(_ model: M) throws {
        try update(model, columnNames: nil)
    }

    /// Deletes the row with the model's primary key.
    ///
    /// - Parameter model: The model.
    /// - Returns: Whether a row was deleted.
    /// - Throws: ``LiteRecord/PersistenceError`` when the model has no primary key.
    @discardableResult
    public func delete<M: Model>(_ model: M) throws -> Bool {
        try withSession { session in
            let table = try session.preparedTable(for: M.self)
            let row = try table.encode(model, dateStorage: session.dateStorage)
            let key = try session.keyValues(row, table: table)
            return try session.byStoredKey(key, table: table, found: { $0 }) { condition in
                try session.execute("DELETE FROM \(identifier: table.name) WHERE \(condition)").changes > 0
            }
        }
    }

    /// Finds the model with a primary key value.
    ///
    /// - Parameters:
    ///   - type: The model type.
    ///   - id: The key value.
    /// - Returns: The model, or `nil` when no row has the key.
    /// - Throws: ``LiteRecord/PersistenceError`` when the model has no single-column key;
    ///   ``LiteRecord/RowDecodingError`` for a row that does not decode.
    public func find<M: Model>(_ type: M.Type, id: some DatabaseValueConvertible) throws -> M? {
        try withReadingSession { session in
            guard let table = try session.readableTable(for: M.self) else { return nil }
            // The key bound as `"\(id)"` binds it: NULL when it cannot be stored (no row).
            let key = (try? id.databaseValue()) ?? .null
            let sql = SQL(
                verbatim: try session.database.findText(of: M.self, table: table),
                arguments: StatementArguments(
                    positional: table.hasUUIDKey ? UUIDSpellings.text(of: key) : [key]))
            let decoder = table.rowDecoder(dateStorage: session.dateStorage)
            if let found = try session.execute(sql, keepingResult: true).decodeFirst(M.self, decoder: decoder)
            {
                return found
            }
            // A date or decimal key another tool wrote in another form.
            guard let stored = try session.storedKey(matching: [key], table: table) else { return nil }
            let again: SQL =
                "SELECT \(SQL(table.selection)) FROM \(identifier: table.name) WHERE \(table.keyCondition(stored)) LIMIT 1"
            return try session.execute(again, keepingResult: true).decodeFirst(M.self, decoder: decoder)
        }
    }

    /// Whether a row has the primary key value.
    ///
    /// - Parameters:
    ///   - type: The model type.
    ///   - id: The key value.
    /// - Returns: Whether the row exists.
    /// - Throws: ``LiteRecord/PersistenceError`` when the model has no single-column key.
    public func exists<M: Model>(_ type: M.Type, id: some DatabaseValueConvertible) throws -> Bool {
        let values = try BackendTable.keyValues(of: M.self, [id])
        return try withReadingSession { session in
            guard let table = try session.readableTable(for: M.self) else { return false }
            return try session.byStoredKey(values, table: table, found: { $0 }) { condition in
                try !session.execute("SELECT 1 FROM \(identifier: table.name) WHERE \(condition) LIMIT 1")
                    .rows.isEmpty
            }
        }
    }

    /// Deletes the row with a primary key value.
    ///
    /// - Parameters:
    ///   - type: The model type.
    ///   - id: The key value.
    /// - Returns: Whether a row was deleted.
    /// - Throws: ``LiteRecord/PersistenceError`` when the model has no single-column key;
    ///   ``LiteRecord/DatabaseError`` (a foreign key that restricts the delete).
    @discardableResult
    public func delete<M: Model>(_ type: M.Type, id: some DatabaseValueConvertible) throws -> Bool {
        try delete(M.self, key: [id])
    }

    /// Every model in the table, in primary key order (SQLite's is rowid order, the same for
    /// an integer key); in the server's order when the model has no primary key.
    ///
    /// - Parameter type: The model type.
    /// - Returns: The models.
    /// - Throws: ``LiteRecord/DatabaseError``, ``LiteRecord/RowDecodingError`` for a row that does
    ///   not decode.
    public func fetchAll<M: Model>(_ type: M.Type) throws -> [M] {
        try withReadingSession { session in
            guard let table = try session.readableTable(for: M.self) else { return [] }
            var sql: SQL = "SELECT \(SQL(table.selection)) FROM \(identifier: table.name)"
            if !table.primaryKey.isEmpty {
                // A text key sorts by bytes, as SQLite's does, whatever its column's collation.
                let keys = table.primaryKey.map(table.byteOrderExpression).joined(separator: ", ")
                sql.append(SQL(verbatim: " ORDER BY " + keys))
            }
            let decoder = table.rowDecoder(dateStorage: session.dateStorage)
            return try session.execute(sql, keepingResult: true).decodeAll(M.self, decoder: decoder)
        }
    }

    /// The number of rows in the model's table.
    ///
    /// - Parameter type: The model type.
    /// - Returns: The count.
    /// - Throws: ``LiteRecord/DatabaseError``.
    public func count<M: Model>(_ type: M.Type) throws -> Int {
        try query(M.self).count()
    }

    /// Creates the model's table, or adds the columns and indexes it lacks, now rather than on
    /// first use; the same additive changes as on first use (nothing is dropped or converted).
    ///
    /// - Parameter type: The model type.
    /// - Throws: ``LiteRecord/SchemaError`` for a model that cannot be mapped or a change that
    ///   cannot be made; ``LiteRecord/DatabaseError`` with ``LiteRecord/ResultCode/readOnly`` in
    ///   a read transaction.
    public func migrate<M: Model>(_ type: M.Type) throws {
        try withSession { session in
            guard !session.isReadOnly else {
                throw DatabaseError(
                    backendName: "PostgreSQL",
                    resultCode: .readOnly, message: "migrate(\(M.self)) cannot run in a read-only transaction"
                )
            }
            _ = try session.preparedTable(for: M.self)
        }
    }

    /// Starts a query on a model's table: LiteRecord's own ``LiteRecord/Query``, the same type
    /// and query language as on SQLite, run on PostgreSQL.
    ///
    /// Comparisons are null-safe as in Swift and text compares by bytes (`COLLATE "C"`) whatever
    /// the database's locale, as on SQLite; PostgreSQL sorts NULL after every value in
    /// ascending order (SQLite before): say `ascending(nulls:)` to choose. What
    /// PostgreSQL cannot do throws when the query runs: the character `count` of a string
    /// (PostgreSQL cannot count grapheme clusters) and `matching(fts5Query:)` (FTS5's query
    /// language).
    ///
    /// - Parameter type: The model type.
    /// - Returns: A query matching every row.
    public func query<M: Model>(_ type: M.Type) -> Query<M> {
        let database = (self as? PostgresDatabase) ?? (self as? PostgresTransaction)?.session.database
        return Query(
            backend: PostgresQueryExecutor(target: PostgresQueryTarget(self)),
            dateStorage: database?.configuration.dateStorage ?? .text)
    }
}

extension PersistenceError {
    /// The error of an update that found no row with the key of the encoded model, worded as
    /// on SQLite.
    static func notFound(_ row: EncodedRow, table: BackendTable) -> PersistenceError {
        rowNotFound(
            tableName: table.name, keyColumns: table.primaryKey,
            key: table.primaryKey.map { row[$0] ?? .null })
    }
}

extension BackendTable {
    /// The column of the model's single-column primary key, which `find`, `exists` and
    /// `delete(_:id:)` look rows up by.
    func singleKeyColumn<M: Model>(of type: M.Type) throws -> String {
        // One value checked against the key as every backend checks it: the same error as
        // SQLite's for a model without a key, or with a key of several columns.
        _ = try BackendTable.keyValues(of: M.self, [DatabaseValue.null])
        return primaryKey[0]
    }

    /// `"a" = $1 AND "b" = $2` for the primary key's columns and values, in key order; a UUID
    /// column `"id" IN ($1, $2)`, its upper and lower case text, as SQLite's key matches
    /// every spelling another tool writes.
    func keyCondition(_ values: [DatabaseValue]) -> SQL {
        var condition: SQL = ""
        let holdsUUIDs = keyHoldsUUIDs
        for (index, (column, value)) in zip(primaryKey, values).enumerated() {
            if index > 0 { condition.append(" AND ") }
            if index < holdsUUIDs.count, holdsUUIDs[index] {
                condition.append("\(identifier: column) IN \(list: UUIDSpellings.text(of: value))")
            } else {
                condition.append("\(identifier: column) = \(value)")
            }
        }
        return condition
    }
}

extension PostgresSession {
    /// The primary key values of an encoded model, in key order.
    ///
    /// - Throws: ``LiteRecord/PersistenceError`` when the model has no primary key, or a `nil` one.
    func keyValues(_ row: EncodedRow, table: BackendTable) throws -> [DatabaseValue] {
        guard !table.primaryKey.isEmpty else {
            throw PersistenceError("\(table.name) has no primary key", table: table.name)
        }
        let values = try table.primaryKey.map { column in
            guard let value = row[column], !value.isNull else {
                throw PersistenceError("the model's primary key \(column) is nil", table: table.name)
            }
            return value
        }
        return values
    }

    /// Runs `run` with the condition for `key`, and once more with the key as the table stores
    /// it (``storedKey(matching:table:)``) when the first run found no row.
    func byStoredKey<T>(
        _ key: [DatabaseValue], table: BackendTable, found: (T) -> Bool, _ run: (SQL) throws -> T
    ) throws -> T {
        let first = try run(table.keyCondition(key))
        guard !found(first), let stored = try storedKey(matching: key, table: table) else { return first }
        return try run(table.keyCondition(stored))
    }
}

extension PostgresDatabase {
    /// `SELECT ... FROM "table" WHERE "key" = ? LIMIT 1`, a model's `find`, built once per model type:
    /// quoting the names again at every call was a fifth of a `find`'s client-side instructions
    /// (callgrind), now that the statement itself runs prepared.
    func findText<M: Model>(of type: M.Type, table: BackendTable) throws -> String {
        let model = ObjectIdentifier(M.self)
        if let text = findTexts.withLock({ $0[model] }) { return text }
        let key = try table.singleKeyColumn(of: M.self)
        let prefix: SQL =
            "SELECT \(SQL(table.selection)) FROM \(identifier: table.name) WHERE \(identifier: key) "
        // A UUID key, in either case (see ``BackendTable/keyCondition(_:)``).
        let text = prefix.text + (table.hasUUIDKey ? "IN (?, ?) LIMIT 1" : "= ? LIMIT 1")
        findTexts.withLock { $0[model] = text }
        return text
    }
}
