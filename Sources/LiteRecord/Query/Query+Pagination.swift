import Foundation

/// A sort term on a plain column, as keyset pagination needs it: which column, which way, where
/// its NULLs go, and how its values compare. Plain data (no closure), so an ``Ordering`` holding
/// it stays a value that can be sent anywhere.
struct OrderingKey {
    let columnName: String
    /// The column expression, for `IS NULL` tests.
    let sql: SQL
    let isDescending: Bool
    let nullsFirst: Bool
    let isJSON: Bool
    let collation: Collation?
    let dateStorage: DateStorage
    /// How the column's values compare (dates as instants, UUIDs as bytes, decimals by value).
    let comparison: StoredComparison
    /// The dialect of the query the sort term belongs to, which its cursor conditions are in.
    let dialectType: any SQLDialect.Type

    /// `column op value`, where `value` is the column's stored form (as the row encoder writes it),
    /// compared the way the column's values compare.
    func compare(_ op: String, _ value: DatabaseValue) -> Condition {
        switch comparison {
        case .date: column(Date.self).compare(op, cursorValue: value)
        case .uuid: column(UUID.self).compare(op, cursorValue: value)
        case .decimal: column(Decimal.self).compare(op, cursorValue: value)
        case .plain, .jsonMember: column(DatabaseValue.self).compare(op, cursorValue: value)
        }
    }

    /// The column again, typed so that it has this key's comparison rule.
    private func column<Value>(_ type: Value.Type) -> Column<Value> {
        Column(
            sql: sql, columnName: columnName, isNullable: true, isJSON: isJSON, collation: collation,
            dateStorage: dateStorage, jsonPath: nil, error: nil, dialectType: dialectType)
    }
}

extension Column {
    /// The keyset key of a sort term on this column, or `nil` when it is not a plain column (a
    /// JSON member, arithmetic, an aggregate): no cursor value can be read from a model for it.
    func orderingKey(descending: Bool, nulls: Ordering.Nulls?) -> OrderingKey? {
        guard let columnName, jsonPath == nil, error == nil else { return nil }
        return OrderingKey(
            columnName: columnName, sql: sql, isDescending: descending,
            // The default: where NULLs sort in the dialect (SQLite: they are the smallest values).
            nullsFirst: nulls.map { $0 == .first }
                ?? (dialect.sortsNullsFirst ? !descending : descending),
            isJSON: isJSON, collation: collation, dateStorage: dateStorage, comparison: storedComparison,
            dialectType: dialectType)
    }

    /// `column op value` for a cursor's stored value of this column.
    func compare(_ op: String, cursorValue value: DatabaseValue) -> Condition {
        // The cursor value as a column of the same kind, so the column-to-column comparison
        // funnel applies (literecord_instant for dates, literecord_uuid, the decimal collation).
        let cursor = Column(
            sql: "\(value)", columnName: columnName, isNullable: value.isNull, isJSON: isJSON,
            collation: nil, dateStorage: dateStorage, jsonPath: nil, error: nil, dialectType: dialectType)
        if let condition = storedValueCondition(op, cursor) { return condition }
        // A plain column compares with its own collation, as ORDER BY sorts it: a binary
        // comparison would disagree with a `COLLATE NOCASE` order and skip rows.
        return Condition("(\(sql) \(SQL(op)) \(value))", error: error)
    }
}

extension Ordering {
    /// Several sort keys, most significant first (the array form of `init(arrayLiteral:)`).
    init(combining elements: [Ordering]) {
        self.terms = elements.flatMap(\.terms)
        self.keys = elements.flatMap(\.keys)
        self.error = elements.lazy.compactMap(\.error).first
    }
}

extension Query {
    /// A negative limit or offset, which SQLite would read as "no limit" and "no offset".
    var boundsError: (any Error)? {
        if let limitCount, limitCount < 0 {
            return SchemaError("limit(\(limitCount)) is negative: a query returns at least 0 rows")
        }
        if let offsetCount, offsetCount < 0 {
            return SchemaError("offset(\(offsetCount)) is negative: a query skips at least 0 rows")
        }
        return nil
    }

    /// One page of the results, after the last model of the previous page: keyset pagination,
    /// which reads no skipped rows and stays right while rows are inserted or deleted.
    ///
    /// Pages follow the query's sort keys, then the primary key (added as a final sort key so
    /// that ties have one order). Rows are compared with the values of `cursor` itself, not with
    /// its row, so a page can follow a model whose row was deleted since. Call it last (after
    /// `order`, which replaces the sort keys); `limit` and `offset` set before are replaced.
    ///
    /// ```swift
    /// var page = try db.query(Post.self).order { $0.date.descending }.page(after: nil, limit: 50).fetchAll()
    /// page = try db.query(Post.self).order { $0.date.descending }.page(after: page.last, limit: 50).fetchAll()
    /// ```
    ///
    /// - Parameters:
    ///   - cursor: The last model of the previous page, or `nil` for the first page.
    ///   - limit: The page size (not negative).
    /// - Returns: The query for the page.
    /// - Throws: Nothing here; running the query throws ``SchemaError`` when a sort key is not a
    ///   plain column of the model (an expression, a JSON member) or the model has no primary
    ///   key, and when `limit` is negative.
    public func page(after cursor: M?, limit: Int) -> Query {
        var copy = self
        copy.limitCount = limit
        copy.offsetCount = nil
        // A sort key's own error is thrown first, by the query.
        guard orderings.allSatisfy({ $0.error == nil }) else { return copy }
        do {
            let table = try TableSchemaCache.schema(for: M.self)
            var keys = try cursorKeys()
            let keyOrdering = try primaryKeyOrdering(table)
            keys += keyOrdering.keys.compactMap { $0 }
            copy.orderings.append(keyOrdering)
            if let cursor {
                let row = try table.rowEncoder(dateStorage: dateStorage).encode(cursor)
                copy.conditions.append(Self.after(cursorValues: row, keys: keys, dialect: dialect))
            }
        } catch {
            copy.conditions.append(Condition(SQL(dialect.falseCondition), error: error))
        }
        return copy
    }

    /// The keys of the query's own sort terms, each a plain column.
    private func cursorKeys() throws -> [OrderingKey] {
        try orderings.flatMap { ordering in
            try zip(ordering.terms, ordering.keys).map { term, key in
                guard let key else {
                    throw SchemaError(
                        "page(after:limit:) cannot page by \(term.text): a page follows its cursor by the "
                            + "values of the sort keys, which must be columns of \(M.self) (not expressions, "
                            + "JSON members or aggregates)")
                }
                return key
            }
        }
    }

    /// The primary key columns, ascending: the final sort key, which makes every row's place
    /// unique.
    private func primaryKeyOrdering(_ table: TableSchema) throws -> Ordering {
        guard !table.primaryKey.isEmpty else {
            throw SchemaError(
                "page(after:limit:) needs a primary key to order rows with equal sort keys, and "
                    + "\(table.typeName) has none: declare one in its schema (primaryKey:)")
        }
        let orderings = table.primaryKey.enumerated().map { index, name in
            let column = table.columns.first { $0.name == name }
            let isUUID =
                table.statements.uuidKeyColumns.indices.contains(index)
                && table.statements.uuidKeyColumns[index]
            // The key's Swift type decides how it compares (the schema keeps its name only).
            switch column?.swiftTypeName {
            case _ where isUUID: return keyColumn(UUID.self, name, column, table).ascending
            case "Date": return keyColumn(Date.self, name, column, table).ascending
            case "Decimal": return keyColumn(Decimal.self, name, column, table).ascending
            default: return keyColumn(DatabaseValue.self, name, column, table).ascending
            }
        }
        return Ordering(combining: orderings)
    }

    private func keyColumn<Value>(
        _ type: Value.Type, _ name: String, _ column: TableSchema.Column?, _ table: TableSchema
    ) -> Column<Value> {
        Column(
            sql: column?.queryExpression(in: dialect) ?? SQL(SQL.quoteIdentifier(name)), columnName: name,
            isNullable: column?.isOptional ?? true,
            isJSON: false, collation: column?.collation,
            dateStorage: table.columnDateStorage[name] ?? dateStorage, jsonPath: nil, error: nil,
            dialectType: dialectType)
    }

    /// The rows that come after the cursor in the sort order: after on the first key, or equal on
    /// it and after on the rest (NULL-safe, with each key's direction and NULL placement), in the
    /// query's dialect.
    private static func after(
        cursorValues row: EncodedRow, keys: [OrderingKey], dialect: any SQLDialect
    ) -> Condition {
        var rest: Condition?  // nil: false (nothing comes after the cursor on no more keys)
        for key in keys.reversed() {
            // A column the encoder left out (a nil optional) holds NULL.
            let value = row.columns.firstIndex(of: key.columnName).map { row.values[$0] } ?? .null
            let same =
                value.isNull
                ? Condition("(\(key.sql) IS NULL)") : key.compare(dialect.nullSafeEqual, value)
            let after: Condition?
            if value.isNull {
                after = key.nullsFirst ? Condition("(\(key.sql) IS NOT NULL)") : nil
            } else {
                let greater = key.compare(key.isDescending ? "<" : ">", value)
                after = key.nullsFirst ? greater : greater || Condition("(\(key.sql) IS NULL)")
            }
            let tail = rest.map { same && $0 }
            switch (after, tail) {
            case (let after?, let tail?): rest = after || tail
            case (let after?, nil): rest = after
            case (nil, let tail?): rest = tail
            case (nil, nil): rest = nil
            }
        }
        return rest ?? Condition(SQL(dialect.falseCondition))
    }
}
