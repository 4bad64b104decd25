extension Query {
    /// Keeps the rows whose related row of another model (the one its foreign key references,
    /// or the one that references it) satisfies a condition: books by Tolkien.
    ///
    /// ```swift
    /// let byTolkien = try db.query(Book.self).where(Author.self) { $0.name == "Tolkien" }.fetchAll()
    /// ```
    ///
    /// A row whose key is NULL, or matches no row, is not kept. It reads as the same filter in
    /// Swift on the decoded models: `books.filter { book in authors.contains { $0.id == book.authorID && ... } }`.
    ///
    /// - Parameters:
    ///   - related: The related model, holding the foreign key or referenced by it.
    ///   - condition: The condition on the related row's columns.
    /// - Returns: The narrowed query.
    public func `where`<Related: Model>(_ related: Related.Type, _ condition: (Columns<Related>) -> Condition)
        -> Query
    {
        relatedFilter(
            Related.self, preferring: .rootIsChild, via: nil, condition, usage: "where(\(Related.self).self)")
    }

    /// Keeps the rows whose row of another model, referenced by this model's foreign key `key`,
    /// satisfies a condition: employees whose manager is in Calgary.
    ///
    /// - Parameters:
    ///   - related: The referenced model.
    ///   - key: This model's foreign key property: `\.reportsTo`.
    ///   - condition: The condition on the related row's columns.
    /// - Returns: The narrowed query.
    public func `where`<Related: Model>(
        _ related: Related.Type, via key: PartialKeyPath<M>, _ condition: (Columns<Related>) -> Condition
    ) -> Query {
        relatedFilter(
            Related.self, preferring: .rootIsChild, via: PropertyReference(key), condition,
            usage: "where(\(Related.self).self, via:)")
    }

    /// Keeps the rows with at least one related row of another model that satisfies a
    /// condition: authors with a book written before 1950.
    ///
    /// ```swift
    /// let early = try db.query(Author.self).where(any: Book.self) { $0.year < 1950 }.count()
    /// ```
    ///
    /// - Parameters:
    ///   - related: The related model, usually the one holding the foreign key.
    ///   - condition: The condition on the related rows' columns.
    /// - Returns: The narrowed query.
    public func `where`<Related: Model>(
        any related: Related.Type, _ condition: (Columns<Related>) -> Condition
    )
        -> Query
    {
        relatedFilter(
            Related.self, preferring: .rootIsParent, via: nil, condition,
            usage: "where(any: \(Related.self).self)")
    }

    /// Keeps the rows with at least one row of another model, whose foreign key `key`
    /// references them, that satisfies a condition: managers of someone hired this year.
    ///
    /// - Parameters:
    ///   - related: The model holding the foreign key.
    ///   - key: Its foreign key property: `\.reportsTo`.
    ///   - condition: The condition on the related rows' columns.
    /// - Returns: The narrowed query.
    public func `where`<Related: Model>(
        any related: Related.Type, via key: PartialKeyPath<Related>,
        _ condition: (Columns<Related>) -> Condition
    ) -> Query {
        relatedFilter(
            Related.self, preferring: .rootIsParent, via: PropertyReference(key), condition,
            usage: "where(any: \(Related.self).self, via:)")
    }

    /// `EXISTS (SELECT 1 FROM related AS r WHERE r.key = root.key AND condition)`, the keys
    /// compared as values (``RelationKeyForm``): the related
    /// table gets an alias, so that a model related to itself tells its two rows apart, and
    /// the condition's unqualified columns are the related table's (SQLite resolves a name in
    /// the innermost query first).
    private func relatedFilter<Related: Model>(
        _ related: Related.Type, preferring preference: Relation.Preference, via: PropertyReference?,
        _ condition: (Columns<Related>) -> Condition, usage: String
    ) -> Query {
        // The related model's columns are in this query's dialect: the filter is part of it.
        let inner = condition(
            Columns(
                table: Result { try TableSchemaCache.schema(for: Related.self) }, dateStorage: dateStorage,
                dialectType: dialectType))
        var copy = self
        do {
            var relation = try Relation.resolve(
                M.self, Related.self, preferring: preference, via: via, usage: usage)
            relation.dateStorage = dateStorage
            let alias = SQL(SQL.quoteIdentifier("literecord_related"))
            let root = SQL(SQL.quoteIdentifier(relation.root.tableName))
            // Keys compare as values, as `where` compares them: a UUID in any spelling.
            let sql = relation.exists(
                target: alias, root: root, targetTable: SQL(SQL.quoteIdentifier(relation.target.tableName)),
                where: inner.sql, in: dialect)
            copy.conditions.append(Condition(sql, error: inner.error))
            copy.relatedTables.append(RelatedModelTable(Related.self))
        } catch {
            copy.conditions.append(Condition(SQL("0"), error: error))
        }
        return copy
    }
}
