import Foundation

/// Everything LiteRecord knows about a model's table, read once per type from the type itself
/// and its ``Schema``: columns, keys, indexes, and the SQL of every operation.
package final class TableSchema: Sendable {
    /// One column of the model.
    package struct Column: Sendable {
        /// The column name in the table.
        package let name: String
        /// The coding key that fills it.
        let key: String
        /// The property it stores, when known.
        let property: String?
        package let declaredType: DatabaseColumnType
        /// Whether it holds a `Date` stored as the connection's ``DateStorage`` says (no
        /// strategy of its own): its type then follows that storage where it is created.
        let followsConnectionDateStorage: Bool
        let isOptional: Bool
        /// Whether the value is stored as JSON text (arrays, dictionaries, nested structs).
        package let isJSON: Bool
        let collation: Collation?
        let defaultValue: DatabaseValue?
        /// The Swift type's name, for messages.
        let swiftTypeName: String
    }

    /// An `INTEGER PRIMARY KEY` that SQLite assigns, and where to write it back into a value.
    struct RowIDKey: Sendable {
        enum Storage: Sendable { case optionalInt64, optionalInt, int64, int }
        let column: String
        let offset: Int
        let storage: Storage
        /// Whether a nil key means "let SQLite choose" (optional keys).
        var isAutomatic: Bool { storage == .optionalInt64 || storage == .optionalInt }
    }

    let typeName: String
    package let tableName: String
    let columns: [Column]
    let primaryKey: [String]
    let rowIDKey: RowIDKey?
    let uniques: [[String]]
    let indexes: [[String]]
    /// Foreign keys to other models' tables (see `Relations/ForeignKey.swift`).
    let foreignKeys: [ForeignKey]
    /// Coding key → column, when some column is not named like its key.
    let keyToColumn: [String: String]?
    /// Root property name → column.
    let propertyToColumn: [String: String]
    /// Column → date storage, for columns with their own strategy.
    let columnDateStorage: [String: DateStorage]
    /// ``rowDecoder(dateStorage:)`` for the default date text, made once: a fetch passes it on
    /// borrowed, where a decoder made per fetch retained and released its two dictionaries.
    let textDateRowDecoder: RowDecoder
    let statements: ModelStatements
    /// The primary key columns a write must give a value, with their positions in
    /// ``ModelStatements/columns``: every key column but the rowid that SQLite assigns.
    let requiredKeyColumns: [(name: String, position: Int)]
    /// The full-text index kept beside the table, when the schema declares one (Search/).
    let fullTextIndex: FullTextIndex?
    /// The in-place encoding verdict for the date storage last asked (``LayoutEncoding``), kept
    /// here so that each write finds it without hashing a key.
    let encodingVerdict = Locked<(storage: DateStorage, layout: EncodingLayout?)?>(nil)

    init<M: Model>(resolving type: M.Type) throws {
        let schema = M.schema
        if let problem = schema.invalidDefaults.first { throw SchemaError(problem) }
        let typeName = String(describing: M.self)
        let tableName = schema.table ?? typeName.prefix(1).lowercased() + typeName.dropFirst()
        guard let fields = PropertyPath.storedFields(of: M.self) else {
            throw TableSchema.notAStructError(M.self)
        }
        let probe = try SchemaProbe.probe(M.self)
        guard !probe.columns.isEmpty else {
            throw SchemaError("\(typeName) decodes no keyed properties, so it has no columns")
        }
        try TableSchema.checkEveryEncodedKeyIsDecoded(M.self, probe: probe, fields: fields)
        let keyForProperty = TableSchema.matchProperties(fields: fields.map(\.name), probe: probe)
        let propertyForKey = Dictionary(
            keyForProperty.map { ($1, $0) }, uniquingKeysWith: { first, _ in first })

        func reference(_ ref: PropertyReference, role: String) throws -> (property: String, key: String) {
            guard let path = ref.path else {
                throw SchemaError(
                    "\(ref.keyPathDescription) in the \(role) of \(typeName) is not a stored property; "
                        + "key paths in a Schema must name stored properties"
                        + TableSchema.propertyWrapperHint(
                            typeName: typeName, fields: fields.map(\.name), keys: probe.columns.map(\.key)))
            }
            guard path.names.count == 1 else {
                throw SchemaError(
                    "\(ref.keyPathDescription) in the \(role) of \(typeName) points inside a property; "
                        + "name the property itself (\\.\(path.root))")
            }
            guard let key = keyForProperty[path.root] else {
                throw SchemaError(
                    "\(ref.keyPathDescription) in the \(role) of \(typeName) is not encoded: property "
                        + "\(path.root) has no coding key, so it has no column")
            }
            return (path.root, key)
        }

        var explicitByKey: [String: String] = [:]
        for (ref, column) in schema.explicitColumns {
            explicitByKey[try reference(ref, role: "column names").key] = column
        }
        func columnName(forKey key: String) -> String {
            explicitByKey[key] ?? schema.naming.columnName(for: key)
        }
        var collations: [String: Collation] = [:]
        for (ref, collation) in schema.collations {
            collations[try reference(ref, role: "collations").key] = collation
        }
        var defaults: [String: DatabaseValue] = [:]
        for (ref, value) in schema.defaults { defaults[try reference(ref, role: "defaults").key] = value }
        var dateStorages: [String: DateStorage] = [:]
        for (ref, storage) in schema.dateStorages {
            let key = try reference(ref, role: "date storages").key
            dateStorages[columnName(forKey: key)] = storage
        }

        // A property of optional type is a nullable column, however its init(from:) decodes it
        // (`if container.contains(.tail) { tail = try container.decode(...) }`).
        let optionalProperties = Set(fields.filter { $0.type is any ProbeOptional.Type }.map(\.name))
        let columns = probe.columns.map { probed in
            let name = columnName(forKey: probed.key)
            let isOptional =
                probed.isOptional || propertyForKey[probed.key].map(optionalProperties.contains) == true
            let (declaredType, isJSON) = TableSchema.storage(
                of: probed.type, dateStorage: dateStorages[name])
            return Column(
                name: name, key: probed.key, property: propertyForKey[probed.key], declaredType: declaredType,
                followsConnectionDateStorage: probed.type == Date.self && dateStorages[name] == nil,
                isOptional: isOptional, isJSON: isJSON, collation: collations[probed.key],
                defaultValue: defaults[probed.key], swiftTypeName: String(describing: probed.type))
        }
        let renamed = columns.filter { $0.name != $0.key }
        let keyToColumn =
            renamed.isEmpty
            ? nil : Dictionary(columns.map { ($0.key, $0.name) }, uniquingKeysWith: { a, _ in a })
        let propertyToColumn = Dictionary(
            columns.compactMap { column in column.property.map { ($0, column.name) } },
            uniquingKeysWith: { a, _ in a })
        let primaryKey: [String]
        if schema.primaryKey.isEmpty {
            primaryKey = keyForProperty["id"].map { [columnName(forKey: $0)] } ?? []
        } else {
            primaryKey = try schema.primaryKey.map {
                columnName(forKey: try reference($0, role: "primary key").key)
            }
        }
        let uniques = try schema.uniques.map { group in
            try group.map { columnName(forKey: try reference($0, role: "unique constraints").key) }
        }
        let indexes = try schema.indexes.map { group in
            try group.map { columnName(forKey: try reference($0, role: "indexes").key) }
        }
        let foreignKeys = try TableSchema.resolveForeignKeys(
            schema.foreignKeys, typeName: typeName, columns: columns
        ) { columnName(forKey: try reference($0, role: "foreign keys").key) }

        let rowIDKey: RowIDKey?
        if primaryKey.count == 1, let keyColumn = columns.first(where: { $0.name == primaryKey[0] }),
            let property = keyColumn.property, let field = fields.first(where: { $0.name == property })
        {
            let storage: RowIDKey.Storage? =
                switch field.type {
                case is Int64?.Type: .optionalInt64
                case is Int?.Type: .optionalInt
                case is Int64.Type: .int64
                case is Int.Type: .int
                default: nil
                }
            rowIDKey = storage.map { RowIDKey(column: keyColumn.name, offset: field.offset, storage: $0) }
        } else {
            rowIDKey = nil
        }
        self.fullTextIndex = try schema.fullTextSearchDeclaration.map { declaration in
            try FullTextIndex(
                declaration, table: tableName, typeName: typeName, rowIDColumn: rowIDKey?.column,
                columns: declaration.properties.map {
                    columnName(forKey: try reference($0, role: "full-text search").key)
                })
        }
        self.rowIDKey = rowIDKey
        self.typeName = typeName
        self.tableName = tableName
        self.columns = columns
        self.keyToColumn = keyToColumn
        self.propertyToColumn = propertyToColumn
        self.columnDateStorage = dateStorages
        var textDateRowDecoder = RowDecoder(dateStorage: .text, columnDateStorage: dateStorages)
        textDateRowDecoder.keyToColumn = keyToColumn
        self.textDateRowDecoder = textDateRowDecoder
        self.primaryKey = primaryKey
        self.uniques = uniques
        self.indexes = indexes
        self.foreignKeys = foreignKeys
        let statements = ModelStatements(
            table: tableName, columns: columns.map(\.name), primaryKey: primaryKey,
            uuidColumns: Set(
                probe.columns.filter { $0.type == UUID.self }.map { columnName(forKey: $0.key) }))
        self.statements = statements
        self.requiredKeyColumns =
            rowIDKey != nil
            ? []
            : primaryKey.compactMap { name in statements.columns.firstIndex(of: name).map { (name, $0) } }
    }

    /// Which property each coding key fills: by the marked placeholder values seen in the
    /// decoded instance, or by which property an alternate value changes, else by equal names,
    /// else by position when the counts agree.
    static func matchProperties(fields: [String], probe: SchemaProbe.Result) -> [String: String] {
        var keyForProperty: [String: String] = [:]
        let keys = probe.columns.map(\.key)
        if let instance = probe.instance, probe.profile == .marked {
            for child in Mirror(reflecting: instance).children {
                guard let label = child.label, let index = markerIndex(child.value),
                    keys.indices.contains(index)
                else { continue }
                keyForProperty[label] = keys[index]
            }
        }
        for (property, key) in probe.alternateMatches where keyForProperty[property] == nil {
            if !keyForProperty.values.contains(key) { keyForProperty[property] = key }
        }
        for field in fields where keyForProperty[field] == nil && keys.contains(field) {
            if !keyForProperty.values.contains(field) { keyForProperty[field] = field }
        }
        // A property wrapper's storage `_level` is encoded under the wrapped property's name.
        for field in fields where keyForProperty[field] == nil && field.hasPrefix("_") {
            let key = String(field.dropFirst())
            if keys.contains(key), !fields.contains(key), !keyForProperty.values.contains(key) {
                keyForProperty[field] = key
            }
        }
        if keyForProperty.count < keys.count && fields.count == keys.count {
            for (field, key) in zip(fields, keys) where keyForProperty[field] == nil {
                if !keyForProperty.values.contains(key) { keyForProperty[field] = key }
            }
        }
        return keyForProperty
    }

    private static func markerIndex(_ value: Any) -> Int? {
        switch value {
        case let text as String:
            guard text.hasPrefix("literecord.probe.") else { return nil }
            return Int(text.dropFirst("literecord.probe.".count))
        case let number as Int: return number >= 1_000_003 ? number - 1_000_003 : nil
        case let number as Int64: return number >= 1_000_003 ? Int(number - 1_000_003) : nil
        case let number as Double: return number >= 1_000_003 ? Int(number - 1_000_003) : nil
        default: return nil
        }
    }

    /// The type `column` is declared with where a connection storing dates as `dateStorage`
    /// creates it: a date column without a strategy of its own takes the connection's, so that
    /// SQLite's column affinity keeps the numbers a numeric strategy stores (a `TEXT` column
    /// turned them into text of 15 digits, losing a julian day's fraction of a second).
    func declaredType(of column: Column, dateStorage: DateStorage) -> DatabaseColumnType {
        column.followsConnectionDateStorage ? dateStorage.columnType : column.declaredType
    }

    /// The declared type of a column holding `type`, and whether it holds JSON.
    static func storage(of type: Any.Type, dateStorage: DateStorage?) -> (DatabaseColumnType, Bool) {
        if type == Date.self { return ((dateStorage ?? .text).columnType, false) }
        if let convertible = type as? any DatabaseValueConvertible.Type {
            return (convertible.databaseColumnType, false)
        }
        if let rawRepresentable = type as? any RawRepresentable.Type {
            return (rawValueStorage(rawRepresentable), false)
        }
        return (.text, true)
    }

    private static func rawValueStorage<R: RawRepresentable>(_ type: R.Type) -> DatabaseColumnType {
        (R.RawValue.self as? any DatabaseValueConvertible.Type)?.databaseColumnType ?? .text
    }

    /// The column for a property path's root, or an error naming the key path.
    func column(for path: PropertyPath, keyPathDescription: String) throws -> Column {
        guard let name = propertyToColumn[path.root], let column = columns.first(where: { $0.name == name })
        else {
            throw SchemaError(
                "\(keyPathDescription) is not a column of \(typeName): property \(path.root) is not encoded")
        }
        return column
    }

    /// The row encoder for this model.
    func rowEncoder(dateStorage: DateStorage) -> RowEncoder {
        var encoder = RowEncoder(dateStorage: dateStorage, columnDateStorage: columnDateStorage)
        encoder.keyToColumn = keyToColumn
        return encoder
    }

    /// The row decoder for this model.
    func rowDecoder(dateStorage: DateStorage) -> RowDecoder {
        if dateStorage == .text { return textDateRowDecoder }
        var decoder = RowDecoder(dateStorage: dateStorage, columnDateStorage: columnDateStorage)
        decoder.keyToColumn = keyToColumn
        return decoder
    }
}

/// The tables of every model type used so far, resolved once per type for the whole process.
enum TableSchemaCache {
    private static let lock = NSLock()
    nonisolated(unsafe) private static var schemas: [ObjectIdentifier: TableSchema] = [:]

    static func schema<M: Model>(for type: M.Type) throws -> TableSchema {
        let id = ObjectIdentifier(M.self)
        lock.lock()
        if let schema = schemas[id] {
            lock.unlock()
            return schema
        }
        lock.unlock()
        // Resolved outside the lock: probing runs user code (init(from:)).
        let schema = try TableSchema(resolving: M.self)
        lock.lock()
        defer { lock.unlock() }
        if let existing = schemas[id] { return existing }
        schemas[id] = schema
        return schema
    }
}
