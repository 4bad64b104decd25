import Foundation

/// The proxy a query closure receives: one ``Column`` per stored property, reached by key path.
///
/// `$0.score` is the `score` column; `$0.stats.wins` is the `wins` member of the JSON held by
/// the `stats` column. Nothing is evaluated in Swift: each operator builds SQL.
@dynamicMemberLookup
public struct Columns<M: Model> {
    let table: Result<TableSchema, any Error>
    let dateStorage: DateStorage
    /// The dialect of the query that made the proxy, which every column it gives carries.
    let dialectType: any SQLDialect.Type

    /// The column of a stored property.
    public subscript<Value>(dynamicMember keyPath: KeyPath<M, Value>) -> Column<Value> {
        do {
            let table = try table.get()
            let keyPathText = String(describing: keyPath)
            guard let path = PropertyPath.resolve(keyPath as PartialKeyPath<M>) else {
                throw SchemaError(
                    "\(keyPathText) is not a stored property of \(table.typeName), so it has no column")
            }
            let column = try table.column(for: path, keyPathDescription: keyPathText)
            let base = Column<Value>(
                sql: column.queryExpression(in: dialectType.init()), columnName: column.name,
                isNullable: column.isOptional,
                isJSON: column.isJSON, collation: column.collation,
                dateStorage: table.columnDateStorage[column.name] ?? dateStorage, jsonPath: nil, error: nil,
                dialectType: dialectType)
            guard path.names.count > 1 else { return base }
            let keys = try JSONMemberKeys.keys(
                along: path.names, from: M.self, skipping: 1, keyPathText: keyPathText)
            return try base.jsonMember(keys, keyPathText: keyPathText)
        } catch {
            return Column(failure: error, dialectType: dialectType)
        }
    }
}

/// A column, a value inside a JSON column, or an expression over them, typed by the Swift value
/// it holds, so that comparisons are checked by the compiler.
@dynamicMemberLookup
public struct Column<Value>: Sendable {
    /// The SQL expression (a quoted column name, a JSON extraction, arithmetic).
    package let sql: SQL
    /// The plain column this is, when it is one (updates can assign it).
    package let columnName: String?
    /// Whether the expression can be NULL (an optional property, a JSON member).
    let isNullable: Bool
    /// Whether the value is stored as JSON text (arrays, dictionaries, nested structs).
    package let isJSON: Bool
    let collation: Collation?
    let dateStorage: DateStorage
    /// The JSON column and path, for members of JSON values.
    package let jsonPath: (column: String, path: String)?
    /// A problem found while building the expression, thrown when the query runs.
    let error: (any Error)?
    /// The dialect of the query whose closure made the column (see ``Columns``): every
    /// operator builds its SQL in it, and so does every column derived from this one.
    let dialectType: any SQLDialect.Type

    init(
        sql: SQL, columnName: String?, isNullable: Bool, isJSON: Bool, collation: Collation?,
        dateStorage: DateStorage, jsonPath: (column: String, path: String)?, error: (any Error)?,
        dialectType: any SQLDialect.Type
    ) {
        self.sql = sql
        self.columnName = columnName
        self.isNullable = isNullable
        self.isJSON = isJSON
        self.collation = collation
        self.dateStorage = dateStorage
        self.jsonPath = jsonPath
        self.error = error
        self.dialectType = dialectType
    }

    init(failure: any Error, dialectType: any SQLDialect.Type) {
        self.init(
            sql: SQL("NULL"), columnName: nil, isNullable: true, isJSON: false, collation: nil,
            dateStorage: .text,
            jsonPath: nil, error: failure, dialectType: dialectType)
    }

    /// The dialect the column's operators write their SQL in.
    var dialect: any SQLDialect { dialectType.init() }

    /// A column that failed with `failure`, in this column's dialect.
    func failed<T>(_ failure: any Error) -> Column<T> {
        Column<T>(failure: failure, dialectType: dialectType)
    }

    /// An expression derived from this one (same error and dialect, no longer a plain column).
    func derived<T>(_ sql: SQL, isNullable: Bool? = nil, isJSON: Bool = false) -> Column<T> {
        Column<T>(
            sql: sql, columnName: nil, isNullable: isNullable ?? self.isNullable, isJSON: isJSON,
            collation: nil,
            dateStorage: dateStorage, jsonPath: nil, error: error, dialectType: dialectType)
    }

    /// A member of the JSON value held by this column: `$0.stats.wins`.
    public subscript<Member>(dynamicMember keyPath: KeyPath<Value, Member>) -> Column<Member> {
        if let error { return failed(error) }
        let keyPathText = String(describing: keyPath)
        guard let path = PropertyPath.resolve(keyPath as PartialKeyPath<Value>) else {
            return failed(
                SchemaError("\(keyPathText) is not a stored property, so it cannot be read from JSON"))
        }
        do {
            let keys = try JSONMemberKeys.keys(along: path.names, from: Value.self, keyPathText: keyPathText)
            return try jsonMember(keys, keyPathText: keyPathText)
        } catch {
            return failed(error)
        }
    }

    /// Extends a JSON path by member names (or reads a first member of a JSON column).
    func jsonMember<Member>(_ names: [String], keyPathText: String) throws -> Column<Member> {
        let (column, basePath): (String, String)
        if let jsonPath {
            (column, basePath) = jsonPath
        } else if let columnName, isJSON {
            (column, basePath) = (columnName, "$")
        } else {
            let place = columnName.map { "column \($0)" } ?? sql.text
            throw SchemaError(
                "\(keyPathText) reads inside \(place), whose value (\(Value.self)) is not stored as JSON; only "
                    + "arrays, dictionaries and nested structs are JSON columns")
        }
        let path = basePath + names.map { "." + JSONPathText.quote($0) }.joined()
        return Column<Member>(
            sql: dialect.jsonMember(
                column: column, path: path, keys: jsonKeys(base: basePath, adding: names),
                memberType: Member.self),
            columnName: nil, isNullable: true,
            isJSON: false, collation: nil, dateStorage: .text, jsonPath: (column, path), error: nil,
            dialectType: dialectType)
    }

    /// The member names of a JSON path: those of `base` (SQLite path text as ``JSONPathText``
    /// writes it, `$."a"."b"`) followed by `names`; other backends address members by them.
    package func jsonKeys(base: String, adding names: [String]) -> [String] {
        var keys: [String] = []
        var current = ""
        var inName = false
        var escaped = false
        for character in base {
            if !inName {
                if character == "\"" { inName = true }
                continue
            }
            if escaped {
                current.append(character)
                escaped = false
            } else if character == "\\" {
                escaped = true
            } else if character == "\"" {
                keys.append(current)
                current = ""
                inName = false
            } else {
                current.append(character)
            }
        }
        return keys + names
    }

    /// The stored form of a Swift value compared with this column.
    func storedValue(_ value: Value) -> (DatabaseValue, (any Error)?) where Value: Encodable {
        do {
            return (try StoredForm.databaseValue(value, dateStorage: dateStorage), nil)
        } catch {
            return (.null, error)
        }
    }
}

/// Converts a Swift value to what its column holds, with the same rules as the row encoder.
enum StoredForm {
    static func databaseValue<T: Encodable>(_ value: T, dateStorage: DateStorage) throws -> DatabaseValue {
        if let date = value as? Date { return try dateStorage.databaseValue(for: date) }
        if let convertible = value as? any DatabaseValueConvertible { return try convertible.databaseValue() }
        return try ColumnValueEncoding.encode(value)
    }
}

/// JSON path member names, quoted so any key works: `."my key"`.
enum JSONPathText {
    static func quote(_ name: String) -> String {
        "\"" + name.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
            + "\""
    }
}
