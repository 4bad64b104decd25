import LiteRecord

// The query types LiteRecordPostgres had before `pg.query` returned LiteRecord's own `Query`:
// each is now the same type as on SQLite. Kept for one release so that code naming them keeps
// compiling.

/// A query on PostgreSQL: LiteRecord's ``LiteRecord/Query``.
@available(*, deprecated, renamed: "Query", message: "pg.query returns LiteRecord's Query, as on SQLite")
public typealias PostgresQuery<M: Model> = Query<M>

/// A projection on PostgreSQL: LiteRecord's ``LiteRecord/Projection``.
@available(*, deprecated, renamed: "Projection", message: "the same type as on SQLite")
public typealias PostgresProjection<M: Model, T: Decodable> = Projection<M, T>

/// An eager load on PostgreSQL: LiteRecord's ``LiteRecord/QueryIncludingAll``.
@available(*, deprecated, renamed: "QueryIncludingAll", message: "the same type as on SQLite")
public typealias PostgresQueryIncludingAll<Root: Model, Target: Model> = QueryIncludingAll<Root, Target>

/// An eager load on PostgreSQL: LiteRecord's ``LiteRecord/QueryIncludingOne``.
@available(*, deprecated, renamed: "QueryIncludingOne", message: "the same type as on SQLite")
public typealias PostgresQueryIncludingOne<Root: Model, Target: Model> = QueryIncludingOne<Root, Target>

/// A nested eager load on PostgreSQL: LiteRecord's ``LiteRecord/QueryIncludingAllTree``.
@available(*, deprecated, renamed: "QueryIncludingAllTree", message: "the same type as on SQLite")
public typealias PostgresQueryIncludingAllTree<Root: Model, Children: IncludingQuery> =
    QueryIncludingAllTree<Root, Children>

/// A nested eager load on PostgreSQL: LiteRecord's ``LiteRecord/QueryIncludingOneTree``.
@available(*, deprecated, renamed: "QueryIncludingOneTree", message: "the same type as on SQLite")
public typealias PostgresQueryIncludingOneTree<Root: Model, Child: IncludingQuery> =
    QueryIncludingOneTree<Root, Child>

/// A query with related rows on PostgreSQL: LiteRecord's ``LiteRecord/IncludingQuery``.
@available(*, deprecated, renamed: "IncludingQuery", message: "the same protocol as on SQLite")
public typealias PostgresIncludingQuery = IncludingQuery
