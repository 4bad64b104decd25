import Foundation
import LiteRecord

// `including` whose children closure itself includes related rows, on PostgreSQL: LiteRecord's
// own tree (Query+IncludingTree.swift), built in PostgreSQL's dialect. A closure returning a
// plain `Query` picks the one-level form (PostgresQuery+Including.swift).

extension PostgresQuery {
    /// Fetches each model with all its related rows of another model, each of those with its
    /// own related rows: authors with their books, each book with its reviews.
    ///
    /// ```swift
    /// let tree = try pg.query(Author.self)
    ///     .including(all: Book.self) { $0.order { $0.year }.including(all: Review.self) }
    ///     .fetchAll()   // [(Author, [(Book, [Review])])]
    /// ```
    ///
    /// - Parameters:
    ///   - target: The related model.
    ///   - children: Narrows (`where`), sorts (`order`) and includes the related rows of
    ///     `target` (`including`, to any depth).
    /// - Returns: A query of `[(M, [Children.Element])]`; nothing runs until it is fetched.
    public func including<Target: Model, Children: IncludingQuery>(
        all target: Target.Type, _ children: (Query<Target>) -> Children
    ) -> PostgresQueryIncludingAllTree<M, Children> where Children.Root == Target {
        allTree { $0.including(all: Target.self, children) }
    }

    /// Fetches each model with all the rows of another model whose foreign key `key`
    /// references it, each of those with its own related rows.
    ///
    /// - Parameters:
    ///   - target: The related model.
    ///   - key: The target's foreign key property: `\.reportsTo`.
    ///   - children: Narrows, sorts and includes the related rows.
    /// - Returns: A query of `[(M, [Children.Element])]`.
    public func including<Target: Model, Children: IncludingQuery>(
        all target: Target.Type, via key: PartialKeyPath<Target>, _ children: (Query<Target>) -> Children
    ) -> PostgresQueryIncludingAllTree<M, Children> where Children.Root == Target {
        allTree { $0.including(all: Target.self, via: key, children) }
    }

    /// Fetches each model with all the rows of another model related through a junction
    /// model, each of those with its own related rows: playlists with their tracks, each track
    /// with its album.
    ///
    /// - Parameters:
    ///   - target: The related model.
    ///   - junction: The model whose rows pair the two: `PlaylistTrack.self`.
    ///   - children: Narrows, sorts and includes the related rows.
    /// - Returns: A query of `[(M, [Children.Element])]`.
    public func including<Target: Model, Junction: Model, Children: IncludingQuery>(
        all target: Target.Type, through junction: Junction.Type, _ children: (Query<Target>) -> Children
    ) -> PostgresQueryIncludingAllTree<M, Children> where Children.Root == Target {
        allTree { $0.including(all: Target.self, through: Junction.self, children) }
    }

    /// Fetches each model with the one row of another model it references (or that references
    /// it), or `nil`, that row with its own related rows: a track with its album, the album with
    /// its artist.
    ///
    /// - Parameters:
    ///   - target: The related model.
    ///   - child: Narrows (`where`) and includes the related row (`including`, to any depth).
    /// - Returns: A query of `[(M, Child.Element?)]`.
    public func including<Target: Model, Child: IncludingQuery>(
        one target: Target.Type, _ child: (Query<Target>) -> Child
    ) -> PostgresQueryIncludingOneTree<M, Child> where Child.Root == Target {
        oneTree { $0.including(one: Target.self, child) }
    }

    /// Fetches each model with the row of another model its foreign key `key` references, or
    /// `nil`, that row with its own related rows.
    ///
    /// - Parameters:
    ///   - target: The related model.
    ///   - key: This model's foreign key property: `\.reportsTo`.
    ///   - child: Narrows and includes the related row.
    /// - Returns: A query of `[(M, Child.Element?)]`.
    public func including<Target: Model, Child: IncludingQuery>(
        one target: Target.Type, via key: PartialKeyPath<M>, _ child: (Query<Target>) -> Child
    ) -> PostgresQueryIncludingOneTree<M, Child> where Child.Root == Target {
        oneTree { $0.including(one: Target.self, via: key, child) }
    }

    /// LiteRecord's tree of this query, its closures run in PostgreSQL's dialect.
    private func allTree<Children: IncludingQuery>(
        _ make: (Query<M>) -> QueryIncludingAllTree<M, Children>
    ) -> PostgresQueryIncludingAllTree<M, Children> {
        PostgresQueryIncludingAllTree(
            target: target, load: SQLDialect.$current.withValue(.postgres) { make(query) },
            tables: relatedTypes)
    }

    private func oneTree<Child: IncludingQuery>(
        _ make: (Query<M>) -> QueryIncludingOneTree<M, Child>
    ) -> PostgresQueryIncludingOneTree<M, Child> {
        PostgresQueryIncludingOneTree(
            target: target, load: SQLDialect.$current.withValue(.postgres) { make(query) },
            tables: relatedTypes)
    }
}
