// What another backend (LiteRecordPostgres) needs to build its eager loads from LiteRecord's:
// the to-one load as the to-many load it keeps the first row of, and back. It runs them with
// the tree code (RelationTree+Backend.swift). Package access: the public API does not grow.

extension QueryIncludingOne {
    /// The eager load of all related rows this query keeps the first of.
    package var backendAll: QueryIncludingAll<Root, Target> { all }
}

extension QueryIncludingAll {
    /// The same eager load keeping each root's first related row, or `nil`.
    package var backendOne: QueryIncludingOne<Root, Target> { QueryIncludingOne(all: self) }
}
