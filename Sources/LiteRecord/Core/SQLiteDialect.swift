import Foundation

/// SQLite's SQL, which LiteRecord has always written: the dialect of every query that runs on
/// a ``Database``, and the dialect of SQL built with no query to say otherwise (a `Condition`
/// made outside a query's closure, a test's expression).
package struct SQLiteDialect: SQLDialect {
    package init() {}

    package var name: String { "SQLite" }

    package var keywords: DialectKeywords {
        DialectKeywords(
            nullSafeEqual: "IS", nullSafeNotEqual: "IS NOT", falseCondition: "0", unboundedLimit: "-1")
    }
    /// SQLite's type affinity lets a column hold a date as text, a real or an integer, a UUID
    /// as text of either case or 16 bytes: values compare through their meaning, and the rest
    /// of LiteRecord's SQL was written for SQLite in the first place.
    package var behaviours: DialectBehaviours { [] }

    package func columnType(_ declared: DatabaseColumnType, isJSON: Bool, isBoolean: Bool) -> String {
        declared.rawValue
    }

    package func columnExpression(_ column: TableSchema.Column) -> SQL {
        SQL(SQL.quoteIdentifier(column.name))
    }

    package func jsonMember(column: String, path: String, keys: [String], memberType: Any.Type) -> SQL {
        "(\(SQL(SQL.quoteIdentifier(column))) ->> \(path))"
    }

    package func jsonCount<Value>(of column: Column<Value>, isObject: Bool) -> SQL {
        let source: SQL =
            column.jsonPath.map { "\(SQL(SQL.quoteIdentifier($0.column))), \($0.path)" } ?? column.sql
        // A dictionary is a JSON object, whose json_array_length() is 0: count its keys.
        if isObject { return "(SELECT count(*) FROM json_each(\(source)))" }
        return "coalesce(json_array_length(\(source)), 0)"
    }

    package func jsonArray<Value, Element: Encodable>(
        _ column: Column<Value>, containing element: Element
    ) -> (SQL, (any Error)?) {
        // The element in the form the JSON array holds it (see JSONMemberForm).
        let (stored, conversionError) = JSONMemberForm.sql(element)
        // `IS`, so that an array of optionals contains `nil` (a JSON null reads as NULL).
        return (
            "EXISTS (SELECT 1 FROM \(jsonElements(of: column)) WHERE value IS \(stored))", conversionError
        )
    }

    package func jsonElements<Value>(of column: Column<Value>) -> SQL {
        if let jsonPath = column.jsonPath {
            return "json_each(\(SQL(SQL.quoteIdentifier(jsonPath.column))), \(jsonPath.path))"
        }
        return "json_each(\(column.sql))"
    }

    package func jsonElement(named name: String, type: Any.Type) -> SQL { SQL(SQL.quoteIdentifier(name)) }

    package func textPredicate(_ predicate: TextPredicate, column: SQL, value: DatabaseValue) -> SQL {
        switch predicate {
        // The bytes first, then Swift's answer on the rows whose bytes match (SwiftTextMatch):
        // `"👍🏽"` starts with the bytes of `"👍"`, not with its character.
        case .hasPrefix:
            // substr() of an empty blob is NULL, not an empty blob.
            "coalesce(substr(CAST(\(column) AS BLOB), 1, length(CAST(\(value) AS BLOB))), x'') = CAST(\(value) AS BLOB) AND \(swift(.hasPrefix, column, value))"
        case .hasSuffix:
            "coalesce(substr(CAST(\(column) AS BLOB), -length(CAST(\(value) AS BLOB))), x'') = CAST(\(value) AS BLOB) AND \(swift(.hasSuffix, column, value))"
        case .contains:
            "instr(CAST(\(column) AS BLOB), CAST(\(value) AS BLOB)) > 0 AND \(swift(.contains, column, value))"
        case .caseInsensitiveHasPrefix:
            // Bytes, not characters: text functions stop at a NUL character; lower() keeps lengths.
            "coalesce(substr(CAST(lower(\(column)) AS BLOB), 1, length(CAST(\(value) AS BLOB))), x'') = CAST(lower(\(value)) AS BLOB)"
        case .caseInsensitiveHasSuffix:
            "coalesce(substr(CAST(lower(\(column)) AS BLOB), -length(CAST(\(value) AS BLOB))), x'') = CAST(lower(\(value)) AS BLOB)"
        case .caseInsensitiveContains:
            "instr(lower(\(column)), lower(\(value))) > 0"
        case .caseInsensitiveEquals:
            // NOCASE, so that an index of a `COLLATE NOCASE` column finds the rows.
            "\(column) COLLATE NOCASE = \(value)"
        }
    }

    /// Swift's answer to a text match, by the function every connection registers.
    private func swift(_ match: SwiftTextMatch, _ column: SQL, _ value: DatabaseValue) -> SQL {
        "\(SQL(match.functionName))(\(column), \(value))"
    }

    /// The function LiteRecord registers on every connection (see `QueryFunctions`).
    package func textFunction(_ function: QueryFunctions.Text, of column: SQL) throws -> SQL {
        "\(SQL(function.name))(\(column))"
    }

    package func arithmetic(
        _ function: QueryFunctions.Arithmetic, _ left: SQL, _ right: SQL?, number: Any.Type
    ) throws -> SQL {
        guard let right else {
            if number is any BinaryInteger.Type {
                return fitting("\(SQL(QueryFunctions.Arithmetic.negate.name))(\(left))", number)
            }
            guard number is any BinaryFloatingPoint.Type else {
                throw ArithmeticExpression.unsupported(number)
            }
            return "(- \(left))"
        }
        if number is any BinaryInteger.Type {
            // Checked: SQLite itself turns an overflowing integer into an inexact REAL.
            return fitting("\(SQL(function.name))(\(left), \(right))", number)
        }
        guard number is any BinaryFloatingPoint.Type else { throw ArithmeticExpression.unsupported(number) }
        switch function {
        case .divide, .remainder:
            // As REAL: a whole number inside JSON may read as an integer, and SQLite's `/` of
            // two integers truncates.
            return "\(SQL(function.name))(CAST(\(left) AS REAL), \(right))"
        case .add, .subtract, .multiply, .negate:
            return "(\(left) \(SQL(function.symbol)) \(right))"
        }
    }

    /// An integer expression checked against the range of a narrower Swift type (`UInt8`,
    /// `Int32`, `UInt`'s lack of negatives), where Swift would trap and the column could no
    /// longer be read.
    private func fitting(_ sql: SQL, _ number: Any.Type) -> SQL {
        guard let integer = number as? any FixedWidthInteger.Type, let (low, high) = Self.bounds(of: integer)
        else {
            return sql
        }
        let (lowValue, highValue) = (DatabaseValue.integer(low), DatabaseValue.integer(high))
        return "\(SQL(QueryFunctions.integerInRange))(\(sql), \(lowValue), \(highValue))"
    }

    private static func bounds<T: FixedWidthInteger>(of type: T.Type) -> (Int64, Int64)? {
        let (low, high) = (Int64(clamping: T.min), Int64(clamping: T.max))
        return low == .min && high == .max ? nil : (low, high)
    }

    /// SQLite's own values already decode as the Swift type.
    package func aggregateResult(_ aggregate: SQL, function: String, resultType: Any.Type) -> SQL {
        aggregate
    }

    package func extremumFunction(_ function: String, of type: Any.Type) -> String { function }

    /// Integers through `literecord_sum` (``IntegerSum``), then checked against a narrower
    /// type's range; SQLite's own `sum` fails when a partial sum overflows.
    package func sum(_ expression: SQL, of type: Any.Type) -> SQL {
        let type = (type as? any OptionalWrapper.Type)?.wrappedType ?? type
        guard type is any BinaryInteger.Type else { return "sum(\(expression))" }
        return fitting("\(SQL(IntegerSum.name))(\(expression))", type)
    }

    package func boundKeys(_ keys: [Int64]) throws -> String { KeyList.json(keys) }

    package func boundKeys(_ keys: [RelationKey]) throws -> String { try KeyList.json(keys) }

    package func keyMembership(
        _ columns: [SQL], keys: String, names: [String], in table: TableSchema, forms: [RelationKeyForm]
    ) -> SQL {
        KeyList.membership(columns, keys: keys, forms: forms)
    }

    /// FTS5 searches its own table, joined in the FROM.
    package func fullTextCondition<M: Model>(of query: Query<M>) -> SQL? { nil }

    package func fullTextSource<M: Model>(of query: Query<M>, table: TableSchema) -> SQL {
        query.fts5Source(table)
    }

    package func fullTextSelection<M: Model>(_ selection: SQL, of query: Query<M>, table: TableSchema) -> SQL
    {
        query.fts5Selection(selection, table: table)
    }

    package func fullTextRankOrder<M: Model>(of query: Query<M>, table: TableSchema, selection: SQL) -> SQL {
        query.fts5RankOrder(table)
    }
}
