/// How a snippet marks the words found and shortens the text around them.
///
/// ```swift
/// let style = SnippetStyle(before: "<b>", after: "</b>", ellipsis: "…", maximumTokens: 12)
/// ```
public struct SnippetStyle: Sendable, Hashable {
    /// Text written before each word found.
    public var before: String
    /// Text written after each word found.
    public var after: String
    /// Text standing for the text left out, at either end.
    public var ellipsis: String
    /// The most words the snippet holds (FTS5 takes 1 to 64).
    public var maximumTokens: Int

    /// A snippet style; the texts are bound, never read as SQL.
    ///
    /// - Parameters:
    ///   - before: Text before each word found; `[` by default.
    ///   - after: Text after each word found; `]` by default.
    ///   - ellipsis: Text for what is left out; `…` by default.
    ///   - maximumTokens: The most words in the snippet, 1 to 64 (others are clamped).
    public init(before: String = "[", after: String = "]", ellipsis: String = "…", maximumTokens: Int = 12) {
        self.before = before
        self.after = after
        self.ellipsis = ellipsis
        self.maximumTokens = maximumTokens
    }

    package var clampedTokens: Int { Swift.min(Swift.max(maximumTokens, 1), 64) }
}

extension Query {
    /// Every matching model with a snippet of one indexed property: the part of its text where
    /// the words were found, each marked, for a result list.
    ///
    /// ```swift
    /// let results = try db.query(Article.self).matching("swift")
    ///     .fetchAll(withSnippetsOf: \.body, style: SnippetStyle(before: "<b>", after: "</b>"))
    /// // [(Article, "…with <b>Swift</b> on Linux…")]
    /// ```
    ///
    /// - Parameters:
    ///   - property: An indexed property (one of `fullTextSearch(on:)`'s).
    ///   - style: How words are marked and the text shortened.
    /// - Returns: Each model with its snippet, in the query's order.
    /// - Throws: ``SchemaError`` when the query has no `matching` or the property is not
    ///   indexed; otherwise as ``fetchAll()-2xr4o``.
    public func fetchAll(withSnippetsOf property: PartialKeyPath<M>, style: SnippetStyle = SnippetStyle())
        throws -> [(M, String)]
    {
        if let backend { return try backend.fetchAll(self, withSnippetsOf: property, style: style) }
        return try runReading { connection, table in
            let query = try selectingSnippet(of: property, style: style, table: table)
            var results: [(M, String)] = []
            try connection.withStatement(query.selectSQL("*", table: table)) { statement in
                let session = RowDecodingSession(
                    source: statement,
                    decoder: table.rowDecoder(dateStorage: connection.configuration.dateStorage),
                    type: M.self)
                let snippetColumn = statement.columnCount - 1
                while try statement.step() {
                    let model = try session.decodeRow(M.self)
                    results.append((model, statement.text(at: snippetColumn) ?? ""))
                }
            }
            return results
        }
    }
}

extension Query {
    /// The query selecting, beside each model, a snippet of an indexed property.
    ///
    /// - Throws: ``SchemaError`` when the query has no `matching` or the property is not
    ///   indexed.
    func selectingSnippet(of property: PartialKeyPath<M>, style: SnippetStyle, table: TableSchema) throws
        -> Query
    {
        let reference = PropertyReference(property)
        guard let index = table.fullTextIndex, fullTextMatch != nil else {
            throw SchemaError(
                "fetchAll(withSnippetsOf:) shows where matching(_:) found its words: add matching(_:) "
                    + "to the query (and .fullTextSearch(on:) to the schema of \(table.typeName))")
        }
        guard let root = reference.path?.root, let column = table.propertyToColumn[root],
            let position = index.columns.firstIndex(of: column)
        else {
            throw SchemaError(
                "\(reference.keyPathDescription) is not in the full-text index of \(table.typeName) "
                    + "(\(index.columns.joined(separator: ", "))); snippets come from indexed text")
        }
        var query = self
        query.fullTextMatch?.snippet = FullTextMatch.SnippetRequest(column: position, style: style)
        return query
    }
}
