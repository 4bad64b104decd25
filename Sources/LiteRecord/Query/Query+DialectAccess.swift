// What a dialect (`SQLDialect`) of another backend reads of a query to write its SQL.

extension Query {
    /// The words of each `matching(_:)` the query carries, in order (`nil` for a
    /// `matching(fts5Query:)`, which only SQLite reads); `nil` without a search.
    package var searchWords: [[String]?]? {
        fullTextMatch.map { match in
            match.terms.map { term in
                guard case .words(let text) = term else { return nil }
                return FullTextQuery.words(in: text)
            }
        }
    }

    /// The snippet the query selects beside each model, if asked: the position of the indexed
    /// column among the index's columns, and its style.
    package var searchSnippet: (column: Int, style: SnippetStyle)? {
        fullTextMatch?.snippet.map { ($0.column, $0.style) }
    }

    /// Whether the query states an order of its own.
    package var isOrdered: Bool { !orderings.isEmpty }

    /// The model's table.
    package var modelTable: TableSchema? { try? TableSchemaCache.schema(for: M.self) }
}
