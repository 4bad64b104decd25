import Foundation
import LiteRecord
import LiteRecordPostgres
import Testing

/// The root side of an eager load in a relation check: its condition, order and limit.
struct RootShape<M: Model> {
    var condition: ((Columns<M>) -> Condition)? = nil
    var order: ((Columns<M>) -> Ordering)? = nil
    var limit: Int? = nil
    var offset: Int? = nil
}

/// The relation operations the parity checks run (filters across relations, eager loading,
/// the foreign keys a created table has), on SQLite or PostgreSQL.
protocol RelationTestBackend: TestBackend {
    /// `query(M).where(Related.self [, via: key]) { condition }.fetchAll()`.
    func fetchAll<M: Model, R: Model>(
        _ type: M.Type, whose related: R.Type, via key: PartialKeyPath<M>?,
        _ condition: (Columns<R>) -> Condition
    ) throws -> [M]
    /// `query(M).where(any: Related.self [, via: key]) { condition }.fetchAll()`.
    func fetchAll<M: Model, R: Model>(
        _ type: M.Type, withAny related: R.Type, via key: PartialKeyPath<R>?,
        _ condition: (Columns<R>) -> Condition
    ) throws -> [M]
    /// `query(M).where(any: Related.self) { condition }.count()`.
    func count<M: Model, R: Model>(
        _ type: M.Type, withAny related: R.Type, _ condition: (Columns<R>) -> Condition
    ) throws -> Int
    /// `query(RelAuthor).where(any: RelBook.self) { condition }`: `updateAll` (renaming), `max`
    /// of the names, then `deleteAll`.
    func authorChanges(withAnyBook condition: (Columns<RelBook>) -> Condition) throws
        -> (updated: Int, maxName: String?, deleted: Int)
    /// `query(Root)...including(all: Target.self [, via: key]) { children }.fetchAll()`.
    func fetchAll<Root: Model, Target: Model>(
        _ root: RootShape<Root>, includingAll target: Target.Type, via key: PartialKeyPath<Target>?,
        _ children: (Query<Target>) -> Query<Target>
    ) throws -> [(Root, [Target])]
    /// `query(Root)...including(one: Target.self [, via: key]) { children }.fetchAll()`.
    func fetchAll<Root: Model, Target: Model>(
        _ root: RootShape<Root>, includingOne target: Target.Type, via key: PartialKeyPath<Root>?,
        _ children: (Query<Target>) -> Query<Target>
    ) throws -> [(Root, Target?)]
    /// `query(Root)...including(all: Target.self, through: Junction.self) { children }.fetchAll()`.
    func fetchAll<Root: Model, Target: Model, Junction: Model>(
        _ root: RootShape<Root>, includingAll target: Target.Type, through junction: Junction.Type,
        _ children: (Query<Target>) -> Query<Target>
    ) throws -> [(Root, [Target])]
    /// The foreign keys of a table: its columns (joined by `,`) and `ON DELETE` action, in
    /// SQLite's spelling (`CASCADE`, `SET NULL`, `RESTRICT`, `NO ACTION`), sorted.
    func foreignKeys(of table: String) throws -> [String]
    /// The column lists (joined by `,`) of a table's indexes, sorted.
    func indexedColumns(of table: String) throws -> [String]
}

/// The relation filters run the same source on both backends, on their own queries.
extension RelationTestBackend {
    func fetchAll<M: Model, R: Model>(
        _ type: M.Type, whose related: R.Type, via key: PartialKeyPath<M>?,
        _ condition: (Columns<R>) -> Condition
    ) throws -> [M] {
        let query = parityQuery(M.self)
        if let key { return try query.where(R.self, via: key, condition).fetchAll() }
        return try query.where(R.self, condition).fetchAll()
    }

    func fetchAll<M: Model, R: Model>(
        _ type: M.Type, withAny related: R.Type, via key: PartialKeyPath<R>?,
        _ condition: (Columns<R>) -> Condition
    ) throws -> [M] {
        let query = parityQuery(M.self)
        if let key { return try query.where(any: R.self, via: key, condition).fetchAll() }
        return try query.where(any: R.self, condition).fetchAll()
    }

    func count<M: Model, R: Model>(
        _ type: M.Type, withAny related: R.Type, _ condition: (Columns<R>) -> Condition
    ) throws -> Int {
        try parityQuery(M.self).where(any: R.self, condition).count()
    }

    func authorChanges(withAnyBook condition: (Columns<RelBook>) -> Condition) throws
        -> (updated: Int, maxName: String?, deleted: Int)
    {
        let query = parityQuery(RelAuthor.self).where(any: RelBook.self, condition)
        let updated = try query.updateAll { [$0.name.set(to: "renamed")] }
        let maxName = try query.max { $0.name }
        return (updated, maxName, try query.deleteAll())
    }
}

extension SQLiteBackend: RelationTestBackend {
    /// `query(M.self)` shaped as `shape` says, of this backend's own query type (each
    /// backend's `including` returns its own types).
    func rootQuery<M: Model>(_ shape: RootShape<M>) -> Query<M> { context.query(M.self).shaped(by: shape) }

    func fetchAll<Root: Model, Target: Model>(
        _ root: RootShape<Root>, includingAll target: Target.Type, via key: PartialKeyPath<Target>?,
        _ children: (Query<Target>) -> Query<Target>
    ) throws -> [(Root, [Target])] {
        if let key { return try rootQuery(root).including(all: Target.self, via: key, children).fetchAll() }
        return try rootQuery(root).including(all: Target.self, children).fetchAll()
    }

    func fetchAll<Root: Model, Target: Model>(
        _ root: RootShape<Root>, includingOne target: Target.Type, via key: PartialKeyPath<Root>?,
        _ children: (Query<Target>) -> Query<Target>
    ) throws -> [(Root, Target?)] {
        if let key { return try rootQuery(root).including(one: Target.self, via: key, children).fetchAll() }
        return try rootQuery(root).including(one: Target.self, children).fetchAll()
    }

    func fetchAll<Root: Model, Target: Model, Junction: Model>(
        _ root: RootShape<Root>, includingAll target: Target.Type, through junction: Junction.Type,
        _ children: (Query<Target>) -> Query<Target>
    ) throws -> [(Root, [Target])] {
        try rootQuery(root).including(all: Target.self, through: Junction.self, children).fetchAll()
    }

    func foreignKeys(of table: String) throws -> [String] {
        try context.fetchAll(
            String.self,
            sql: """
                SELECT group_concat("from", ',') || ' ' || on_delete FROM pragma_foreign_key_list(\(table))
                GROUP BY id ORDER BY 1
                """)
    }

    func indexedColumns(of table: String) throws -> [String] {
        try context.fetchAll(
            String.self,
            sql: """
                SELECT (SELECT group_concat(name, ',') FROM pragma_index_info(list.name)) AS columns
                FROM pragma_index_list(\(table)) AS list ORDER BY 1
                """)
    }
}

extension PostgresBackend: RelationTestBackend {
    /// `query(M.self)` shaped as `shape` says, as a query on PostgreSQL.
    func rootQuery<M: Model>(_ shape: RootShape<M>) -> Query<M> {
        context.query(M.self).shaped(by: shape)
    }

    func fetchAll<Root: Model, Target: Model>(
        _ root: RootShape<Root>, includingAll target: Target.Type, via key: PartialKeyPath<Target>?,
        _ children: (Query<Target>) -> Query<Target>
    ) throws -> [(Root, [Target])] {
        if let key { return try rootQuery(root).including(all: Target.self, via: key, children).fetchAll() }
        return try rootQuery(root).including(all: Target.self, children).fetchAll()
    }

    func fetchAll<Root: Model, Target: Model>(
        _ root: RootShape<Root>, includingOne target: Target.Type, via key: PartialKeyPath<Root>?,
        _ children: (Query<Target>) -> Query<Target>
    ) throws -> [(Root, Target?)] {
        if let key { return try rootQuery(root).including(one: Target.self, via: key, children).fetchAll() }
        return try rootQuery(root).including(one: Target.self, children).fetchAll()
    }

    func fetchAll<Root: Model, Target: Model, Junction: Model>(
        _ root: RootShape<Root>, includingAll target: Target.Type, through junction: Junction.Type,
        _ children: (Query<Target>) -> Query<Target>
    ) throws -> [(Root, [Target])] {
        try rootQuery(root).including(all: Target.self, through: Junction.self, children).fetchAll()
    }

    func foreignKeys(of table: String) throws -> [String] {
        try context.fetchAll(
            String.self,
            sql: """
                SELECT (SELECT string_agg(a.attname, ',' ORDER BY k.o) FROM unnest(c.conkey) WITH ORDINALITY AS k(n, o)
                        JOIN pg_attribute AS a ON a.attrelid = c.conrelid AND a.attnum = k.n)
                    || ' ' || CASE c.confdeltype WHEN 'c' THEN 'CASCADE' WHEN 'n' THEN 'SET NULL'
                        WHEN 'r' THEN 'RESTRICT' WHEN 'a' THEN 'NO ACTION' ELSE 'SET DEFAULT' END
                FROM pg_constraint AS c WHERE c.conrelid = CAST(quote_ident(\(table)) AS regclass) AND c.contype = 'f'
                ORDER BY 1
                """)
    }

    func indexedColumns(of table: String) throws -> [String] {
        try context.fetchAll(
            String.self,
            sql: """
                SELECT (SELECT string_agg(a.attname, ',' ORDER BY k.o) FROM unnest(i.indkey) WITH ORDINALITY AS k(n, o)
                        JOIN pg_attribute AS a ON a.attrelid = i.indrelid AND a.attnum = k.n)
                FROM pg_index AS i WHERE i.indrelid = CAST(quote_ident(\(table)) AS regclass) ORDER BY 1
                """)
    }
}
