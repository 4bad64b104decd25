import Foundation
import LiteRecord

/// PostgreSQL's SQL where it differs from SQLite's: every line of PostgreSQL text LiteRecord's
/// query language, schema and migrator write. A query built on PostgreSQL carries this dialect
/// (`PostgresQueryExecutor.dialect`), and so do the columns its closures receive.
package struct PostgresDialect: SQLDialect {
    package init() {}

    package var name: String { "PostgreSQL" }

    package var keywords: DialectKeywords {
        DialectKeywords(
            nullSafeEqual: "IS NOT DISTINCT FROM", nullSafeNotEqual: "IS DISTINCT FROM",
            falseCondition: "FALSE",
            unboundedLimit: "ALL")
    }
    /// NULL is the largest value. Columns hold what LiteRecord wrote in one form (see
    /// ``columnType(_:isJSON:isBoolean:)``). A DISTINCT query's sort terms must be among its
    /// selected columns, and a term stating its collation (or reading a JSON member) is none
    /// of `*`. Members are addressed by a bound array of keys, which names any key.
    package var behaviours: DialectBehaviours {
        [
            .sortsNullsLast, .comparesStoredFormsPlainly, .ordersDistinctRowsOutside, .namesDerivedTables,
            .jsonPathsNameAnyKey,
        ]
    }

    /// PostgreSQL: integers `bigint`, `Bool` `boolean`, floating point `double precision`,
    /// a declared `NUMERIC` `numeric`, bytes `bytea`, JSON values `jsonb`, text (dates stored as text
    /// included, which keeps their full precision) `text COLLATE "C"`, so that text compares by
    /// bytes as on SQLite, whatever the database's locale.
    package func columnType(_ declared: DatabaseColumnType, isJSON: Bool, isBoolean: Bool) -> String {
        if isJSON || declared == .json { return "jsonb" }
        if isBoolean { return "boolean" }
        switch declared {
        case .integer: return "bigint"
        case .real: return "double precision"
        case .blob: return "bytea"
        case .numeric: return "numeric"
        default: return "text COLLATE \"C\""
        }
    }

    /// Whether PostgreSQL stores a column of these types as text: only text takes a collation.
    func holdsText(_ declared: DatabaseColumnType, isJSON: Bool, isBoolean: Bool) -> Bool {
        columnType(declared, isJSON: isJSON, isBoolean: isBoolean).hasPrefix("text")
    }

    /// A text column under `COLLATE "C"` (see ``PostgresText/byBytes(_:)``): a column created
    /// by hand may have any collation. A `Decimal` column as `numeric`.
    package func columnExpression(_ column: TableSchema.Column) -> SQL {
        let name = SQL(SQL.quoteIdentifier(column.name))
        // A `Decimal` is stored as its exact text: compared as text, `10.5` would sort before
        // `9.5` and `sum` would not exist. `numeric` compares exactly, as Swift does (a
        // parameter compared with it is read as `numeric` too).
        if column.isDecimal { return "CAST(\(name) AS numeric)" }
        guard holdsText(column.declaredType, isJSON: column.isJSON, isBoolean: column.isBoolean) else {
            return name
        }
        return PostgresText.byBytes(name)
    }

    /// Read with `#>` and a bound path of keys, cast by the member type, text under
    /// `COLLATE "C"`.
    package func jsonMember(column: String, path: String, keys: [String], memberType: Any.Type) -> SQL {
        let base: SQL = "(\(SQL(SQL.quoteIdentifier(column))) #>> \(PostgresJSON.keyArray(keys))::text[])"
        switch PostgresJSON.comparisonKind(of: memberType) {
        case .number: return "(\(base)::numeric)"
        case .boolean: return "(\(base)::boolean)"
        // `#>>` gives text of the database's default collation: state byte order, as SQLite's
        // `->>` text compares.
        case .text: return PostgresText.byBytes(base)
        }
    }

    package func jsonCount<Value>(of column: Column<Value>, isObject: Bool) -> SQL {
        PostgresJSON.count(PostgresJSON.value(of: column), isObject: isObject)
    }

    package func jsonArray<Value, Element: Encodable>(
        _ column: Column<Value>, containing element: Element
    ) -> (SQL, (any Error)?) {
        PostgresJSON.contains(PostgresJSON.value(of: column), element: element)
    }

    package func jsonElements<Value>(of column: Column<Value>) -> SQL {
        "\(PostgresJSON.elements(PostgresJSON.value(of: column))) AS literecord_elements(value)"
    }

    /// The element is `jsonb`: it reads as the Swift type compares (its members, nested arrays
    /// and `contains` use the `jsonb` by its name).
    package func jsonElement(named name: String, type: Any.Type) -> SQL {
        jsonMember(column: name, path: "$", keys: [], memberType: type)
    }

    package func textPredicate(_ predicate: TextPredicate, column: SQL, value: DatabaseValue) -> SQL {
        PostgresText.predicate(predicate, column: column, value: value)
    }

    package func textFunction(_ function: QueryFunctions.Text, of column: SQL) throws -> SQL {
        try PostgresText.function(function, of: column)
    }

    package func arithmetic(
        _ function: QueryFunctions.Arithmetic, _ left: SQL, _ right: SQL?, number: Any.Type
    ) throws -> SQL {
        try PostgresArithmetic.expression(function, left, right, number: number)
    }

    /// PostgreSQL's own `sum` is exact (an integer sum is a `bigint` or a `numeric`); the
    /// result is checked against the Swift type by ``aggregateResult(_:function:resultType:)``.
    package func sum(_ expression: SQL, of type: Any.Type) -> SQL { "sum(\(expression))" }

    package func aggregateResult(_ aggregate: SQL, function: String, resultType: Any.Type) -> SQL {
        PostgresAggregates.result(aggregate, function: function, resultType: resultType)
    }

    package func extremumFunction(_ function: String, of type: Any.Type) -> String {
        PostgresAggregates.extremumFunction(function, of: type)
    }

    package func boundKeys(_ keys: [Int64]) throws -> String {
        try PostgresKeyList.keys(keys.map { [.integer($0)] })
    }

    package func boundKeys(_ keys: [RelationKey]) throws -> String {
        try PostgresKeyList.keys(keys.map(\.values))
    }

    package func keyMembership(
        _ columns: [SQL], keys: String, names: [String], in table: TableSchema, forms: [RelationKeyForm]
    ) -> SQL {
        PostgresKeyList.membership(columns, keys: keys, types: PostgresKeyList.types(of: names, in: table))
    }

    package func fullTextCondition<M: Model>(of query: Query<M>) -> SQL? {
        PostgresFullTextSearch.condition(of: query)
    }

    /// The search is a condition on the table's own column, in the WHERE.
    package func fullTextSource<M: Model>(of query: Query<M>, table: TableSchema) -> SQL {
        SQL(SQL.quoteIdentifier(table.tableName))
    }

    package func fullTextSelection<M: Model>(_ selection: SQL, of query: Query<M>, table: TableSchema) -> SQL
    {
        PostgresFullTextSearch.selection(selection, of: query, table: table)
    }

    package func fullTextRankOrder<M: Model>(of query: Query<M>, table: TableSchema, selection: SQL) -> SQL {
        PostgresFullTextSearch.rankOrder(of: query, table: table, selection: selection)
    }
}
