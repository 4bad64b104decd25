import Foundation
import LiteRecord

// Eager loading on PostgreSQL: the same relation resolution and SQL as LiteRecord's
// `Query.including`, built in PostgreSQL's dialect; see PostgresQueryIncluding.swift.

extension PostgresQuery {
    /// Fetches each model with all the rows of another model related to it by a foreign key:
    /// an author with their books.
    ///
    /// ```swift
    /// let shelves = try pg.query(Author.self).including(all: Book.self) { $0.order { $0.year } }.fetchAll()
    /// ```
    ///
    /// - Parameters:
    ///   - target: The related model.
    ///   - children: Narrows (`where`) and sorts (`order`) the related rows; every row by default.
    /// - Returns: A query of `[(M, [Target])]`; nothing runs until it is fetched.
    public func including<Target: Model>(
        all target: Target.Type, _ children: (Query<Target>) -> Query<Target> = { $0 }
    ) -> PostgresQueryIncludingAll<M, Target> {
        eagerLoad(reading: [Target.self]) { $0.including(all: Target.self, children) }
    }

    /// Fetches each model with all the rows of another model whose foreign key `key` references
    /// it: a manager with the employees reporting to them.
    ///
    /// - Parameters:
    ///   - target: The related model.
    ///   - key: The target's foreign key property: `\.reportsTo`.
    ///   - children: Narrows (`where`) and sorts (`order`) the related rows.
    /// - Returns: A query of `[(M, [Target])]`.
    public func including<Target: Model>(
        all target: Target.Type, via key: PartialKeyPath<Target>,
        _ children: (Query<Target>) -> Query<Target> = { $0 }
    ) -> PostgresQueryIncludingAll<M, Target> {
        eagerLoad(reading: [Target.self]) { $0.including(all: Target.self, via: key, children) }
    }

    /// Fetches each model with all the rows of another model related through a junction model
    /// that has a foreign key to each (many-to-many): a playlist with its tracks.
    ///
    /// - Parameters:
    ///   - target: The related model.
    ///   - junction: The model whose rows pair the two: `PlaylistTrack.self`.
    ///   - children: Narrows (`where`) and sorts (`order`) the related rows.
    /// - Returns: A query of `[(M, [Target])]`; a target paired twice with a root comes twice.
    public func including<Target: Model, Junction: Model>(
        all target: Target.Type, through junction: Junction.Type,
        _ children: (Query<Target>) -> Query<Target> = { $0 }
    ) -> PostgresQueryIncludingAll<M, Target> {
        eagerLoad(reading: [Junction.self, Target.self]) {
            $0.including(all: Target.self, through: Junction.self, children)
        }
    }

    /// Fetches each model with all the rows of another model related through a junction model,
    /// naming the junction's two foreign keys (a junction with two keys to one table).
    ///
    /// - Parameters:
    ///   - target: The related model.
    ///   - junction: The model whose rows pair the two.
    ///   - rootKey: The junction's foreign key to this query's model: `\.userID`.
    ///   - targetKey: The junction's foreign key to `target`: `\.friendID`.
    ///   - children: Narrows (`where`) and sorts (`order`) the related rows.
    /// - Returns: A query of `[(M, [Target])]`.
    public func including<Target: Model, Junction: Model>(
        all target: Target.Type, through junction: Junction.Type, via rootKey: PartialKeyPath<Junction>,
        to targetKey: PartialKeyPath<Junction>, _ children: (Query<Target>) -> Query<Target> = { $0 }
    ) -> PostgresQueryIncludingAll<M, Target> {
        eagerLoad(reading: [Junction.self, Target.self]) {
            $0.including(all: Target.self, through: Junction.self, via: rootKey, to: targetKey, children)
        }
    }

    /// Fetches each model with the one row of another model it references (or that references
    /// it), or `nil`: a book with its author.
    ///
    /// - Parameters:
    ///   - target: The related model.
    ///   - children: Narrows (`where`) the related row: one that does not match is `nil`.
    /// - Returns: A query of `[(M, Target?)]`.
    public func including<Target: Model>(
        one target: Target.Type, _ children: (Query<Target>) -> Query<Target> = { $0 }
    ) -> PostgresQueryIncludingOne<M, Target> {
        PostgresQueryIncludingOne(
            all: eagerLoad(reading: [Target.self]) { $0.including(one: Target.self, children).backendAll })
    }

    /// Fetches each model with the row of another model its foreign key `key` references, or
    /// `nil`: an employee with their manager.
    ///
    /// - Parameters:
    ///   - target: The related model.
    ///   - key: This model's foreign key property: `\.reportsTo`.
    ///   - children: Narrows (`where`) the related row.
    /// - Returns: A query of `[(M, Target?)]`.
    public func including<Target: Model>(
        one target: Target.Type, via key: PartialKeyPath<M>,
        _ children: (Query<Target>) -> Query<Target> = { $0 }
    ) -> PostgresQueryIncludingOne<M, Target> {
        PostgresQueryIncludingOne(
            all: eagerLoad(reading: [Target.self]) {
                $0.including(one: Target.self, via: key, children).backendAll
            })
    }

    /// LiteRecord's eager load of this query, its closures run in PostgreSQL's dialect.
    private func eagerLoad<Target: Model>(
        reading types: [any Model.Type], _ make: (Query<M>) -> QueryIncludingAll<M, Target>
    ) -> PostgresQueryIncludingAll<M, Target> {
        PostgresQueryIncludingAll(
            target: target, load: SQLDialect.$current.withValue(.postgres) { make(query) },
            tables: relatedTypes + types)
    }
}
