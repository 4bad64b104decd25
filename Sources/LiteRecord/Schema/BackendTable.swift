import Foundation

/// A model's table as another backend (LiteRecordPostgres) sees it: the columns, keys and
/// indexes LiteRecord read from the type and its ``Schema``, and the model's row encoder and
/// decoder, so that a backend maps models exactly as SQLite's path does, with no second
/// `Codable` implementation. Package access: not part of LiteRecord's public API.
///
/// A class, made once per model type and shared: a backend hands it to every operation, and a
/// struct of this many arrays and strings cost a retain and a release of each at every hand-over
/// (callgrind: a tenth of a PostgreSQL `find`'s client-side instructions).
package final class BackendTable: Sendable {
    /// One column of the table.
    package struct Column: Sendable {
        package let name: String
        /// The type LiteRecord declares for it in SQLite.
        package let declaredType: DatabaseColumnType
        package let isOptional: Bool
        /// Whether the value is stored as JSON (arrays, dictionaries, nested structs).
        package let isJSON: Bool
        /// Whether the Swift value is a `Bool` (SQLite stores it as an integer).
        package let isBoolean: Bool
        /// The schema's default value, if any.
        package let defaultValue: DatabaseValue?
        /// The collation the schema declares for it (`.collation(_:for:)`), if any.
        package let collation: Collation?
        /// The property it stores (or its coding key), for messages.
        package let property: String
    }

    let schema: TableSchema
    /// The model type's name, for messages.
    package let typeName: String
    package let name: String
    package let columns: [Column]
    package let primaryKey: [String]
    /// The integer key the database assigns when the model's key is nil, if any.
    package let automaticKeyColumn: String?
    package let uniques: [[String]]
    package let indexes: [[String]]
    /// The foreign keys the schema declares.
    package let foreignKeys: [ForeignKey]
    /// The columns the schema's full-text index indexes, in order, if it declares one.
    package let fullTextColumns: [String]?

    /// The table of a model type, resolved once per type.
    ///
    /// - Parameter type: The model type.
    /// - Throws: ``SchemaError`` for a model that cannot be mapped.
    package init<M: Model>(for type: M.Type) throws {
        let schema = try TableSchemaCache.schema(for: M.self)
        self.schema = schema
        typeName = schema.typeName
        name = schema.tableName
        columns = schema.columns.map {
            Column(
                name: $0.name, declaredType: $0.declaredType, isOptional: $0.isOptional, isJSON: $0.isJSON,
                isBoolean: $0.swiftTypeName == "Bool" || $0.swiftTypeName == "Optional<Bool>",
                defaultValue: $0.defaultValue, collation: $0.collation, property: $0.property ?? $0.key)
        }
        primaryKey = schema.primaryKey
        automaticKeyColumn = schema.rowIDKey.flatMap { $0.isAutomatic ? $0.column : nil }
        uniques = schema.uniques
        indexes = schema.indexes
        let needingIndex = Set(schema.foreignKeysNeedingIndex.map(\.columns))
        foreignKeys = schema.foreignKeys.map {
            ForeignKey(key: $0, childTypeName: schema.typeName, needsIndex: needingIndex.contains($0.columns))
        }
        fullTextColumns = schema.fullTextColumns
    }

    /// Whether each primary key column, in key order, holds UUIDs: another tool may have
    /// written one in lower case, so a key condition matches both spellings.
    package var keyHoldsUUIDs: [Bool] { schema.statements.uuidKeyColumns }

    /// Whether a primary key column holds UUIDs (see ``keyHoldsUUIDs``).
    package var hasUUIDKey: Bool { schema.statements.hasUUIDKey }

    /// Whether a primary key column holds dates or decimals, which another tool may have
    /// written in another form (`2024-01-02T03:04:05Z`, `1.50`) that `=` on the text misses.
    package var hasValueFormKey: Bool { schema.hasValueFormKey }

    /// How each primary key column compares as a value, a date column read under its own
    /// storage or else `dateStorage`.
    package func keyForms(dateStorage: DateStorage) -> [RelationKeyForm] {
        schema.keyForms(dateStorage: dateStorage)
    }

    /// What `SELECT` reads for a model: `*`, or the model's columns when the table may also hold
    /// a full-text search column of the backend's (as big as the text, which no model decodes).
    package var selection: String {
        guard fullTextColumns != nil else { return "*" }
        return columns.map { SQL.quoteIdentifier($0.name) }.joined(separator: ", ")
    }

    /// Encodes a model as LiteRecord stores it: column names and values, in the encoder's order.
    ///
    /// - Parameters:
    ///   - model: The model.
    ///   - dateStorage: How dates are stored.
    /// - Returns: The encoded row.
    /// - Throws: `EncodingError` or ``ValueConversionError`` for a value that cannot be stored.
    package func encode<M: Model>(_ model: M, dateStorage: DateStorage) throws -> EncodedRow {
        try schema.rowEncoder(dateStorage: dateStorage).encode(model, expecting: schema.statements.columns)
            .row
    }

    /// Decodes a model from a row, with LiteRecord's decoder (the same checks and errors).
    ///
    /// - Parameters:
    ///   - type: The model type.
    ///   - row: The row.
    ///   - dateStorage: How dates are stored.
    /// - Returns: The model.
    /// - Throws: ``RowDecodingError``.
    package func decode<M: Model>(_ type: M.Type, from row: Row, dateStorage: DateStorage) throws -> M {
        try schema.rowDecoder(dateStorage: dateStorage).decode(M.self, from: row)
    }

    /// The decoder of this model's rows (decode many rows with one).
    ///
    /// - Parameter dateStorage: How dates are stored.
    /// - Returns: The decoder.
    package func rowDecoder(dateStorage: DateStorage) -> RowDecoder {
        schema.rowDecoder(dateStorage: dateStorage)
    }

    /// Writes a key the database generated into the model's automatic key, when it is still nil.
    ///
    /// - Parameters:
    ///   - key: The generated key.
    ///   - model: The model.
    package func assignGeneratedKey<M: Model>(_ key: Int64, to model: inout M) {
        schema.assign(rowID: key, to: &model)
    }

    /// Whether the model's automatic key is nil (the database is to choose it).
    ///
    /// - Parameter model: The model.
    /// - Returns: Whether the key is nil; `false` for models without an automatic key.
    package func hasNoGeneratedKey<M: Model>(_ model: M) -> Bool {
        schema.hasNilAutomaticKey(model)
    }
}

extension TableSchema {
    /// Whether the model's automatic key is still nil: the row was never inserted, and the
    /// database is to choose its key. `false` for models without an automatic key.
    func hasNilAutomaticKey<M: Model>(_ model: M) -> Bool {
        guard let key = rowIDKey, key.isAutomatic else { return false }
        return withUnsafeBytes(of: model) { bytes in
            switch key.storage {
            case .optionalInt64: bytes.load(fromByteOffset: key.offset, as: Int64?.self) == nil
            case .optionalInt: bytes.load(fromByteOffset: key.offset, as: Int?.self) == nil
            case .int64, .int: false
            }
        }
    }

    /// Writes a rowid into a model's automatic key, when the key is still nil.
    func assign<M: Model>(rowID: Int64, to model: inout M) {
        guard let key = rowIDKey, key.isAutomatic else { return }
        withUnsafeMutableBytes(of: &model) { bytes in
            switch key.storage {
            case .optionalInt64:
                if bytes.load(fromByteOffset: key.offset, as: Int64?.self) == nil {
                    bytes.storeBytes(of: Int64?(rowID), toByteOffset: key.offset, as: Int64?.self)
                }
            case .optionalInt:
                if bytes.load(fromByteOffset: key.offset, as: Int?.self) == nil {
                    bytes.storeBytes(of: Int?(Int(rowID)), toByteOffset: key.offset, as: Int?.self)
                }
            case .int64, .int:
                break
            }
        }
    }
}

extension Row {
    /// Rows that share one column list (its name lookup is built once), for another backend's
    /// results.
    ///
    /// - Parameters:
    ///   - columnNames: The column names.
    ///   - values: Each row's values, in column order.
    /// - Returns: The rows.
    package static func backendRows(columnNames: [String], values: [[DatabaseValue]]) -> [Row] {
        backendRows(columns: RowColumns(names: columnNames), values: values)
    }

    /// Rows that share a column list a backend keeps from one result to the next (a prepared
    /// statement's), so that its name lookup is not built again for each result.
    ///
    /// - Parameters:
    ///   - columns: The column list.
    ///   - values: Each row's values, in column order.
    /// - Returns: The rows.
    package static func backendRows(columns: RowColumns, values: [[DatabaseValue]]) -> [Row] {
        values.map { Row(columns: columns, values: $0) }
    }
}
