extension Query {
    /// Fetches each model with all the rows of another model related to it by a foreign key:
    /// an author with their books.
    ///
    /// The relation is the foreign key declared on either model (`Book`'s schema declares
    /// `.foreignKey(\.authorID, references: Author.self)`); when several could serve, name one
    /// with ``including(all:via:_:)->QueryIncludingAll<M,Target>``.
    ///
    /// ```swift
    /// let shelves = try db.query(Author.self).including(all: Book.self) { $0.order { $0.year } }.fetchAll()
    /// ```
    ///
    /// - Parameters:
    ///   - target: The related model.
    ///   - children: Narrows (`where`) and sorts (`order`) the related rows; every row by default.
    /// - Returns: A query of `[(M, [Target])]`; nothing runs until it is fetched.
    public func including<Target: Model>(
        all target: Target.Type, _ children: (Query<Target>) -> Query<Target> = { $0 }
    ) -> QueryIncludingAll<M, Target> {
        includingDirect(
            children, preferring: .rootIsParent, via: nil, usage: "including(all: \(Target.self).self)")
    }

    /// Fetches each model with all the rows of another model whose foreign key `key` references it:
    /// a manager with the employees reporting to them.
    ///
    /// - Parameters:
    ///   - target: The related model.
    ///   - key: The target's foreign key property: `\.reportsTo`.
    ///   - children: Narrows (`where`) and sorts (`order`) the related rows.
    /// - Returns: A query of `[(M, [Target])]`.
    public func including<Target: Model>(
        all target: Target.Type, via key: PartialKeyPath<Target>,
        _ children: (Query<Target>) -> Query<Target> = { $0 }
    ) -> QueryIncludingAll<M, Target> {
        includingDirect(
            children, preferring: .rootIsParent, via: PropertyReference(key),
            usage: "including(all: \(Target.self).self, via:)")
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
    ) -> QueryIncludingAll<M, Target> {
        includingThrough(
            Junction.self, keys: nil, children,
            usage: "including(all: \(Target.self).self, through: \(Junction.self).self)")
    }

    /// Fetches each model with all the rows of another model related through a junction model,
    /// naming the junction's two foreign keys: needed when the junction has several keys to one
    /// table, as a friendship between two users has.
    ///
    /// ```swift
    /// struct Friendship: Model {
    ///     var id: Int64?; var userID: Int64; var friendID: Int64
    ///     static let schema = Schema<Friendship>(table: "friendships")
    ///         .foreignKey(\.userID, references: User.self).foreignKey(\.friendID, references: User.self)
    /// }
    /// let friends = try db.query(User.self)
    ///     .including(all: User.self, through: Friendship.self, via: \.userID, to: \.friendID).fetchAll()
    /// ```
    ///
    /// - Parameters:
    ///   - target: The related model.
    ///   - junction: The model whose rows pair the two.
    ///   - rootKey: The junction's foreign key to this query's model: `\.userID`.
    ///   - targetKey: The junction's foreign key to `target`: `\.friendID`.
    ///   - children: Narrows (`where`) and sorts (`order`) the related rows.
    /// - Returns: A query of `[(M, [Target])]`: each root with the targets its junction rows name
    ///   in `targetKey` when they name the root in `rootKey` (one direction; pairs stored once are
    ///   not read backwards).
    public func including<Target: Model, Junction: Model>(
        all target: Target.Type, through junction: Junction.Type, via rootKey: PartialKeyPath<Junction>,
        to targetKey: PartialKeyPath<Junction>, _ children: (Query<Target>) -> Query<Target> = { $0 }
    ) -> QueryIncludingAll<M, Target> {
        includingThrough(
            Junction.self, keys: (PropertyReference(rootKey), PropertyReference(targetKey)), children,
            usage: "including(all: \(Target.self).self, through: \(Junction.self).self, via:to:)")
    }

    private func includingThrough<Target: Model, Junction: Model>(
        _ junction: Junction.Type, keys: (root: PropertyReference, target: PropertyReference)?,
        _ children: (Query<Target>) -> Query<Target>, usage: String
    ) -> QueryIncludingAll<M, Target> {
        // With two keys to one table, the junction's key to the root and its key to the target
        // must both be named: the message says how, with the junction's own key names.
        let fix: ([String]) -> String = { names in
            let others = names.count > 1 ? names[1] : names[0]
            return "name the junction's key to \(M.self) and its key to \(Target.self): "
                + ".including(all: \(Target.self).self, through: \(Junction.self).self, via: \\.\(names[0]), "
                + "to: \\.\(others))"
        }
        let load = Result {
            var first = try Relation.resolve(
                M.self, Junction.self, preferring: .rootIsParent, via: keys?.root, usage: usage, fix: fix)
            var second = try Relation.resolve(
                Junction.self, Target.self, preferring: .rootIsChild, via: keys?.target, usage: usage,
                fix: fix)
            // Date keys stored as numbers read as the database stores dates.
            first.dateStorage = dateStorage
            second.dateStorage = dateStorage
            return EagerLoad(
                path: .through(first: first, second: second), models: [Junction.self, Target.self]
            ) { connection in
                _ = try connection.table(for: Junction.self)
                _ = try connection.table(for: Target.self)
            }
        }
        return QueryIncludingAll(
            root: self, children: children(Query<Target>(sameTargetAs: self)), load: load)
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
    ) -> QueryIncludingOne<M, Target> {
        QueryIncludingOne(
            all: includingDirect(
                children, preferring: .rootIsChild, via: nil, usage: "including(one: \(Target.self).self)"))
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
    ) -> QueryIncludingOne<M, Target> {
        QueryIncludingOne(
            all: includingDirect(
                children, preferring: .rootIsChild, via: PropertyReference(key),
                usage: "including(one: \(Target.self).self, via:)"))
    }

    /// The roots with the related rows of a direct relation: `including(all:)` prefers a
    /// relation where the root is the parent, `including(one:)` one where the root holds the
    /// foreign key; otherwise they load alike (`QueryIncludingOne` keeps the single row).
    private func includingDirect<Target: Model>(
        _ children: (Query<Target>) -> Query<Target>, preferring preference: Relation.Preference,
        via: PropertyReference?, usage: String
    ) -> QueryIncludingAll<M, Target> {
        QueryIncludingAll(
            root: self, children: children(Query<Target>(sameTargetAs: self)),
            load: directLoad(Target.self, preferring: preference, via: via, usage: usage))
    }

    private func directLoad<Target: Model>(
        _ target: Target.Type, preferring preference: Relation.Preference, via: PropertyReference?,
        usage: String
    ) -> Result<EagerLoad, any Error> {
        Result {
            var relation = try Relation.resolve(
                M.self, Target.self, preferring: preference, via: via, usage: usage)
            relation.dateStorage = dateStorage
            return EagerLoad(path: .direct(relation), models: [Target.self]) { connection in
                _ = try connection.table(for: Target.self)
            }
        }
    }
}
