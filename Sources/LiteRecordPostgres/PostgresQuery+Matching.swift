import Foundation
import LiteRecord

extension PostgresQuery {
    /// Keeps the rows that hold every word of `text` in the properties of the schema's
    /// full-text index, best match first.
    ///
    /// The same search as ``LiteRecord/Query/matching(_:)`` on SQLite: `text` is any user text,
    /// split into words (runs of Unicode letters and digits); a row matches when it holds each
    /// of them, ignoring case and diacritics. Quotes, `-`, `OR`, `*`, `&`, `|`, `!`, `:`,
    /// backslashes and parentheses are plain text, never operators and never an error; text
    /// without a word matches nothing. The words are bound, never written into the SQL.
    ///
    /// The results come best match first (`ts_rank`, lowered for long texts), unless the query
    /// has its own `order`. The search composes with `where`, `order`, `limit`, `count`,
    /// `exists`, `updateAll`, `deleteAll` and the async forms; several `matching` calls must
    /// all hold.
    ///
    /// The index is a generated `tsvector` column, `literecord_search`, of the model's table
    /// (see the PostgreSQL article for what it costs and where PostgreSQL finds other words
    /// than SQLite). SQLite's `matching(fts5Query:)` has no PostgreSQL form: FTS5's query
    /// language is not PostgreSQL's.
    ///
    /// ```swift
    /// let hits = try pg.query(Article.self).matching("swift orm").limit(20).fetchAll()
    /// ```
    ///
    /// - Parameter text: The words to find.
    /// - Returns: The narrowed query. Running it throws ``LiteRecord/SchemaError`` when the
    ///   model's schema declares no `fullTextSearch(on:tokenizer:)`.
    public func matching(_ text: String) -> PostgresQuery {
        with { $0.matching(text) }
    }

    /// Every matching model with a snippet of one indexed property: the part of its text where
    /// the words were found, each marked, for a result list.
    ///
    /// PostgreSQL's `ts_headline` chooses the fragment: at most `style.maximumTokens` words
    /// (at least 2) around the words found, with `style.ellipsis` where text was left out. A
    /// word is marked when PostgreSQL's parser reads it as the word searched: one that matched
    /// only by ignoring diacritics, the case of a non-ASCII letter, or punctuation inside it
    /// (`swift.org`, an e-mail address) is found but not marked.
    ///
    /// ```swift
    /// let results = try pg.query(Article.self).matching("swift")
    ///     .fetchAll(withSnippetsOf: \.body, style: SnippetStyle(before: "<b>", after: "</b>"))
    /// ```
    ///
    /// - Parameters:
    ///   - property: An indexed property (one of `fullTextSearch(on:)`'s).
    ///   - style: How words are marked and the text shortened; its texts are bound.
    /// - Returns: Each model with its snippet, in the query's order.
    /// - Throws: ``LiteRecord/SchemaError`` when the query has no `matching` or the property
    ///   is not indexed; otherwise as ``fetchAll()-7qelv``.
    public func fetchAll(withSnippetsOf property: PartialKeyPath<M>, style: SnippetStyle = SnippetStyle())
        throws -> [(M, String)]
    {
        let (sql, column) = try SQLDialect.$current.withValue(.postgres) {
            try query.backendSnippetSQL(of: property, style: style)
        }
        return try context.withSession { session in
            guard let table = try session.readableTable(for: M.self),
                try session.readableTables(of: relatedTypes)
            else { return [] }
            let decoder = table.rowDecoder(dateStorage: session.dateStorage)
            return try session.execute(sql).lrRows.map { row in
                let model = try decoder.decode(M.self, from: row)
                let marked = try row.value(String?.self, named: BackendTable.snippetColumn) ?? ""
                let fragment = try row.value(String?.self, named: BackendTable.fragmentColumn) ?? ""
                // The indexed value as text; another type counts as wholly shown.
                let document: String
                switch try row.value(named: column) {
                case .text(let text): document = text
                case .integer(let integer): document = String(integer)
                default: document = fragment
                }
                return (model, style.postgresSnippet(marked: marked, fragment: fragment, document: document))
            }
        }
    }
}

extension PostgresQuery where M: Sendable {
    /// Every model `matching(_:)` finds, each with a snippet of one indexed property, fetched
    /// off the calling task; cancelling the task cancels the query.
    ///
    /// - Parameters:
    ///   - property: An indexed property (one of `fullTextSearch(on:)`'s).
    ///   - style: How words are marked and the text shortened.
    /// - Returns: Each model with its snippet, in the query's order.
    /// - Throws: As the synchronous ``fetchAll(withSnippetsOf:style:)-(PartialKeyPath<M>,_)``.
    public func fetchAll(
        withSnippetsOf property: PartialKeyPath<M> & Sendable, style: SnippetStyle = SnippetStyle()
    ) async throws -> [(M, String)] {
        let work: @Sendable (PostgresQuery) throws -> [(M, String)] = {
            try $0.fetchAll(withSnippetsOf: property, style: style)
        }
        // A query on a transaction runs inside that transaction's closure, on its thread.
        guard let database = target.database else { return try work(self) }
        return try await database.runCancellable { _ in try work(self) }
    }
}
