// `including` whose children closure itself includes related rows: a tree of any depth.
// Each overload takes the relation from the plain form of the same call, so the two resolve
// relations alike; a closure returning a plain `Query` picks the plain form.

extension Query {
    /// Fetches each model with all its related rows of another model, each of those with its
    /// own related rows: authors with their books, each book with its reviews.
    ///
    /// ```swift
    /// let tree = try db.query(Author.self)
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
    ) -> QueryIncludingAllTree<M, Children> where Children.Root == Target {
        QueryIncludingAllTree(
            root: self, children: children(Query<Target>(sameTargetAs: self)),
            load: including(all: Target.self).load)
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
    ) -> QueryIncludingAllTree<M, Children> where Children.Root == Target {
        QueryIncludingAllTree(
            root: self, children: children(Query<Target>(sameTargetAs: self)),
            load: including(all: Target.self, via: key).load)
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
    ) -> QueryIncludingAllTree<M, Children> where Children.Root == Target {
        QueryIncludingAllTree(
            root: self, children: children(Query<Target>(sameTargetAs: self)),
            load: including(all: Target.self, through: Junction.self).load)
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
    ) -> QueryIncludingOneTree<M, Child> where Child.Root == Target {
        QueryIncludingOneTree(
            root: self, child: child(Query<Target>(sameTargetAs: self)),
            load: including(one: Target.self).all.load)
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
    ) -> QueryIncludingOneTree<M, Child> where Child.Root == Target {
        QueryIncludingOneTree(
            root: self, child: child(Query<Target>(sameTargetAs: self)),
            load: including(one: Target.self, via: key).all.load)
    }
}
