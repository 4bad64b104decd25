/// What the query of included rows (the closure of `including`) may not do.
enum IncludedRowsCheck {
    /// The error for a full-text search of the included rows: `matching` ranks all the roots'
    /// rows together and its match would be lost in the key lookup, so it is refused, as a
    /// `limit` is, rather than silently ignored.
    ///
    /// - Returns: `nil` when the query searches nothing.
    static func searchError<Related: Model>(_ query: Query<Related>, root: any Model.Type) -> SchemaError? {
        guard query.fullTextMatch != nil else { return nil }
        return SchemaError(
            "the rows included with \(root) can be narrowed with where and sorted with order; matching(_:) "
                + "of \(Related.self) is not supported there (a search ranks all \(root) rows' matches "
                + "together): search \(Related.self) on its own, e.g. "
                + "db.query(\(Related.self).self).matching(text).where(\(root).self) { ... }, and group the "
                + "results in Swift")
    }
}
